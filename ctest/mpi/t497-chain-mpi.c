/* SPDX-License-Identifier: BSD-3-Clause */
/* A lazy chain under MPI: its exchanges planned for the chain as a whole. Usage:
 *   t497-chain-mpi local|replicated grouped|eager|fault
 *
 * First a small known chain: two direct node loops write x (2 doubles) and y (1 double), then
 * an edge loop reads both through its map. Run one by one (eager: OP2_LAZY=off) the edge loop
 * sends two messages to each neighbour, one per dat; planned (grouped: OP2_LAZY=on) one message
 * carrying both, the same bytes: 24 per exported node row. Then random chains of direct,
 * indirect-read, incrementing (scalar and vector arguments) and read-write loops over nodes,
 * edges and cells, 16 loops a round and a fetch after each round, against the plain-C
 * computation on the whole mesh (every rank holds it) within 1e-12 relative. */
#include "mpi_test.h"
#include "runtime/chain.h"
#include "runtime/op2_impl.h"

enum { NN = 500, NE = 1100, NC = 380, ROUNDS = 4, CHAIN = 16 };

KERNEL(
    node_relax, static void node_relax(const int *round, const double *y, double *x) {
      x[0] = 0.5 * x[0] + 0.25 * y[0] + 0.01 * (double)*round;
      x[1] = 0.75 * x[1] - 0.125 * x[0];
    })

KERNEL(
    node_set, static void node_set(const double *x, double *y) { y[0] = 0.5 * x[0] - x[1]; })

KERNEL(
    edge_read, static void edge_read(const double *a, const double *b, const double *ya,
                                     const double *yb, double *e) {
      e[0] = 0.5 * e[0] + a[0] - 0.5 * b[1] + 0.25 * (ya[0] - yb[0]);
    })

KERNEL(
    edge_inc, static void edge_inc(const double *e, const double *xa, double *ya, double *yb) {
      ya[0] += 0.25 * e[0] - 0.125 * xa[1];
      yb[0] -= 0.125 * e[0];
    })

KERNEL(
    cell_gather, static void cell_gather(const double **y, const double **x, double *c) {
      c[0] = 0.25 * c[0] + 0.125 * (y[0][0] + y[1][0] - y[2][0] + y[3][0]) + 0.01 * x[2][1];
    })

KERNEL(
    cell_scatter, static void cell_scatter(const double *c, double **y) {
      for (int j = 0; j < 4; j++) y[j][0] += 0.0625 * c[0] * (double)(j + 1);
    })

KERNEL(
    edge_rw, static void edge_rw(const double *ya, double *e, double *xb) {
      e[0] = 0.5 * e[0] + 0.25 * ya[0];
      xb[0] += 0.0625 * e[0];
      xb[1] -= 0.03125 * e[0];
    })

typedef struct world {
  mt_set nodes, edges, cells;
  op_map pedge, pcell;
  int *en, *cn;
  op_dat x, y, e, c;
  double *rx, *ry, *re, *rc; /* the plain-C reference */
} world;

