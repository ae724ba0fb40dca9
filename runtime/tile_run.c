/* SPDX-License-Identifier: BSD-3-Clause */
/* The executor of sparse tiling (tile.h): each tile runs its runs of every loop in chain order
 * through the loops' own kernels; levels in order, the tiles of a level on the backend's threads
 * (they share no item that either writes). The chain has no reduction (a loop with one ends it),
 * so the threads share each call's argument table. */
#include <stdlib.h>

#include "runtime/tile.h"
#include "runtime/backend.h"
#include "runtime/context.h"
#include "runtime/loop.h"

static void run_tile(const op2_tiling *t, const op2_exec *const *execs, const op2_kernel_fn *fns,
                     int tile) {
  for (int j = 0; j < t->nloops; j++) {
    const int *runs = t->runs[j];
    for (int q = t->run_offset[j][tile]; q < t->run_offset[j][tile + 1]; q++)
      fns[j](execs[j]->arg_ptrs, execs[j]->map_ptrs, runs[2 * q], runs[2 * q + 1]);
  }
}

/* The tiles of one level, as the backend's tasks (run_tasks). */
typedef struct level_tiles {
  const op2_tiling *t;
  const op2_exec *const *execs;
  const op2_kernel_fn *fns;
  int first;
} level_tiles;

static void run_level_tile(void *arg, int i) {
  const level_tiles *lv = arg;
  run_tile(lv->t, lv->execs, lv->fns, lv->t->tile_order[lv->first + i]);
}

void op2_tile_run(op2_context *ctx, const op2_tiling *t, const op2_exec *const *execs,
                  bool threads) {
  enum { SMALL = 64 };
  op2_kernel_fn small[SMALL];
  op2_kernel_fn *fns = t->nloops <= SMALL ? small : malloc((size_t)t->nloops * sizeof *fns);
  if (!fns) { /* out of memory: each loop whole, in order (the untiled order) */
    for (int j = 0; j < t->nloops; j++) ctx->backend->run(ctx, execs[j]);
    return;
  }
  for (int j = 0; j < t->nloops; j++) fns[j] = op2_kernel_entry(execs[j]->loop->kernel);
  bool parallel = threads && ctx->backend->run_tasks && op2_backend_threads(ctx) >= 2;
  for (int l = 0; l < t->nlevels; l++) {
    int first = t->level_offset[l], last = t->level_offset[l + 1];
    if (!parallel || last - first < 2) {
      for (int k = first; k < last; k++) run_tile(t, execs, fns, t->tile_order[k]);
      continue;
    }
    level_tiles lv = {t, execs, fns, first};
    ctx->backend->run_tasks(ctx, last - first, run_level_tile, &lv);
  }
  if (fns != small) free(fns);
}
