/* SPDX-License-Identifier: BSD-3-Clause */
/* Thread-owned layout of a plan, for the OpenMP backend. The set is cut into one contiguous range
 * per thread; an element whose written targets are written by no other thread's range is private
 * and runs, in set order, without any colouring. The few elements on the seams between ranges are
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

/* Appends [begin, end) runs of elements for which want(e) holds, within [lo, hi). */
static int add_runs(const char *is_shared, long base, long lo, long hi, char want, int **runs,
                    int *n, int *cap) {
  for (long e = lo; e < hi;) {
    while (e < hi && is_shared[e] != want) e++;
    if (e >= hi) break;
    long b = e;
    while (e < hi && is_shared[e] == want) e++;
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

int op2_plan_build_ownership(op2_plan *p, int nthreads, double max_shared_fraction) {
  long size = p->end - p->begin, base = p->begin;
  if (nthreads < 2 || size < 2L * nthreads) return OP2_OK;
  char *is_shared = calloc((size_t)size + 1, 1);
  int **owner = calloc((size_t)p->nwrites + 1, sizeof *owner);
  int ok = is_shared && owner;
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
   * pass depends on the order of its visits: a target is shared when two
   * threads reach it, however often. */
  for (int pass = 0; ok && pass < 2; pass++) {
    for (int w = 0; w < p->nwrites; w++) {
      op_map m = p->write_maps[w];
      int idx = p->write_idx[w], dim = m->dim, *own = owner[w];
      int lo = idx < 0 ? 0 : idx, hi = idx < 0 ? -idx : idx + 1;
      for (int c = lo; c < hi; c++) {
        const int *col = m->values + base * dim + c;
        for (int t = 0; t < nthreads; t++) { /* thread by thread: no division per element */
          long e0 = range_begin(t, size, nthreads), e1 = range_begin(t + 1, size, nthreads);
          if (pass == 0)
            for (long e = e0; e < e1; e++) {
              int *o = &own[col[e * dim]];
              *o = *o == UNOWNED || *o == t ? t : SHARED;
            }
          else
            for (long e = e0; e < e1; e++) is_shared[e] |= own[col[e * dim]] == SHARED;
        }
      }
    }
  }

  long nshared = 0;
  for (long e = 0; ok && e < size; e++) nshared += is_shared[e];
  int cap = 0, n = 0;
  int *runs = NULL;
  p->thread_run_offset = ok ? calloc((size_t)nthreads + 1, sizeof(int)) : NULL;
  ok = ok && p->thread_run_offset && (double)nshared <= max_shared_fraction * (double)size;
  for (int t = 0; ok && t < nthreads; t++) {
    ok = add_runs(is_shared, base, range_begin(t, size, nthreads),
                  range_begin(t + 1, size, nthreads), 0, &runs, &n, &cap) == 0;
    p->thread_run_offset[t + 1] = n / 2;
  }
  int shared_from = n;
  if (ok) ok = add_runs(is_shared, base, 0, size, 1, &runs, &n, &cap) == 0;
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
  for (int w = 0; owner && w < p->nwrites; w++) {
    int first = 1;
    for (int v = 0; v < w; v++) first &= owner[v] != owner[w];
    if (first) free(owner[w]);
  }
  free(owner);
  free(is_shared);
  return OP2_OK;
}
