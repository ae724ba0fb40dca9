/* SPDX-License-Identifier: BSD-3-Clause */
/* Thread-owned layout of a plan, for the OpenMP backend. The set is cut into one contiguous range
 * per thread or, when that shares too much, each element goes to the thread owning a range of the
 * targets it writes; an element whose written targets are written by no other thread's elements
 * is private and runs, in set order, without any colouring. The few elements on the seams are
 * shared and run afterwards. Compared with block colouring this reads every target once per loop
 * instead of once per colour pass, and synchronises twice instead of once per colour. */
#include <stdlib.h>
#include <string.h>

#include "runtime/mesh.h"
#include "runtime/plan.h"

enum { SHARED = -2, UNOWNED = -1 };

/* Where thread t's range (relative to the plan's) starts: the smallest e with e*n/size == t. */
static long range_begin(int t, long size, int nthreads) {
  return (t * size + nthreads - 1) / nthreads;
}

/* Appends [begin, end) runs of elements whose label is `want`, within [lo, hi). */
static int add_runs(const unsigned char *label, long base, long lo, long hi, unsigned char want,
                    int **runs, int *n, int *cap) {
  for (long e = lo; e < hi;) {
    while (e < hi && label[e] != want) e++;
    if (e >= hi) break;
    long b = e;
    while (e < hi && label[e] == want) e++;
    if (*n + 2 > *cap) {
      int c = *cap ? 2 * *cap : 64;
      int *r = realloc(*runs, (size_t)c * sizeof(int));
      if (!r) return -1;
      *runs = r, *cap = c;
    }
    (*runs)[(*n)++] = (int)(base + b);
    (*runs)[(*n)++] = (int)(base + e);
  }
  return 0;
}

/* The first way of giving elements to threads: one contiguous range each. */
static void label_by_ranges(unsigned char *label, long size, int nthreads) {
  for (int t = 0; t < nthreads; t++)
    memset(label + range_begin(t, size, nthreads), t,
           (size_t)(range_begin(t + 1, size, nthreads) - range_begin(t, size, nthreads)));
}

/* The second: each element to the thread owning a contiguous range of the targets it writes
 * first (its first written map column). It is for meshes whose elements are not ordered like
 * their targets, e.g. edges listed direction by direction over well-numbered nodes: contiguous
 * element ranges then reach the same nodes from every thread, while ranges of nodes split the
 * edges into a few long runs per thread with only the seam between ranges shared. */
static void label_by_targets(const op2_plan *p, unsigned char *label, long size, int nthreads) {
  op_map m = p->write_maps[0];
  int dim = m->dim, c = p->write_idx[0] < 0 ? 0 : p->write_idx[0];
  long targets = op2_set_local_count(m->to);
  const int *col = m->values + (long)p->begin * dim + c;
  for (long e = 0; e < size; e++)
    label[e] = (unsigned char)((long)col[e * dim] * nthreads / (targets ? targets : 1));
}

/* Marks SHARED (the label nthreads) every element one of whose written targets two threads'
 * elements reach; returns how many, or -1 without memory. */
static long mark_shared(const op2_plan *p, unsigned char *label, long size, int nthreads) {
  long base = p->begin, nshared = 0;
  int **owner = calloc((size_t)p->nwrites + 1, sizeof *owner);
  char *shared = calloc((size_t)size + 1, 1);
  int ok = owner && shared;
  /* One owner array per target set: different maps may reach the same element. */
  for (int w = 0; ok && w < p->nwrites; w++) {
    for (int v = 0; v < w && !owner[w]; v++)
      if (p->write_maps[v]->to == p->write_maps[w]->to) owner[w] = owner[v];
    if (!owner[w]) {
      size_t n = op2_set_local_count(p->write_maps[w]->to) + 1;
      ok = (owner[w] = malloc(n * sizeof(int))) != NULL;
      if (ok) memset(owner[w], 0xff, n * sizeof(int)); /* UNOWNED */
    }
  }
  /* Written targets outside, elements inside: each inner loop reads one map column with nothing
   * else varying (on a large mesh about twice as fast as with the elements outside). Neither
   * pass depends on the order of its visits: a target is shared when two threads reach it,
   * however often. */
  for (int pass = 0; ok && pass < 2; pass++)
    for (int w = 0; w < p->nwrites; w++) {
      op_map m = p->write_maps[w];
      int idx = p->write_idx[w], dim = m->dim, *own = owner[w];
      int lo = idx < 0 ? 0 : idx, hi = idx < 0 ? -idx : idx + 1;
      for (int c = lo; c < hi; c++) {
        const int *col = m->values + base * dim + c;
        if (pass == 0)
          for (long e = 0; e < size; e++) {
            int *o = &own[col[e * dim]], t = label[e];
            *o = *o == UNOWNED || *o == t ? t : SHARED;
          }
        else
          for (long e = 0; e < size; e++) shared[e] |= own[col[e * dim]] == SHARED;
      }
    }
  for (long e = 0; ok && e < size; e++)
    if (shared[e]) label[e] = (unsigned char)nthreads, nshared++;
  for (int w = 0; owner && w < p->nwrites; w++) {
    int first = 1;
    for (int v = 0; v < w; v++) first &= owner[v] != owner[w];
    if (first) free(owner[w]);
  }
  free(owner);
  free(shared);
  return ok ? nshared : -1;
}

int op2_plan_build_ownership(op2_plan *p, int nthreads, double max_shared_fraction) {
  long size = p->end - p->begin, base = p->begin, nshared = -1;
  /* labels are bytes: thread numbers, and nthreads for a shared element */
  if (nthreads < 2 || nthreads > 254 || size < 2L * nthreads || p->nwrites < 1) return OP2_OK;
  unsigned char *label = malloc((size_t)size + 1);
  int by_targets = 0;
  for (; label && by_targets < 2; by_targets++) {
    if (by_targets)
      label_by_targets(p, label, size, nthreads);
    else
      label_by_ranges(label, size, nthreads);
    nshared = mark_shared(p, label, size, nthreads);
    if (nshared < 0 || (double)nshared <= max_shared_fraction * (double)size) break;
  }
  int ok = label && nshared >= 0 && (double)nshared <= max_shared_fraction * (double)size;
  int cap = 0, n = 0;
  int *runs = NULL;
  p->thread_run_offset = ok ? calloc((size_t)nthreads + 1, sizeof(int)) : NULL;
  ok = ok && p->thread_run_offset;
  for (int t = 0; ok && t < nthreads;
       t++) { /* a range's elements lie in it; the others' anywhere */
    long lo = by_targets ? 0 : range_begin(t, size, nthreads);
    long hi = by_targets ? size : range_begin(t + 1, size, nthreads);
    ok = add_runs(label, base, lo, hi, (unsigned char)t, &runs, &n, &cap) == 0;
    p->thread_run_offset[t + 1] = n / 2;
  }
  int shared_from = n;
  if (ok) ok = add_runs(label, base, 0, size, (unsigned char)nthreads, &runs, &n, &cap) == 0;
  if (ok) {
    p->owner_threads = nthreads;
    p->runs = runs;
    p->nshared_runs = (n - shared_from) / 2;
    p->nshared = nshared;
  } else {
    free(runs);
    free(p->thread_run_offset);
    p->thread_run_offset = NULL;
  }
  free(label);
  return OP2_OK;
}
