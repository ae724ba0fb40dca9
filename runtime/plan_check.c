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

static bool colours_valid(const op2_plan *p, char *why, size_t len) {
  if (p->colour_offset[0] != 0 || p->colour_offset[p->ncolours] != p->nblocks)
    return snprintf(why, len, "colour offsets cover %d of %d blocks", p->colour_offset[p->ncolours],
                    p->nblocks),
           false;
  if (p->nblocks > 0 && p->ncolours < 1)
    return snprintf(why, len, "%d blocks and no colour", p->nblocks), false;
  for (int c = 0; c < p->ncolours; c++)
    for (int k = p->colour_offset[c]; k < p->colour_offset[c + 1]; k++) {
      int b = p->blocks_by_colour[k];
      if (b < 0 || b >= p->nblocks || p->block_colour[b] != c)
        return snprintf(why, len, "block %d is listed under colour %d", b, c), false;
    }
  /* Blocks of one colour write no element in common: per target set, its last writer. */
  bool ok = true;
  for (int w0 = 0; ok && w0 < p->nwrites; w0++) {
    op_set to = p->write_maps[w0]->to;
    if (!first_write_to(p, w0)) continue;
    size_t n = op2_set_local_count(to) + 1;
    writers wr = {calloc(n, sizeof(int)), calloc(n, sizeof(int)), 0, 0};
    ok = wr.group && wr.block;
    for (int c = 0; ok && c < p->ncolours; c++)
      for (int k = p->colour_offset[c]; ok && k < p->colour_offset[c + 1]; k++) {
        wr.g = c, wr.b = p->blocks_by_colour[k];
        long e0 = p->begin + (long)wr.b * p->part_size, e1 = e0 + p->part_size;
        if (e1 > p->end) e1 = p->end;
        for (long e = e0; ok && e < e1; e++) ok = each_target(p, to, e, claim, &wr);
        if (!ok)
          snprintf(why, len, "blocks of colour %d write one element of set '%s'", c, to->name);
      }
    if (!wr.group || !wr.block) snprintf(why, len, "no memory to check the colours");
    free(wr.group), free(wr.block);
  }
  return ok;
}

static bool ownership_valid(const op2_plan *p, char *why, size_t len) {
  long size = p->end - p->begin;
  int nruns = p->thread_run_offset[p->owner_threads] + p->nshared_runs;
  char *seen = calloc((size_t)size + 1, 1);
  if (!seen) return snprintf(why, len, "no memory to check the layout"), false;
  bool ok = true;
  for (int k = 0; ok && k < nruns; k++) {
    long r0 = p->runs[2 * k], r1 = p->runs[2 * k + 1];
    if (r0 < p->begin || r1 > p->end || r0 >= r1)
      ok = false,
      snprintf(why, len, "run [%ld, %ld) is outside [%d, %d)", r0, r1, p->begin, p->end);
    for (long e = r0; ok && e < r1; e++)
      if (seen[e - p->begin]++) ok = false, snprintf(why, len, "element %ld is in two runs", e);
  }
  for (long e = 0; ok && e < size; e++)
    if (!seen[e]) ok = false, snprintf(why, len, "element %ld is in no run", p->begin + e);
  free(seen);
  /* Threads' private runs write no element in common (the shared runs run alone). */
  for (int w0 = 0; ok && w0 < p->nwrites; w0++) {
    op_set to = p->write_maps[w0]->to;
    if (!first_write_to(p, w0)) continue;
    size_t n = op2_set_local_count(to) + 1;
    writers wr = {calloc(n, sizeof(int)), calloc(n, sizeof(int)), 0, -1};
    ok = wr.group && wr.block;
    /* claim() allows a thread's own repeats: every block of a thread is the same "block" 0 */
    for (int t = 0; ok && t < p->owner_threads; t++) {
      wr.g = 0, wr.b = t; /* one group: any two threads conflict */
      for (int k = p->thread_run_offset[t]; ok && k < p->thread_run_offset[t + 1]; k++)
        for (long e = p->runs[2 * k]; ok && e < p->runs[2 * k + 1]; e++)
          ok = each_target(p, to, e, claim, &wr);
      if (!ok) snprintf(why, len, "threads' private runs write one element of set '%s'", to->name);
    }
    if (!wr.group || !wr.block) snprintf(why, len, "no memory to check the layout");
    free(wr.group), free(wr.block);
  }
  return ok;
}

bool op2_plan_valid(const op2_plan *p, char *why, size_t len) {
  if (p->nblocks != (int)(((long)(p->end - p->begin) + p->part_size - 1) / p->part_size))
    return snprintf(why, len, "%d blocks of %d for [%d, %d)", p->nblocks, p->part_size, p->begin,
                    p->end),
           false;
  return p->owner_threads ? ownership_valid(p, why, len) : colours_valid(p, why, len);
}
