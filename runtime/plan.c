/* SPDX-License-Identifier: BSD-3-Clause */
/* Execution plans: the loop set cut into blocks of part_size consecutive elements, coloured so
 * that blocks of one colour can run concurrently. A plan depends only on the set, the part size
 * and the (map, column) pairs written through, so every loop of that shape shares it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/alloc.h"
#include "runtime/options.h"
#include "runtime/mesh.h"
#include "runtime/loop.h"
#include "runtime/plan.h"
#include "runtime/backend.h"
#include "runtime/invariant.h"

void op2_plan_free(op2_plan *plan) {
  if (!plan) return;
  free(plan->colour_offset);
  free(plan->blocks_by_colour);
  free(plan->block_colour);
  free(plan->write_maps);
  free(plan->write_idx);
  free(plan->thread_run_offset);
  free(plan->runs);
  free(plan);
}

/* The sanitizer build checks the promises of every plan it builds (invariant.h). */
static int plan_checked(const op2_plan *p) {
  if (OP2_INVARIANTS) {
    op2_jit_error why;
    OP2_ASSERT(op2_plan_check(p, &why) == OP2_OK, "plan for set '%s', %d colours: %s", p->set->name,
               p->ncolours, why.msg);
  }
  return OP2_OK;
}

int op2_plan_build(op_set set, int begin, int end, int part_size, int nwrites, const op_map *maps,
                   const int *idx, int nthreads, op2_plan **out) {
  double t0 = op2_wall_seconds();
  op2_plan *p = calloc(1, sizeof *p);
  if (!p) return op2_error(OP2_ERR_MEM, "plan for set '%s': out of memory", set->name);
  p->set = set;
  p->begin = begin;
  p->end = end;
  p->part_size = part_size;
  p->nblocks = (int)(((long)(end - begin) + part_size - 1) / part_size);
  p->nwrites = nwrites;
  p->write_maps = malloc((size_t)(nwrites ? nwrites : 1) * sizeof *p->write_maps);
  p->write_idx = malloc((size_t)(nwrites ? nwrites : 1) * sizeof *p->write_idx);
  p->block_colour = malloc((size_t)(p->nblocks ? p->nblocks : 1) * sizeof(int));
  p->blocks_by_colour = malloc((size_t)(p->nblocks ? p->nblocks : 1) * sizeof(int));
  int ncolours = -1;
  if (p->write_maps && p->write_idx && p->block_colour && p->blocks_by_colour) {
    memcpy(p->write_maps, maps, (size_t)nwrites * sizeof *maps);
    memcpy(p->write_idx, idx, (size_t)nwrites * sizeof *idx);
    /* Threads first: when few elements are shared, the thread-owned layout needs no colours.
     * Beyond a few percent shared (a badly ordered mesh) colouring is the better way. */
    if (nthreads > 1) op2_plan_build_ownership(p, nthreads, 0.05);
    ncolours = p->owner_threads ? 0
                                : op2_colour_blocks(begin, end, part_size, nwrites, maps, idx,
                                                    p->nblocks, p->block_colour);
  }
  if (ncolours >= 0) p->colour_offset = calloc((size_t)ncolours + 1, sizeof(int));
  if (ncolours < 0 || !p->colour_offset) {
    op2_plan_free(p);
    return op2_error(OP2_ERR_MEM, "plan for set '%s': out of memory", set->name);
  }
  p->ncolours = ncolours;
  if (p->owner_threads) { /* not coloured */
    p->build_seconds = op2_wall_seconds() - t0;
    *out = p;
    return plan_checked(p);
  }
  /* Counting sort of blocks by colour keeps each colour's blocks in set order. */
  for (int b = 0; b < p->nblocks; b++) p->colour_offset[p->block_colour[b] + 1]++;
  for (int c = 0; c < ncolours; c++) p->colour_offset[c + 1] += p->colour_offset[c];
  int *fill = calloc((size_t)ncolours + 1, sizeof(int));
  if (!fill) {
    op2_plan_free(p);
    return op2_error(OP2_ERR_MEM, "plan for set '%s': out of memory", set->name);
  }
  for (int b = 0; b < p->nblocks; b++) {
    int c = p->block_colour[b];
    p->blocks_by_colour[p->colour_offset[c] + fill[c]++] = b;
  }
  free(fill);
  p->build_seconds = op2_wall_seconds() - t0;
  *out = p;
  return plan_checked(p);
}

