/* SPDX-License-Identifier: BSD-3-Clause */
/* What a plan promises the backends that run it, checked (op2_plan_valid): the sanitizer build
 * checks every plan it builds (OP2_ASSERT, invariant.h); a unit test checks the checker. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "runtime/mesh.h"
#include "runtime/plan.h"

/* Element e's written targets in to-set `to`, through every written (map, column) of the plan
 * into that set: visit(target, arg) for each; false as soon as visit says so. */
static bool each_target(const op2_plan *p, op_set to, long e, bool (*visit)(int, void *),
                        void *arg) {
  for (int w = 0; w < p->nwrites; w++) {
    op_map m = p->write_maps[w];
    if (m->to != to) continue;
    int lo = p->write_idx[w] < 0 ? 0 : p->write_idx[w];
    int hi = p->write_idx[w] < 0 ? -p->write_idx[w] : p->write_idx[w] + 1;
    for (int c = lo; c < hi; c++)
      if (!visit(m->values[(size_t)e * m->dim + c], arg)) return false;
  }
  return true;
}

/* A target's last writer: its group (colour or thread) + 1, and the block (-1 for threads). */
typedef struct writers {
  int *group, *block;
  int g, b;
} writers;

static bool claim(int t, void *arg) {
  writers *w = arg;
  if (w->group[t] == w->g + 1 && w->block[t] != w->b) return false;
  w->group[t] = w->g + 1, w->block[t] = w->b;
  return true;
}

/* Whether write map w0 is the first of the plan's writes into its target set (each set is
 * checked once). */
static bool first_write_to(const op2_plan *p, int w0) {
  for (int v = 0; v < w0; v++)
    if (p->write_maps[v]->to == p->write_maps[w0]->to) return false;
  return true;
}

/* A broken promise: the plan's failure record, code OP2_ERR_STATE. */
#define BROKEN(why, ...) op2_jit_error_set((why), OP2_ERR_STATE, __VA_ARGS__)

static int colours_check(const op2_plan *p, op2_jit_error *why) {
  if (p->colour_offset[0] != 0 || p->colour_offset[p->ncolours] != p->nblocks)
    return BROKEN(why, "colour offsets cover %d of %d blocks", p->colour_offset[p->ncolours],
                  p->nblocks);
  if (p->nblocks > 0 && p->ncolours < 1) return BROKEN(why, "%d blocks and no colour", p->nblocks);
  for (int c = 0; c < p->ncolours; c++)
    for (int k = p->colour_offset[c]; k < p->colour_offset[c + 1]; k++) {
      int b = p->blocks_by_colour[k];
      if (b < 0 || b >= p->nblocks || p->block_colour[b] != c)
        return BROKEN(why, "block %d is listed under colour %d", b, c);
    }
  /* Blocks of one colour write no element in common: per target set, its last writer. */
  int rc = OP2_OK;
  for (int w0 = 0; rc == OP2_OK && w0 < p->nwrites; w0++) {
    op_set to = p->write_maps[w0]->to;
    if (!first_write_to(p, w0)) continue;
    size_t n = op2_set_local_count(to) + 1;
    writers wr = {calloc(n, sizeof(int)), calloc(n, sizeof(int)), 0, 0};
    if (!wr.group || !wr.block) rc = BROKEN(why, "no memory to check the colours");
    for (int c = 0; rc == OP2_OK && c < p->ncolours; c++)
      for (int k = p->colour_offset[c]; rc == OP2_OK && k < p->colour_offset[c + 1]; k++) {
        wr.g = c, wr.b = p->blocks_by_colour[k];
        long e0 = p->begin + (long)wr.b * p->part_size, e1 = e0 + p->part_size;
        if (e1 > p->end) e1 = p->end;
        bool ok = true;
        for (long e = e0; ok && e < e1; e++) ok = each_target(p, to, e, claim, &wr);
        if (!ok) rc = BROKEN(why, "blocks of colour %d write one element of set '%s'", c, to->name);
      }
    free(wr.group), free(wr.block);
  }
  return rc;
}

static int ownership_check(const op2_plan *p, op2_jit_error *why) {
  long size = p->end - p->begin;
  int nruns = p->thread_run_offset[p->owner_threads] + p->nshared_runs;
  char *seen = calloc((size_t)size + 1, 1);
  if (!seen) return BROKEN(why, "no memory to check the layout");
  int rc = OP2_OK;
  for (int k = 0; rc == OP2_OK && k < nruns; k++) {
    long r0 = p->runs[2 * k], r1 = p->runs[2 * k + 1];
    if (r0 < p->begin || r1 > p->end || r0 >= r1)
      rc = BROKEN(why, "run [%ld, %ld) is outside [%d, %d)", r0, r1, p->begin, p->end);
    for (long e = r0; rc == OP2_OK && e < r1; e++)
      if (seen[e - p->begin]++) rc = BROKEN(why, "element %ld is in two runs", e);
  }
  for (long e = 0; rc == OP2_OK && e < size; e++)
    if (!seen[e]) rc = BROKEN(why, "element %ld is in no run", p->begin + e);
  free(seen);
  /* Threads' private runs write no element in common (the shared runs run alone). */
  for (int w0 = 0; rc == OP2_OK && w0 < p->nwrites; w0++) {
    op_set to = p->write_maps[w0]->to;
    if (!first_write_to(p, w0)) continue;
    size_t n = op2_set_local_count(to) + 1;
    writers wr = {calloc(n, sizeof(int)), calloc(n, sizeof(int)), 0, -1};
    if (!wr.group || !wr.block) rc = BROKEN(why, "no memory to check the layout");
    /* claim() allows a thread's own repeats: every block of a thread is the same "block" 0 */
    for (int t = 0; rc == OP2_OK && t < p->owner_threads; t++) {
      wr.g = 0, wr.b = t; /* one group: any two threads conflict */
      bool ok = true;
      for (int k = p->thread_run_offset[t]; ok && k < p->thread_run_offset[t + 1]; k++)
        for (long e = p->runs[2 * k]; ok && e < p->runs[2 * k + 1]; e++)
          ok = each_target(p, to, e, claim, &wr);
      if (!ok) rc = BROKEN(why, "threads' private runs write one element of set '%s'", to->name);
    }
    free(wr.group), free(wr.block);
  }
  return rc;
}

int op2_plan_check(const op2_plan *p, op2_jit_error *why) {
  if (p->nblocks != (int)(((long)(p->end - p->begin) + p->part_size - 1) / p->part_size))
    return BROKEN(why, "%d blocks of %d for [%d, %d)", p->nblocks, p->part_size, p->begin, p->end);
  return p->owner_threads ? ownership_check(p, why) : colours_check(p, why);
}
