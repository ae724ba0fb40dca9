/* SPDX-License-Identifier: BSD-3-Clause */
/* Live constants on the CUDA backends: a time step `dt` and a two-value array `coef`, declared
 * with a new value before each of 10,000 calls of an indirect loop, become live after
 * OP2_CONST_BAKED_VALUES values and are read from __constant__ memory: the loop's module count
 * stops growing (at most OP2_CONST_BAKED_VALUES + 1 modules, none after the first values), the
 * loop shapes too, the generated CUDA declares the variables, and every result equals plain C
 * bit for bit (the values are dyadic, so every sum is exact in any order). Run by meson on
 * cuda-emu under each strategy, with NVRTC verifying every generated module, and on 2 ranks
 * (2,000 values there: each call also exchanges halos and agrees over ranks). */
#include <stdlib.h>

#include "random_mesh.h"
#include "runtime/cuda/cuda.h"

static double dt, coef[2];

KERNEL(
    flux, static void flux(const double *w, double *n0, double *n1) {
      n0[0] += dt * w[0];
      n1[0] -= dt * coef[1] * w[0] + coef[0];
    })

enum { NE = 600, NN = 150 };

static void declare(int v) {
  dt = (1 + (v * 7919) % 10007) * 0x1p-20; /* 10,000 distinct values, in no order */
  coef[0] = (1 + v % 7) * 0x1p-10;
  coef[1] = (1 + v % 5) * 0x1p-6;
  op_decl_const(1, "double", &dt, "dt");
  op_decl_const(2, "double", coef, "coef");
}

/* Whether a file under the cache holds the generated declaration `text`. */
static int cache_has(const char *text) {
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "grep -rqF -- '%s' '%s'", text, getenv("OP2_CACHE_DIR"));
  return system(cmd) == 0;
}

/* Usage: t609-live-constants [VALUES] (10,000 by default) */
int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  const int values = argc > 1 ? atoi(argv[1]) : 10000;
  CHECK(values > 5);
  op2_context *ctx = op2_ctx();
  rm_mesh m;
  rm_mesh_make(&m, NE, NN, 1, RM_FULLY_RANDOM, 609);
  unsigned rng = rm_rng(6091);
  double *w = rm_alloc(NE * sizeof *w), *ref = rm_alloc(NN * sizeof *ref);
  double *got = rm_alloc(NN * sizeof *got);
  for (int e = 0; e < NE; e++) w[e] = rm_below(&rng, 16);
  op_dat dw = op_decl_dat(m.edges, 1, "double", w, "w");
  op_dat dn = op_decl_dat(m.nodes, 1, "double", ref, "n"); /* zeros */
  int modules_early = 0, loops_early = 0;
  for (int v = 0; v < values; v++) {
    declare(v);
    op_par_loop(flux_src, "flux", m.edges, op_arg_dat(dw, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(dn, 0, m.pedge, 1, "double", OP_INC),
                op_arg_dat(dn, 1, m.pedge, 1, "double", OP_INC));
    for (int e = 0; e < NE; e++)
      flux(w + e, ref + m.edge_nodes[2 * e], ref + m.edge_nodes[2 * e + 1]);
    if (v == 5) { /* the values from here on are read at run time */
      const op2_loop_stats *st = op2_stats_for(ctx, "flux");
      modules_early = st->kernels_compiled + st->kernels_from_disk;
      loops_early = ctx->loops.count;
      CHECK(modules_early <= OP2_CONST_BAKED_VALUES + 1);
    }
    if (v % 1000 == 0 || v == values - 1) {
      op_fetch_data(dn, got);
      rm_check_same(got, ref, NN, sizeof *got, "flux");
    }
  }
  CHECK(op2_const_find("dt")->live && op2_const_find("coef")->live);
  const op2_loop_stats *st = op2_stats_for(ctx, "flux");
  int modules = st->kernels_compiled + st->kernels_from_disk;
  printf("flux: %d modules (%d compiled), %d loop shapes, strategy %d\n", modules,
         st->kernels_compiled, ctx->loops.count, op2_cuda_loop_strategy("flux"));
  CHECK(modules <= OP2_CONST_BAKED_VALUES + 1);
  CHECK_EQ_INT(modules, modules_early);
  CHECK_EQ_INT(ctx->jit.compiles + ctx->jit.disk_hits, modules); /* no other kernel */
  CHECK_EQ_INT(ctx->loops.count, loops_early);
  CHECK(ctx->loops.count <= OP2_CONST_BAKED_VALUES + 1);
  /* the generated CUDA reads them from constant memory */
  CHECK(cache_has("__constant__ double op2_live_dt;"));
  CHECK(cache_has("__constant__ double op2_live_coef[2];"));
  free(w), free(ref), free(got);
  rm_mesh_free(&m);
  op_exit();
  return 0;
}
