/* SPDX-License-Identifier: BSD-3-Clause */
/* A random chain of loops on a random mesh gives the same bits lazily as eagerly: direct RW,
 * indirect reads, indirect increments (single and vector arguments), indirect RW, index
 * arguments, OP_READ globals whose variable changes after every call, reductions, and a constant
 * that takes new values between calls. Run five times in one process: OP2_LAZY=off, the default,
 * OP2_LAZY=on, OP2_LAZY=on with OP2_LAZY_CHAIN=3, and OP2_LAZY=on with OP2_FUSE=on (runs of direct
 * loops on nodes fused); every dat and every reduction result must be byte for byte those of the
 * first run. */
#include "loops/random_mesh.h"
#include "lazy_test.h"

enum { NE = 9000, NN = 3000, NC = 4000, CALLS = 80 };

static const char node_direct_src[] =
    "static void node_direct(const double *g, const double *w, double *u) {\n"
    "  u[0] = u[0] * g[0] + w[0] * kc; u[1] += g[1]; }";
static const char node_mix_src[] =
    "static void node_mix(const double *g, const double *u, double *w) {\n"
    "  w[0] = w[0] * 0.5 + u[1] * g[0]; }";
static const char edge_gather_src[] =
    "static void edge_gather(const double *g, const double *u0, const double *u1, double *e) {\n"
    "  e[0] = g[0] * (u0[0] - u1[1]) + 0.5 * e[0]; }";
static const char edge_scatter_src[] =
    "static void edge_scatter(const double *g, const double *e, double *w0, double *w1) {\n"
    "  w0[0] += e[0] * g[0]; w1[0] -= e[0] * g[1]; }";
static const char cell_vec_src[] =
    "static void cell_vec(const double *g, const double **u, const int *self, double *c) {\n"
    "  c[0] = g[0] * (u[0][0] + u[1][0] + u[2][0] + u[3][0]);\n"
    "  c[1] = u[0][1] * u[3][1] - g[1]; c[2] = (double)*self; }";
static const char cell_scatter_src[] =
    "static void cell_scatter(const double *c, double **w) {\n"
    "  for (int j = 0; j < 4; j++) w[j][0] += 0.25 * c[0] - 0.125 * j; }";
static const char edge_rw_src[] =
    "static void edge_rw(const double *g, const double *e, double *u) {\n"
    "  u[0] = 0.999 * u[0] + e[0] * g[1]; }";
static const char edge_reduce_src[] =
    "static void edge_reduce(const double *e, int *ei, double *sum, int *top) {\n"
    "  *sum += e[0]; ei[0] += (e[0] > 0.0) ? 1 : -1; *top = MAX(*top, ei[0]); }";

typedef struct state {
  double u[2 * NN], w[NN], e[NE], c[3 * NC];
  int ei[NE];
  double sums[CALLS];
  int tops[CALLS];
} state;

