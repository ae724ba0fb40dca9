/* SPDX-License-Identifier: BSD-3-Clause */
/* OP2_TILE: each chain of a cycle is inspected once, however many distinct chains the cycle has
 * (a multigrid V-cycle has one per level and kind: mg3d a dozen). With the tiling cache's
 * entries reused in turn, a cycle of more chains than entries evicted every tiling just before
 * its next use and inspected every chain on every call (mg3d on openmp: 15 times slower tiled
 * than untiled). And OP2_TILE=auto's larger tiles on threads (op2_tiling_get_settled): a chain
 * that cannot get few levels is declined once, then runs untiled without being inspected again;
 * one that gets few levels at once is inspected once. */
#include <stddef.h>
#include <stdio.h>

#include "loops/random_mesh.h"
#include "lazy_test.h"
#include "runtime/chain.h"
#include "runtime/context.h"
#include "runtime/tile.h"

enum { NE = 3000, NN = 1000, CHAINS = 40, ROUNDS = 3 };

static const char gather_src[] =
    "static void gather(const double *u0, const double *u1, double *e) {\n"
    "  e[0] = 0.5 * e[0] + u0[0] - u1[0]; }";
static const char scatter_src[] =
    "static void scatter(const double *e, double *w0, double *w1) {\n"
    "  w0[0] += e[0]; w1[0] -= 0.5 * e[0]; }";

/* CHAINS distinct chains (each its own edge dat), in turn, ROUNDS times: CHAINS inspections. */
static void cycle(const int *edge_nodes) {
  lazy_init("OP2_LAZY=on", "OP2_TILE=100", NULL);
  op_set nodes = op_decl_set(NN, "nodes"), edges = op_decl_set(NE, "edges");
  op_map pedge = op_decl_map(edges, nodes, 2, (int *)edge_nodes, "pedge");
  op_dat u = op_decl_dat(nodes, 1, "double", NULL, "u");
  op_dat w = op_decl_dat(nodes, 1, "double", NULL, "w");
  op_dat e[CHAINS];
  for (int k = 0; k < CHAINS; k++) e[k] = op_decl_dat(edges, 1, "double", NULL, "e");
  static double out[NN];
  for (int round = 0; round < ROUNDS; round++)
    for (int k = 0; k < CHAINS; k++) {
      op_par_loop(gather_src, "gather", edges, op_arg_dat(u, 0, pedge, 1, "double", OP_READ),
                  op_arg_dat(u, 1, pedge, 1, "double", OP_READ),
                  op_arg_dat(e[k], -1, OP_ID, 1, "double", OP_RW));
      op_par_loop(scatter_src, "scatter", edges, op_arg_dat(e[k], -1, OP_ID, 1, "double", OP_READ),
                  op_arg_dat(w, 0, pedge, 1, "double", OP_INC),
                  op_arg_dat(w, 1, pedge, 1, "double", OP_INC));
      op_fetch_data(w, out);
    }
  op2_tile_counts n;
  op2_chain_tile_counts(op2_ctx(), &n);
  CHECK_EQ_INT((int)n.chains, ROUNDS * CHAINS);
  CHECK_EQ_INT((int)n.inspections, CHAINS);
  op_exit();
}

/* The inspector called as run_tiled calls it for OP2_TILE=auto on threads (at most 4 levels, up
 * to 4 doublings): on a fully random map every tile depends on the one before, so no size
 * gives few levels: declined, after one inspection, and remembered. On a map near the diagonal
 * a tiling with at most 4 levels is found at once, and then reused. */
static void settled(const int *random_nodes, const int *near_nodes) {
  lazy_init("OP2_LAZY=on", "OP2_TILE=16", NULL);
  op_set nodes = op_decl_set(NN, "nodes"), edges = op_decl_set(NE, "edges");
  op_map prandom = op_decl_map(edges, nodes, 2, (int *)random_nodes, "prandom");
  op_map pnear = op_decl_map(edges, nodes, 2, (int *)near_nodes, "pnear");
  op_dat u = op_decl_dat(nodes, 1, "double", NULL, "u");
  op_dat w = op_decl_dat(nodes, 1, "double", NULL, "w");
  op_dat e = op_decl_dat(edges, 1, "double", NULL, "e");
  op2_tile_cache *cache = NULL;
  op2_tile_counts *n;
  for (int mesh = 0; mesh < 2; mesh++) {
    op_map m = mesh == 0 ? prandom : pnear;
    op_arg gather[] = {op_arg_dat(u, 0, m, 1, "double", OP_READ),
                       op_arg_dat(u, 1, m, 1, "double", OP_READ),
                       op_arg_dat(e, -1, OP_ID, 1, "double", OP_RW)};
    op_arg scatter[] = {op_arg_dat(e, -1, OP_ID, 1, "double", OP_READ),
                        op_arg_dat(w, 0, m, 1, "double", OP_INC),
                        op_arg_dat(w, 1, m, 1, "double", OP_INC)};
    op_arg update[] = {op_arg_dat(w, -1, OP_ID, 1, "double", OP_READ),
                       op_arg_dat(u, -1, OP_ID, 1, "double", OP_RW)};
    op2_tile_loop loops[] = {
        {"gather", edges, 3, gather}, {"scatter", edges, 3, scatter}, {"update", nodes, 2, update}};
    for (int rep = 0; rep < 3; rep++) {
      const op2_tiling *t =
          op2_tiling_get_settled(op2_ctx(), &cache, loops, NULL, 3, 16, true, 4, 4);
      CHECK(cache != NULL);
      n = op2_tile_counts_of(cache);
      if (mesh == 0) {
        CHECK(t == NULL);
        CHECK_EQ_INT((int)n->inspections, 1);
        CHECK_EQ_INT((int)n->declined, rep + 1);
      } else {
        CHECK(t != NULL);
        CHECK(t->nlevels <= 4);
        CHECK_EQ_INT((int)n->inspections, 2); /* this map needs no larger tiles */
        CHECK_EQ_INT((int)n->declined, 3);
      }
    }
  }
  op2_tile_cache_free(cache);
  op_exit();
}

int main(void) {
  unsigned rng = rm_rng(273);
  int *near_nodes = rm_map_values(NE, 2, NN, 0, &rng);
  int *random_nodes = rm_map_values(NE, 2, NN, 1000, &rng);
  cycle(near_nodes);
  settled(random_nodes, near_nodes);
  free(near_nodes), free(random_nodes);
  printf("each chain inspected once; auto declines once\n");
  return 0;
}
