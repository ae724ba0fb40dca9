/* SPDX-License-Identifier: BSD-3-Clause */
/* OP2_TILE: random chains of loops on random meshes run tile by tile give the untiled results.
 * Each chain mixes direct writes and RW, indirect reads (single and vector arguments of dim 2),
 * indirect RW and indirect increments (single and vector), and OP_READ globals whose variable
 * changes after every call; chains end at op_fetch_data or a loop with a global reduction (a sum,
 * a minimum over a direct dat and a maximum through a map, each starting from a new value of the
 * caller's variable), which joins the chain as its last loop and is tiled with it. For two meshes
 * (one with many far-away map entries) and tile sizes 1, 37 and 700, every dat and every reduced
 * value must equal the untiled run's within rounding (1e-12 relative), and on seq bit for bit
 * when the inspector reports that every item's updates (the sums' terms included) came in element
 * order; the chains must have been tiled. A third run has no loop updating through a map: its dats
 * bit for bit on every backend. A repeated chain is inspected once, and again after a
 * declaration. */
#include <math.h>
#include <stddef.h>

#include "loops/random_mesh.h"
#include "lazy_test.h"
#include "runtime/chain.h"
#include "runtime/context.h"
#include "runtime/tile.h"

enum { NE = 6000, NN = 2000, NC = 2500, CALLS = 60 };

static const char node_direct_src[] =
    "static void node_direct(const double *g, const double *w, double *u) {\n"
    "  u[0] = u[0] * g[0] + w[0] * 0.5; u[1] += g[1]; }";
static const char edge_gather_src[] =
    "static void edge_gather(const double *g, const double *u0, const double *u1, double *e) {\n"
    "  e[0] = g[0] * (u0[0] - u1[1]) + 0.5 * e[0]; }";
static const char edge_scatter_src[] =
    "static void edge_scatter(const double *g, const double *e, double *w0, double *w1) {\n"
    "  w0[0] += e[0] * g[0]; w1[0] -= e[0] * g[1]; }";
static const char cell_vec_src[] =
    "static void cell_vec(const double *g, const double **u, double *c) {\n"
    "  c[0] = g[0] * (u[0][0] + u[1][0] + u[2][0] + u[3][0]);\n"
    "  c[1] = u[0][1] * u[3][1] - g[1]; }";
static const char cell_scatter_src[] =
    "static void cell_scatter(const double *c, double **w) {\n"
    "  for (int j = 0; j < 4; j++) w[j][0] += 0.25 * c[0] - 0.125 * j; }";
static const char edge_rw_src[] =
    "static void edge_rw(const double *g, const double *e, double *u) {\n"
    "  u[0] += e[0] * g[1]; }"; /* order-free: an indirect RW shared by elements */
static const char node_write_src[] =
    "static void node_write(const double *u, double *v) { v[0] = u[0] - u[1]; v[1] = u[1]; }";
static const char cell_read_src[] =
    "static void cell_read(const double *v0, const double *v2, double *c) {\n"
    "  c[1] = 0.5 * c[1] + v0[0] * v2[1]; }";
static const char edge_sum_src[] =
    "static void edge_sum(const double *e, double *sum) { *sum += e[0]; }";
static const char node_min_src[] =
    "static void node_min(const double *u, double *m) { if (u[0] < *m) *m = u[0]; }";
static const char cell_max_src[] =
    "static void cell_max(const double *v1, const double *c, double *m) {\n"
    "  double x = v1[0] + c[1]; if (x > m[1]) m[1] = x; if (-x > m[0]) m[0] = -x; }";

typedef struct state {
  double u[2 * NN], v[2 * NN], w[NN], e[NE], c[2 * NC];
  double reduced[2 * CALLS]; /* each reduction's value when its op_par_loop returned */
} state;

static int tiled_chains, in_order_chains, reduction_chains;