static void run(const rm_mesh *values, const char *opt1, const char *opt2, int lazy, state *out) {
  lazy_init(opt1, opt2, NULL);
  rm_mesh m = *values;
  m.nodes = op_decl_set(NN, "nodes");
  m.edges = op_decl_set(NE, "edges");
  m.cells = op_decl_set(NC, "cells");
  m.pedge = op_decl_map(m.edges, m.nodes, 2, m.edge_nodes, "pedge");
  m.pcell = op_decl_map(m.cells, m.nodes, 4, m.cell_nodes, "pcell");
  unsigned rng = rm_rng(262);
  double *u0 = rm_doubles(2 * NN, -1, 1, &rng), *w0 = rm_doubles(NN, 0, 1, &rng);
  double *e0 = rm_doubles(NE, -1, 1, &rng);
  op_dat u = op_decl_dat(m.nodes, 2, "double", u0, "u");
  op_dat w = op_decl_dat(m.nodes, 1, "double", w0, "w");
  op_dat e = op_decl_dat(m.edges, 1, "double", e0, "e");
  op_dat ei = op_decl_dat(m.edges, 1, "int", NULL, "ei");
  op_dat c = op_decl_dat(m.cells, 3, "double", NULL, "c");
  double kc = 0.5;
  op_decl_const(1, "double", &kc, "kc");
  memset(out->sums, 0, sizeof out->sums);
  memset(out->tops, 0, sizeof out->tops);
  double g[2];
  for (int call = 0; call < CALLS; call++) {
    int kind = call == 0 ? 0 : rm_below(&rng, 10);
    g[0] = rm_uniform(&rng, 0.5, 1.0), g[1] = rm_uniform(&rng, -0.1, 0.1);
    op_arg gr = op_arg_gbl(g, 2, "double", OP_READ);
    switch (kind) {
      case 0:
        op_par_loop(node_direct_src, "node_direct", m.nodes, gr,
                    op_arg_dat(w, -1, OP_ID, 1, "double", OP_READ),
                    op_arg_dat(u, -1, OP_ID, 2, "double", OP_RW));
        break;
      case 1:
        op_par_loop(edge_gather_src, "edge_gather", m.edges, gr,
                    op_arg_dat(u, 0, m.pedge, 2, "double", OP_READ),
                    op_arg_dat(u, 1, m.pedge, 2, "double", OP_READ),
                    op_arg_dat(e, -1, OP_ID, 1, "double", OP_RW));
        break;
      case 2:
        op_par_loop(edge_scatter_src, "edge_scatter", m.edges, gr,
                    op_arg_dat(e, -1, OP_ID, 1, "double", OP_READ),
                    op_arg_dat(w, 0, m.pedge, 1, "double", OP_INC),
                    op_arg_dat(w, 1, m.pedge, 1, "double", OP_INC));
        break;
      case 3:
        op_par_loop(cell_vec_src, "cell_vec", m.cells, gr,
                    op_arg_dat(u, -4, m.pcell, 2, "double", OP_READ), op_arg_idx(-1, OP_ID),
                    op_arg_dat(c, -1, OP_ID, 3, "double", OP_WRITE));
        break;
      case 4:
        op_par_loop(cell_scatter_src, "cell_scatter", m.cells,
                    op_arg_dat(c, -1, OP_ID, 3, "double", OP_READ),
                    op_arg_dat(w, -4, m.pcell, 1, "double", OP_INC));
        break;
      case 5:
        op_par_loop(edge_rw_src, "edge_rw", m.edges, gr,
                    op_arg_dat(e, -1, OP_ID, 1, "double", OP_READ),
                    op_arg_dat(u, 0, m.pedge, 2, "double", OP_RW));
        break;
      case 6:
        op_par_loop(edge_reduce_src, "edge_reduce", m.edges,
                    op_arg_dat(e, -1, OP_ID, 1, "double", OP_READ),
                    op_arg_dat(ei, -1, OP_ID, 1, "int", OP_RW),
                    op_arg_gbl(&out->sums[call], 1, "double", OP_INC),
                    op_arg_gbl(&out->tops[call], 1, "int", OP_MAX));
        break;
      case 8:
      case 9: /* direct on nodes, like node_direct: OP2_FUSE fuses runs of them */
        op_par_loop(node_mix_src, "node_mix", m.nodes, gr,
                    op_arg_dat(u, -1, OP_ID, 2, "double", OP_READ),
                    op_arg_dat(w, -1, OP_ID, 1, "double", OP_RW));
        break;
      default:
        kc = rm_uniform(&rng, 0.0, 1.0); /* a new value: queued calls keep the old one */
        op_decl_const(1, "double", &kc, "kc");
    }
    g[0] = g[1] = -1e300;       /* the calls must have kept their own values */
    if (call == 0 && lazy >= 0) /* lazily the first call is queued; eagerly it has run */
      CHECK((lazy_peek(u, 0) == u0[0]) == lazy);
  }
  op_fetch_data(u, out->u);
  op_fetch_data(w, out->w);
  op_fetch_data(e, out->e);
  op_fetch_data(ei, out->ei);
  op_fetch_data(c, out->c);
  op_exit();
  free(u0), free(w0), free(e0);
}

static void same(const state *a, const state *b, const char *what) {
  rm_check_same(a->u, b->u, 2 * NN, sizeof(double), what);
  rm_check_same(a->w, b->w, NN, sizeof(double), what);
  rm_check_same(a->e, b->e, NE, sizeof(double), what);
  rm_check_same(a->ei, b->ei, NE, sizeof(int), what);
  rm_check_same(a->c, b->c, 3 * NC, sizeof(double), what);
  rm_check_same(a->sums, b->sums, CALLS, sizeof(double), what);
  rm_check_same(a->tops, b->tops, CALLS, sizeof(int), what);
}

/* FNV-1a of the results, for runs compared by their output (under MPI). */
static unsigned long long digest(const state *s) {
  unsigned long long h = 1469598103934665603ull;
  const unsigned char *p = (const unsigned char *)s;
  for (size_t i = 0; i < sizeof *s; i++) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

/* Usage: t262-lazy-random [once]. With "once" (under MPI, where op_init runs once per process),
 * one run with the environment's options, and the results' digest on stdout for
 * lazy_same_stdout.sh to compare. */
int main(int argc, char **argv) {
  rm_mesh values;
  rm_mesh_values(&values, NE, NN, NC, RM_JUMPS, 2620);
  static state eager, dflt, lazy, bounded, fused;
  if (argc > 1 && strcmp(argv[1], "once") == 0) {
    run(&values, NULL, NULL, -1, &eager);
    printf("results digest %016llx\n", digest(&eager));
    rm_mesh_free(&values);
    return 0;
  }
  run(&values, "OP2_LAZY=off", NULL, 0, &eager);
  /* the default is the environment's, else auto: at once on one process without fusion */
  const char *env = getenv("OP2_LAZY");
  run(&values, NULL, NULL, env && !strcmp(env, "on"), &dflt);
  run(&values, "OP2_LAZY=on", NULL, 1, &lazy);
  run(&values, "OP2_LAZY=on", "OP2_LAZY_CHAIN=3", 1, &bounded);
  run(&values, "OP2_LAZY=on", "OP2_FUSE=on", 1, &fused);
  same(&dflt, &eager, "no option against OP2_LAZY=off");
  same(&lazy, &eager, "OP2_LAZY=on against off");
  same(&bounded, &eager, "OP2_LAZY=on, OP2_LAZY_CHAIN=3 against off");
  same(&fused, &eager, "OP2_LAZY=on, OP2_FUSE=on against off");
  int reductions = 0;
  for (int i = 0; i < CALLS; i++) reductions += eager.sums[i] != 0.0;
  CHECK(reductions > 5); /* the chain had reductions in it */
  rm_mesh_free(&values);
  return 0;
}