/* The written (map, column) pairs of a loop, sorted and without repeats: the plan's key. */
static int written_pairs(const op2_loop *loop, op_map *maps, int *idx) {
  int n = 0;
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (d->kind != OP2_ARG_DAT || d->opt_off || !d->map_arity || d->acc == OP_READ) continue;
    op_map m = loop->args[i].map;
    int k = 0;
    while (k < n && (maps[k]->index < m->index || (maps[k] == m && idx[k] < d->idx))) k++;
    if (k < n && maps[k] == m && idx[k] == d->idx) continue;
    memmove(maps + k + 1, maps + k, (size_t)(n - k) * sizeof *maps);
    memmove(idx + k + 1, idx + k, (size_t)(n - k) * sizeof *idx);
    maps[k] = m;
    idx[k] = d->idx;
    n++;
  }
  return n;
}

void op2_plan_describe(const op2_plan *p, char *out, size_t len) {
  if (p && p->owner_threads)
    snprintf(out, len, "thread-owned");
  else if (p)
    snprintf(out, len, "coloured, part size %d", p->part_size);
  else
    snprintf(out, len, "default");
}

int op2_plan_get(op2_context *ctx, const op2_loop *loop, int begin, int end, op2_plan **out) {
  return op2_plan_get_for(ctx, loop, begin, end, ctx->opt.part_size, op2_backend_threads(ctx), out);
}

int op2_plan_get_for(op2_context *ctx, const op2_loop *loop, int begin, int end, int part,
                     int nthreads, op2_plan **out) {
  op_map *maps = malloc((size_t)loop->nargs * sizeof *maps);
  int *idx = malloc((size_t)loop->nargs * sizeof *idx);
  if (!maps || !idx) {
    free(maps), free(idx);
    return op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory", loop->name);
  }
  int n = written_pairs(loop, maps, idx);
  for (int i = 0; i < ctx->plans.count; i++) {
    op2_plan *p = ctx->plans.items[i];
    if (p->set == loop->set && p->begin == begin && p->end == end && p->part_size == part &&
        p->layout_threads == nthreads && p->nwrites == n &&
        memcmp(p->write_maps, maps, (size_t)n * sizeof *maps) == 0 &&
        memcmp(p->write_idx, idx, (size_t)n * sizeof *idx) == 0) {
      *out = p;
      free(maps), free(idx);
      return OP2_OK;
    }
  }
  op2_plan *p;
  int rc = OP2_OK;
  char use[160];
  snprintf(use, sizeof use, "the plan of op_par_loop '%.120s'", loop->name);
  for (int k = 0; rc == OP2_OK && k < n; k++) rc = op2_map_check(maps[k], use, true);
  if (rc == OP2_OK) rc = op2_plan_build(loop->set, begin, end, part, n, maps, idx, nthreads, &p);
  free(maps), free(idx);
  if (rc != OP2_OK) return rc;
  p->layout_threads = nthreads;
  rc = op2_list_push(&ctx->plans, p);
  if (rc != OP2_OK) { /* the list owns plans: one not in it would never be freed */
    op2_plan_free(p);
    return rc;
  }
  loop->stats->plan_seconds += p->build_seconds;
  char owned[64] = "";
  if (p->owner_threads) snprintf(owned, sizeof owned, ", thread-owned, %ld shared", p->nshared);
  op2_diag(2, "plan '%s' over '%s': %d blocks of %d, %d colours%s, %.2f ms", loop->name,
           loop->set->name, p->nblocks, part, p->ncolours, owned, 1e3 * p->build_seconds);
  *out = p;
  return OP2_OK;
}
