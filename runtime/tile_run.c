/* SPDX-License-Identifier: BSD-3-Clause */
/* The executor of sparse tiling (tile.h): each tile runs its runs of every loop in chain order
 * through the loops' own kernels; levels in order, the tiles of a level on the backend's threads
 * (they share no item that either writes). A loop with a global reduction (the chain's last)
 * reduces on one thread straight into the caller's variable, in tile order (element order when
 * each tile's share is one range in order: the untiled sum bit for bit); on threads each tile
 * into a partial of its own, folded in tile order afterwards, so the result does not depend on
 * which thread ran which tile. */
#include <stdlib.h>
#include <string.h>

#include "runtime/tile.h"
#include "runtime/backend.h"
#include "runtime/context.h"
#include "runtime/loop.h"

/* What the tiles run: each loop's kernel and, per loop with a reduction on threads, a table of
 * argument pointers per tile (its reductions pointing at the tile's partials; NULL: the call's). */
typedef struct tile_work {
  const op2_tiling *t;
  const op2_exec *const *execs;
  op2_kernel_call *fns;
  void ***tables;
  void *block; /* the tables and partials */
} tile_work;

static void run_tile(const tile_work *w, int tile) {
  const op2_tiling *t = w->t;
  for (int j = 0; j < t->nloops; j++) {
    const int *runs = t->runs[j];
    const op2_exec *x = w->execs[j];
    void **args = w->tables[j] ? w->tables[j] + (size_t)tile * x->loop->nargs : x->arg_ptrs;
    for (int q = t->run_offset[j][tile]; q < t->run_offset[j][tile + 1]; q++)
      op2_kernel_call_range(&w->fns[j], args, x->map_ptrs, runs[2 * q], runs[2 * q + 1]);
  }
}

/* The tiles of one level, as the backend's tasks (run_tasks). */
typedef struct level_tiles {
  const tile_work *w;
  int first;
} level_tiles;

static void run_level_tile(void *arg, int i) {
  const level_tiles *lv = arg;
  run_tile(lv->w, lv->w->t->tile_order[lv->first + i]);
}

static size_t padded(size_t bytes) {
  return (bytes + 63) / 64 * 64; /* a cache line each: threads never share one */
}

static size_t partial_bytes(const op2_arg_desc *d) {
  return padded((size_t)d->dim * op2_type_size(d->type));
}

/* Per-tile tables and partials for the loops with reductions; false when out of memory. */
static bool partials_make(tile_work *w) {
  const op2_tiling *t = w->t;
  size_t K = (size_t)t->ntiles, need = 0;
  for (int j = 0; j < t->nloops; j++) {
    const op2_loop *loop = w->execs[j]->loop;
    size_t red = 0;
    for (int i = 0; i < loop->nargs; i++)
      if (op2_is_reduction(&loop->desc[i])) red += partial_bytes(&loop->desc[i]);
    if (red) need += K * (padded((size_t)loop->nargs * sizeof(void *)) + red);
  }
  if (!need) return true;
  char *p = w->block = malloc(need);
  if (!p) return false;
  for (int j = 0; j < t->nloops; j++) {
    const op2_exec *x = w->execs[j];
    const op2_loop *loop = x->loop;
    bool any = false;
    for (int i = 0; i < loop->nargs; i++) any = any || op2_is_reduction(&loop->desc[i]);
    if (!any) continue;
    void **table = w->tables[j] = (void **)p;
    p += K * padded((size_t)loop->nargs * sizeof(void *));
    for (size_t b = 0; b < K; b++) {
      void **args = table + b * (size_t)loop->nargs;
      memcpy(args, x->arg_ptrs, (size_t)loop->nargs * sizeof *args);
      for (int i = 0; i < loop->nargs; i++) {
        const op2_arg_desc *d = &loop->desc[i];
        if (!op2_is_reduction(d)) continue;
        op2_reduction_start(d, p, x->arg_ptrs[i]);
        args[i] = p;
        p += partial_bytes(d);
      }
    }
  }
  return true;
}

/* The tiles' partials into the callers' variables, in tile order. */
static void partials_fold(const tile_work *w) {
  for (int j = 0; j < w->t->nloops; j++) {
    if (!w->tables[j]) continue;
    const op2_exec *x = w->execs[j];
    op2_reduction_fold_parts(x->loop, x->arg_ptrs, w->tables[j], w->t->ntiles);
  }
}

void op2_tile_run(op2_context *ctx, const op2_tiling *t, const op2_exec *const *execs,
                  bool threads) {
  size_t n = (size_t)t->nloops;
  tile_work w = {t, execs, malloc(n * sizeof *w.fns), calloc(n, sizeof *w.tables), NULL};
  if (!w.fns || !w.tables || (threads && !partials_make(&w))) {
    /* out of memory: each loop whole, in order (the untiled order) */
    for (int j = 0; j < t->nloops; j++) ctx->backend->run(ctx, execs[j]);
    free(w.fns), free(w.tables), free(w.block);
    return;
  }
  for (int j = 0; j < t->nloops; j++) w.fns[j] = op2_kernel_callable(execs[j]->loop->kernel);
  bool parallel = threads && ctx->backend->run_tasks && op2_backend_threads(ctx) >= 2;
  for (int l = 0; l < t->nlevels; l++) {
    int first = t->level_offset[l], last = t->level_offset[l + 1];
    if (!parallel || last - first < 2) {
      for (int k = first; k < last; k++) run_tile(&w, t->tile_order[k]);
      continue;
    }
    level_tiles lv = {&w, first};
    ctx->backend->run_tasks(ctx, last - first, run_level_tile, &lv);
  }
  partials_fold(&w);
  free(w.fns), free(w.tables), free(w.block);
}