/* reads_only: no loop updates through a map (every item's updates come in element order) */
static void run(const int *edge_nodes, const int *cell_nodes, unsigned seed, int reads_only,
                const char *tile, state *out) {
  static const int read_kinds[] = {0, 1, 3, 6, 7, 8, 10, 11};
  lazy_init("OP2_LAZY=on", tile, NULL);
  op_set nodes = op_decl_set(NN, "nodes"), edges = op_decl_set(NE, "edges");
  op_set cells = op_decl_set(NC, "cells");
  op_map pedge = op_decl_map(edges, nodes, 2, (int *)edge_nodes, "pedge");
  op_map pcell = op_decl_map(cells, nodes, 4, (int *)cell_nodes, "pcell");
  unsigned rng = rm_rng(seed);
  double *u0 = rm_doubles(2 * NN, -1, 1, &rng), *w0 = rm_doubles(NN, 0, 1, &rng);
  double *e0 = rm_doubles(NE, -1, 1, &rng);
  op_dat u = op_decl_dat(nodes, 2, "double", u0, "u");
  op_dat v = op_decl_dat(nodes, 2, "double", NULL, "v");
  op_dat w = op_decl_dat(nodes, 1, "double", w0, "w");
  op_dat e = op_decl_dat(edges, 1, "double", e0, "e");
  op_dat c = op_decl_dat(cells, 2, "double", NULL, "c");
  double g[2], sum = 0, red[2];
  memset(out->reduced, 0, sizeof out->reduced);
  for (int call = 0; call < CALLS; call++) {
    g[0] = rm_uniform(&rng, 0.5, 1.0), g[1] = rm_uniform(&rng, -0.1, 0.1);
    op_arg gr = op_arg_gbl(g, 2, "double", OP_READ);
    int kind = call == 0 ? 0 : reads_only ? read_kinds[rm_below(&rng, 8)] : rm_below(&rng, 12);
    red[0] = rm_uniform(&rng, -1, 1), red[1] = rm_uniform(&rng, -1, 1);
    switch (kind) {
      case 0:
        op_par_loop(node_direct_src, "node_direct", nodes, gr,
                    op_arg_dat(w, -1, OP_ID, 1, "double", OP_READ),
                    op_arg_dat(u, -1, OP_ID, 2, "double", OP_RW));
        break;
      case 1:
        op_par_loop(edge_gather_src, "edge_gather", edges, gr,
                    op_arg_dat(u, 0, pedge, 2, "double", OP_READ),
                    op_arg_dat(u, 1, pedge, 2, "double", OP_READ),
                    op_arg_dat(e, -1, OP_ID, 1, "double", OP_RW));
        break;
      case 2:
        op_par_loop(edge_scatter_src, "edge_scatter", edges, gr,
                    op_arg_dat(e, -1, OP_ID, 1, "double", OP_READ),
                    op_arg_dat(w, 0, pedge, 1, "double", OP_INC),
                    op_arg_dat(w, 1, pedge, 1, "double", OP_INC));
        break;
      case 3:
        op_par_loop(cell_vec_src, "cell_vec", cells, gr,
                    op_arg_dat(u, -4, pcell, 2, "double", OP_READ),
                    op_arg_dat(c, -1, OP_ID, 2, "double", OP_WRITE));
        break;
      case 4:
        op_par_loop(cell_scatter_src, "cell_scatter", cells,
                    op_arg_dat(c, -1, OP_ID, 2, "double", OP_READ),
                    op_arg_dat(w, -4, pcell, 1, "double", OP_INC));
        break;
      case 5:
        op_par_loop(edge_rw_src, "edge_rw", edges, gr,
                    op_arg_dat(e, -1, OP_ID, 1, "double", OP_READ),
                    op_arg_dat(u, 0, pedge, 2, "double", OP_RW));
        break;
      case 6:
        op_par_loop(node_write_src, "node_write", nodes,
                    op_arg_dat(u, -1, OP_ID, 2, "double", OP_READ),
                    op_arg_dat(v, -1, OP_ID, 2, "double", OP_WRITE));
        break;
      case 7:
        op_par_loop(cell_read_src, "cell_read", cells,
                    op_arg_dat(v, 0, pcell, 2, "double", OP_READ),
                    op_arg_dat(v, 2, pcell, 2, "double", OP_READ),
                    op_arg_dat(c, -1, OP_ID, 2, "double", OP_RW));
        break;
      case 8: /* a reduction ends the chain: its value is there when op_par_loop returns */
        op_par_loop(edge_sum_src, "edge_sum", edges, op_arg_dat(e, -1, OP_ID, 1, "double", OP_READ),
                    op_arg_gbl(&sum, 1, "double", OP_INC));
        out->reduced[2 * call] = sum;
        break;
      case 10:
        op_par_loop(node_min_src, "node_min", nodes, op_arg_dat(u, -1, OP_ID, 2, "double", OP_READ),
                    op_arg_gbl(red, 1, "double", OP_MIN));
        out->reduced[2 * call] = red[0];
        break;
      case 11:
        op_par_loop(cell_max_src, "cell_max", cells, op_arg_dat(v, 1, pcell, 2, "double", OP_READ),
                    op_arg_dat(c, -1, OP_ID, 2, "double", OP_READ),
                    op_arg_gbl(red, 2, "double", OP_MAX));
        out->reduced[2 * call] = red[0], out->reduced[2 * call + 1] = red[1];
        break;
      default:
        op_par_loop(edge_rw_src, "edge_rw", edges, gr,
                    op_arg_dat(e, -1, OP_ID, 1, "double", OP_READ),
                    op_arg_dat(u, 1, pedge, 2, "double", OP_RW));
    }
    g[0] = g[1] = -1e300; /* the calls must have kept their own values */
  }
  op_fetch_data(u, out->u);
  op_fetch_data(v, out->v);
  op_fetch_data(w, out->w);
  op_fetch_data(e, out->e);
  op_fetch_data(c, out->c);
  op2_tile_counts n;
  op2_chain_tile_counts(op2_ctx(), &n);
  tiled_chains = (int)n.chains;
  in_order_chains = (int)(n.chains - n.out_of_order);
  reduction_chains = (int)n.reductions;
  op_exit();
  free(u0), free(w0), free(e0);
}