/* One loop of kind k, through OP2 and on the reference. */
static void run_kind(world *w, int k, int round) {
  const int *en = w->en, *cn = w->cn;
  switch (k) {
    case 0:
      op_par_loop(node_relax_src, "node_relax", w->nodes.set, op_arg_gbl(&round, 1, "int", OP_READ),
                  op_arg_dat(w->y, -1, OP_ID, 1, "double", OP_READ),
                  op_arg_dat(w->x, -1, OP_ID, 2, "double", OP_RW));
      for (int n = 0; n < NN; n++) node_relax(&round, w->ry + n, w->rx + 2 * n);
      break;
    case 1:
      op_par_loop(node_set_src, "node_set", w->nodes.set,
                  op_arg_dat(w->x, -1, OP_ID, 2, "double", OP_READ),
                  op_arg_dat(w->y, -1, OP_ID, 1, "double", OP_WRITE));
      for (int n = 0; n < NN; n++) node_set(w->rx + 2 * n, w->ry + n);
      break;
    case 2:
      op_par_loop(edge_read_src, "edge_read", w->edges.set,
                  op_arg_dat(w->x, 0, w->pedge, 2, "double", OP_READ),
                  op_arg_dat(w->x, 1, w->pedge, 2, "double", OP_READ),
                  op_arg_dat(w->y, 0, w->pedge, 1, "double", OP_READ),
                  op_arg_dat(w->y, 1, w->pedge, 1, "double", OP_READ),
                  op_arg_dat(w->e, -1, OP_ID, 1, "double", OP_RW));
      for (int i = 0; i < NE; i++)
        edge_read(w->rx + 2 * en[2 * i], w->rx + 2 * en[2 * i + 1], w->ry + en[2 * i],
                  w->ry + en[2 * i + 1], w->re + i);
      break;
    case 3:
      op_par_loop(edge_inc_src, "edge_inc", w->edges.set,
                  op_arg_dat(w->e, -1, OP_ID, 1, "double", OP_READ),
                  op_arg_dat(w->x, 0, w->pedge, 2, "double", OP_READ),
                  op_arg_dat(w->y, 0, w->pedge, 1, "double", OP_INC),
                  op_arg_dat(w->y, 1, w->pedge, 1, "double", OP_INC));
      for (int i = 0; i < NE; i++)
        edge_inc(w->re + i, w->rx + 2 * en[2 * i], w->ry + en[2 * i], w->ry + en[2 * i + 1]);
      break;
    case 4:
      op_par_loop(cell_gather_src, "cell_gather", w->cells.set,
                  op_arg_dat(w->y, -4, w->pcell, 1, "double", OP_READ),
                  op_arg_dat(w->x, -4, w->pcell, 2, "double", OP_READ),
                  op_arg_dat(w->c, -1, OP_ID, 1, "double", OP_RW));
      for (int i = 0; i < NC; i++) {
        const double *y[4], *x[4];
        for (int j = 0; j < 4; j++) y[j] = w->ry + cn[4 * i + j], x[j] = w->rx + 2 * cn[4 * i + j];
        cell_gather(y, x, w->rc + i);
      }
      break;
    case 5: /* a vector increment */
      op_par_loop(cell_scatter_src, "cell_scatter", w->cells.set,
                  op_arg_dat(w->c, -1, OP_ID, 1, "double", OP_READ),
                  op_arg_dat(w->y, -4, w->pcell, 1, "double", OP_INC));
      for (int i = 0; i < NC; i++) {
        double *y[4];
        for (int j = 0; j < 4; j++) y[j] = w->ry + cn[4 * i + j];
        cell_scatter(w->rc + i, y);
      }
      break;
    default:
      op_par_loop(edge_rw_src, "edge_rw", w->edges.set,
                  op_arg_dat(w->y, 0, w->pedge, 1, "double", OP_READ),
                  op_arg_dat(w->e, -1, OP_ID, 1, "double", OP_RW),
                  op_arg_dat(w->x, 1, w->pedge, 2, "double", OP_INC));
      for (int i = 0; i < NE; i++) edge_rw(w->ry + en[2 * i], w->re + i, w->rx + 2 * en[2 * i + 1]);
      break;
  }
}

static long loop_messages(const char *name, double *bytes) {
  op2_loop_stats *s = op2_stats_for(op2_ctx(), name);
  *bytes = s ? s->halo_bytes : 0;
  return s ? s->halo_messages : 0;
}

/* Neighbours this rank sends node rows to, and how many rows. */
static int node_neighbours(op_set nodes, int *rows) {
  const op2_halo *h = nodes->halo;
  int n = 0;
  *rows = 0;
  for (int q = 0; h && q < mt_size(); q++) {
    int here = 0;
    const op2_halo_list *l[2] = {&h->exp_exec, &h->exp_nonexec};
    for (int k = 0; k < 2; k++)
      for (int s = 0; s < l[k]->nranks; s++)
        if (l[k]->ranks[s] == q) here = 1, *rows += l[k]->offset[s + 1] - l[k]->offset[s];
    n += here;
  }
  return n;
}

/* The known chain: x and y written directly, then read together through the edges' map. */
static void known_chain(world *w, bool grouped) {
  run_kind(w, 0, 1); /* also distributes the mesh */
  double b0, b1;
  long m0 = loop_messages("edge_read", &b0);
  run_kind(w, 0, 2);
  run_kind(w, 1, 2);
  run_kind(w, 2, 2);
  double *got = mt_fetch_all(w->e, NE, sizeof(double));
  mt_check_doubles(got, w->re, NE, 1e-12, "edge_read in the known chain");
  free(got);
  long m1 = loop_messages("edge_read", &b1);
  int rows, neighbours = node_neighbours(w->nodes.set, &rows);
  long want = (grouped ? 1 : 2) * (long)neighbours;
  if (m1 - m0 != want || b1 - b0 != 24.0 * rows) {
    fprintf(stderr,
            "rank %d of %d: edge_read after writes of x and y sent %ld messages of %.0f bytes, "
            "expected %ld (%s, %d neighbours) of %d bytes\n",
            mt_rank(), mt_size(), m1 - m0, b1 - b0, want, grouped ? "grouped" : "eager", neighbours,
            24 * rows);
    exit(1);
  }
}

static int errors_seen;
static char first_error[2048];

static void returning_handler(const char *message, void *user) {
  (void)user;
  if (errors_seen++ == 0) snprintf(first_error, sizeof first_error, "%s", message);
}

/* fault: OP2_FAULT=exchange:R fails the chain's grouped exchange on rank R (its first exchange).
 * Every rank gets exactly one error, from that call, and goes on: the messages all went out
 * (empty or zeroed), so nobody waits, and later chains and op_exit run. */
static int fault_run(world *w) {
  op_set_error_handler(returning_handler, NULL);
  run_kind(w, 0, 1);
  run_kind(w, 1, 1);
  run_kind(w, 2, 1); /* x and y dirty: one group, posted in this call's step */
  free(mt_fetch_all(w->e, NE, sizeof(double)));
  if (errors_seen != 1 || !strstr(first_error, "edge_read") ||
      !strstr(first_error, "failure injected by OP2_FAULT")) {
    fprintf(stderr, "rank %d: %d errors, the first '%s'; expected one, from edge_read's exchange\n",
            mt_rank(), errors_seen, first_error);
    exit(1);
  }
  run_kind(w, 0, 2);
  run_kind(w, 2, 2);
  free(mt_fetch_all(w->e, NE, sizeof(double)));
  CHECK(errors_seen == 1);
  int me = mt_rank(), p = mt_size();
  op_exit();
  if (me == 0) printf("t497 fault on %d ranks: one error on every rank, finished\n", p);
  return 0;
}

int main(int argc, char **argv) {
  CHECK(argc >= 3);
  op_init(argc, argv, 0);
  mt_mode mode = mt_parse_mode(argv[1]);
  bool grouped = strcmp(argv[2], "grouped") == 0;
  unsigned rng = rm_rng(497);
  world w;
  w.nodes = mt_decl_set(mode, MT_SPLIT_SKEWED, NN, "nodes");
  w.edges = mt_decl_set(mode, MT_SPLIT_EMPTY_FIRST, NE, "edges");
  w.cells = mt_decl_set(mode, MT_SPLIT_SKEWED, NC, "cells");
  w.en = rm_map_values(NE, 2, NN, 150, &rng);
  w.cn = rm_map_values(NC, 4, NN, 150, &rng);
  w.pedge = mt_decl_map(&w.edges, &w.nodes, 2, w.en, "pedge");
  w.pcell = mt_decl_map(&w.cells, &w.nodes, 4, w.cn, "pcell");
  w.rx = rm_doubles(2 * NN, -1, 1, &rng), w.ry = rm_doubles(NN, -1, 1, &rng);
  w.re = rm_doubles(NE, -1, 1, &rng), w.rc = rm_doubles(NC, -1, 1, &rng);
  w.x = mt_decl_dat(&w.nodes, 2, "double", sizeof(double), w.rx, "x");
  w.y = mt_decl_dat(&w.nodes, 1, "double", sizeof(double), w.ry, "y");
  w.e = mt_decl_dat(&w.edges, 1, "double", sizeof(double), w.re, "e");
  w.c = mt_decl_dat(&w.cells, 1, "double", sizeof(double), w.rc, "c");
  op_partition("PTSCOTCH", "KWAY", w.cells.set, w.pcell, NULL);

  if (strcmp(argv[2], "fault") == 0) {
    int rc = fault_run(&w);
    free(w.rx), free(w.ry), free(w.re), free(w.rc), free(w.en), free(w.cn);
    return rc;
  }
  if (mt_size() > 1) known_chain(&w, grouped);
  for (int round = 0; round < ROUNDS; round++) {
    for (int i = 0; i < CHAIN; i++) run_kind(&w, rm_below(&rng, 7), round);
    char what[64];
    snprintf(what, sizeof what, "round %d: x", round);
    double *got = mt_fetch_all(w.x, NN, 2 * sizeof(double));
    mt_check_doubles(got, w.rx, 2 * NN, 1e-12, what);
    free(got);
    got = mt_fetch_all(w.y, NN, sizeof(double));
    what[strlen(what) - 1] = 'y';
    mt_check_doubles(got, w.ry, NN, 1e-12, what);
    free(got);
    got = mt_fetch_all(w.e, NE, sizeof(double));
    what[strlen(what) - 1] = 'e';
    mt_check_doubles(got, w.re, NE, 1e-12, what);
    free(got);
    got = mt_fetch_all(w.c, NC, sizeof(double));
    what[strlen(what) - 1] = 'c';
    mt_check_doubles(got, w.rc, NC, 1e-12, what);
    free(got);
  }
  free(w.rx), free(w.ry), free(w.re), free(w.rc), free(w.en), free(w.cn);
  int me = mt_rank(), p = mt_size();
  op_exit();
  if (me == 0) printf("t497 %s %s on %d ranks: the chains' figures agree\n", argv[1], argv[2], p);
  return 0;
}