/* Within rounding: 1e-12 of the value (of 1 below 1). */
static void close_to(const double *got, const double *want, int n, const char *what,
                     const char *tile) {
  for (int i = 0; i < n; i++) {
    double scale = fabs(want[i]) > 1 ? fabs(want[i]) : 1;
    if (!(fabs(got[i] - want[i]) <= 1e-12 * scale)) {
      fprintf(stderr, "%s %s[%d]: %.17g tiled, %.17g untiled\n", tile, what, i, got[i], want[i]);
      exit(1);
    }
  }
}

/* The tiling is inspected once per chain signature and mesh: a repeated chain reuses it, a new
 * set (a new mesh) makes it be inspected again. */
static void cached(const int *edge_nodes) {
  lazy_init("OP2_LAZY=on", "OP2_TILE=100", NULL);
  op_set nodes = op_decl_set(NN, "nodes"), edges = op_decl_set(NE, "edges");
  op_map pedge = op_decl_map(edges, nodes, 2, (int *)edge_nodes, "pedge");
  op_dat u = op_decl_dat(nodes, 2, "double", NULL, "u");
  op_dat w = op_decl_dat(nodes, 1, "double", NULL, "w");
  op_dat e = op_decl_dat(edges, 1, "double", NULL, "e");
  double g[2] = {1, 0.5}, out[NN];
  op2_tile_counts n;
  for (int round = 0; round < 2; round++) {
    for (int rep = 0; rep < 3; rep++) {
      op_par_loop(edge_gather_src, "edge_gather", edges, op_arg_gbl(g, 2, "double", OP_READ),
                  op_arg_dat(u, 0, pedge, 2, "double", OP_READ),
                  op_arg_dat(u, 1, pedge, 2, "double", OP_READ),
                  op_arg_dat(e, -1, OP_ID, 1, "double", OP_RW));
      op_par_loop(edge_scatter_src, "edge_scatter", edges, op_arg_gbl(g, 2, "double", OP_READ),
                  op_arg_dat(e, -1, OP_ID, 1, "double", OP_READ),
                  op_arg_dat(w, 0, pedge, 1, "double", OP_INC),
                  op_arg_dat(w, 1, pedge, 1, "double", OP_INC));
      op_fetch_data(w, out);
    }
    op2_chain_tile_counts(op2_ctx(), &n);
    CHECK_EQ_INT((int)n.chains, 3 * (round + 1));
    CHECK_EQ_INT((int)n.inspections, round + 1);
    if (round == 0) op_decl_set(5, "more"); /* the mesh changed: inspected again */
  }
  op_exit();
}

int main(void) {
  static state plain, tiled;
  const char *backend = getenv("OP2_BACKEND");
  int seq = backend && strcmp(backend, "seq") == 0, bitwise_runs = 0;
  const char *tiles[] = {"OP2_TILE=1", "OP2_TILE=37", "OP2_TILE=700"};
  for (int mesh = 0; mesh < 3; mesh++) {
    unsigned rng = rm_rng(264 + (unsigned)mesh);
    int jump = mesh == 1 ? 100 : 2; /* per mille of map entries anywhere in the set */
    int reads_only = mesh == 2;
    int *edge_nodes = rm_map_values(NE, 2, NN, jump, &rng);
    int *cell_nodes = rm_map_values(NC, 4, NN, jump, &rng);
    unsigned seed = 1000 + (unsigned)mesh;
    run(edge_nodes, cell_nodes, seed, reads_only, "OP2_TILE=off", &plain);
    CHECK(tiled_chains == 0);
    for (int t = 0; t < 3; t++) {
      run(edge_nodes, cell_nodes, seed, reads_only, tiles[t], &tiled);
      CHECK(tiled_chains > 0);
      CHECK(reduction_chains > 0);
      close_to(tiled.u, plain.u, 2 * NN, "u", tiles[t]);
      close_to(tiled.v, plain.v, 2 * NN, "v", tiles[t]);
      close_to(tiled.w, plain.w, NN, "w", tiles[t]);
      close_to(tiled.e, plain.e, NE, "e", tiles[t]);
      close_to(tiled.c, plain.c, 2 * NC, "c", tiles[t]);
      close_to(tiled.reduced, plain.reduced, 2 * CALLS, "reduced", tiles[t]);
      /* no update through a map: the dats bit for bit on every backend (the sums' partials
       * differ on threads) */
      if (reads_only) CHECK(memcmp(&tiled, &plain, offsetof(state, reduced)) == 0);
      if (seq && in_order_chains == tiled_chains) {
        CHECK(memcmp(&tiled, &plain, sizeof plain) == 0);
        bitwise_runs++;
      }
      printf(
          "mesh %d %s: %d chains tiled (%d ending with a reduction), %d with updates in "
          "order\n",
          mesh, tiles[t], tiled_chains, reduction_chains, in_order_chains);
    }
    if (mesh == 0) cached(edge_nodes);
    free(edge_nodes), free(cell_nodes);
  }
  if (seq) CHECK(bitwise_runs > 0); /* the mesh without updates through a map, at least */
  printf("tiled runs equal the untiled ones (%d of them bit for bit)\n", bitwise_runs);
  return 0;
}
