/* SPDX-License-Identifier: BSD-3-Clause */
/* op2_rcb_partition (recursive coordinate bisection) under mpirun with 1 to 4 ranks. Every rank
 * makes the same points from a seed and holds a block of them; the parts are gathered (test
 * code only) and checked: counts exact to one point per level of bisection without balance,
 * the same parts whatever the blocks (skewed, a rank empty), parts in order along a line, ties
 * split by global number, a cut moved to a gap between layers within the balance allowed, and
 * bad input failing on every rank with the same message.
 *
 * Checks are counted, not fatal, so that no rank leaves the others waiting in a collective. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "runtime/mpi/geometric.h"

static int rank, size, failures;

#define T_CHECK(cond)                                                                         \
  do {                                                                                        \
    if (!(cond)) {                                                                            \
      fprintf(stderr, "rank %d: %s:%d: CHECK failed: %s\n", rank, __FILE__, __LINE__, #cond); \
      failures++;                                                                             \
    }                                                                                         \
  } while (0)

static unsigned next(unsigned *s) {
  *s = *s * 1664525u + 1013904223u;
  return *s >> 8;
}

/* This rank's block [first, first + count) of n points: even, or skewed with rank 1 empty. */
static void block(long n, int skewed, long *first, long *count) {
  long w = 0, total = 0;
  for (int r = 0; r < size; r++) {
    long wr = skewed ? (r == 1 ? 0 : r + 1) : 1;
    if (r < rank) w += wr;
    total += wr;
  }
  long mine = skewed ? (rank == 1 ? 0 : rank + 1) : 1;
  *first = n * w / total;
  *count = n * (w + mine) / total - *first;
}

/* Partitions the n points (all of them in xyz) from this rank's block; every point's part on
 * every rank, or NULL when the call failed (then err holds the message). */
static int *partition(const double *xyz, long n, int dim, int nparts, double balance, int skewed,
                      char *err) {
  long first, count;
  block(n, skewed, &first, &count);
  int *mine = malloc(sizeof(int) * (size_t)(count + 1));
  op2_jit_error e;
  int rc = op2_rcb_partition(MPI_COMM_WORLD, (int)count, dim, xyz + first * dim, first, nparts,
                             balance, mine, &e);
  if (rc) {
    snprintf(err, 256, "%s", e.msg);
    return free(mine), NULL;
  }
  int *counts = malloc(sizeof(int) * (size_t)size), *displ = malloc(sizeof(int) * (size_t)size);
  int c = (int)count;
  MPI_Allgather(&c, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 0; r < size; r++) displ[r] = r ? displ[r - 1] + counts[r - 1] : 0;
  int *all = malloc(sizeof(int) * (size_t)n);
  MPI_Allgatherv(mine, c, MPI_INT, all, counts, displ, MPI_INT, MPI_COMM_WORLD);
  free(mine), free(counts), free(displ);
  return all;
}

static int levels_of(int nparts) {
  int l = 0;
  while ((1 << l) < nparts) l++;
  return l;
}

/* Every part within `levels` points of its exact share, and every part used. */
static void check_counts(const int *part, long n, int nparts, double slack_points) {
  long *count = calloc((size_t)nparts, sizeof(long));
  for (long i = 0; i < n; i++) {
    T_CHECK(part[i] >= 0 && part[i] < nparts);
    if (part[i] >= 0 && part[i] < nparts) count[part[i]]++;
  }
  for (int p = 0; p < nparts; p++) {
    double share = (double)n / nparts;
    if (fabs((double)count[p] - share) > slack_points)
      fprintf(stderr, "rank %d: part %d has %ld points, share %.1f\n", rank, p, count[p], share);
    T_CHECK(fabs((double)count[p] - share) <= slack_points);
  }
  free(count);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char err[256];

  /* Random points in a box longer in y: exact counts, and the same parts from any blocks. */
  enum { N = 5000 };
  double *xyz = malloc(sizeof(double) * 3 * N);
  unsigned s = 401;
  for (int i = 0; i < N; i++) {
    xyz[3 * i] = (double)(next(&s) % 100000) / 1e5;
    xyz[3 * i + 1] = 3.0 * (double)(next(&s) % 100000) / 1e5;
    xyz[3 * i + 2] = (double)(next(&s) % 100000) / 1e5;
  }
  for (int nparts = 1; nparts <= 7; nparts++) {
    int *even = partition(xyz, N, 3, nparts, 0.0, 0, err);
    int *skew = partition(xyz, N, 3, nparts, 0.0, 1, err);
    T_CHECK(even && skew);
    if (!even || !skew) break;
    check_counts(even, N, nparts, levels_of(nparts));
    T_CHECK(memcmp(even, skew, sizeof(int) * N) == 0);
    if (nparts == 2) { /* one cut, across y, the longest side */
      double lo_max = -1, hi_min = 10;
      for (int i = 0; i < N; i++) {
        if (even[i] == 0 && xyz[3 * i + 1] > lo_max) lo_max = xyz[3 * i + 1];
        if (even[i] == 1 && xyz[3 * i + 1] < hi_min) hi_min = xyz[3 * i + 1];
      }
      T_CHECK(lo_max <= hi_min);
    }
    free(even), free(skew);
  }

  /* Along a line (dim 1): parts are intervals in increasing order. */
  double *line = malloc(sizeof(double) * N);
  for (int i = 0; i < N; i++) line[i] = (double)((i * 7919) % N) * 0.25;
  int *lp = partition(line, N, 1, 5, 0.0, 1, err);
  T_CHECK(lp != NULL);
  for (int i = 0; lp && i < N; i++)
    for (int j = 0; j < N; j += 97) T_CHECK(!(line[i] < line[j] && lp[i] > lp[j]));
  if (lp) check_counts(lp, N, 5, levels_of(5));
  free(lp);

  /* All points equal: split by global number, in order, exactly. */
  for (int i = 0; i < N; i++) line[i] = 1.5;
  int *tp = partition(line, N, 1, 3, 0.05, 0, err);
  T_CHECK(tp != NULL);
  for (int i = 1; tp && i < N; i++) T_CHECK(tp[i] >= tp[i - 1]);
  if (tp) check_counts(tp, N, 3, levels_of(3));
  free(tp);

  /* 21 layers of 50 points (x = layer + jitter below 0.3): two parts. Without balance the cut
   * runs through layer 10 (525 points each); with 5% it moves to a gap between layers. */
  enum { LAYERS = 21, PER = 50, NL = LAYERS * PER };
  double *lay = malloc(sizeof(double) * 2 * NL);
  for (int i = 0; i < NL; i++) {
    int layer = (i * 13) % LAYERS; /* numbered across the layers */
    lay[2 * i] = layer + 0.3 * (double)(next(&s) % 1000) / 1000.0;
    lay[2 * i + 1] = 0.5 * (double)(next(&s) % 1000) / 1000.0;
  }
  int *exact = partition(lay, NL, 2, 2, 0.0, 0, err), *gap = partition(lay, NL, 2, 2, 0.05, 1, err);
  T_CHECK(exact && gap);
  if (exact && gap) {
    check_counts(exact, NL, 2, 1);
    int split_layers = 0;
    for (int l = 0; l < LAYERS; l++) {
      int in0 = 0, in0_gap = 0;
      for (int i = 0; i < NL; i++)
        if ((int)floor(lay[2 * i]) == l) in0 += exact[i] == 0, in0_gap += gap[i] == 0;
      split_layers += in0 > 0 && in0 < PER;
      T_CHECK(in0_gap == 0 || in0_gap == PER); /* no layer cut with balance */
    }
    T_CHECK(split_layers == 1); /* the exact cut runs through one layer */
    check_counts(gap, NL, 2, 0.05 * NL / 2);
  }
  free(exact), free(gap);

  /* Bad input: every rank fails with the same message, naming the rank that has it. */
  xyz[3 * (N - 1)] = NAN; /* the last point, held by the last rank */
  char msg[256] = "", all0[256] = "";
  int *bad = partition(xyz, N, 3, 2, 0.0, 0, msg);
  T_CHECK(bad == NULL);
  char want[64];
  snprintf(want, sizeof want, "rank %d: point", size - 1);
  T_CHECK(strstr(msg, want) != NULL && strstr(msg, "not finite") != NULL);
  if (rank == 0) memcpy(all0, msg, sizeof msg);
  MPI_Bcast(all0, sizeof all0, MPI_CHAR, 0, MPI_COMM_WORLD);
  T_CHECK(strcmp(all0, msg) == 0);
  free(bad);
  T_CHECK(partition(line, N, 4, 2, 0.0, 0, msg) == NULL && strstr(msg, "dimension 4"));
  T_CHECK(partition(line, N, 1, 0, 0.0, 0, msg) == NULL && strstr(msg, "0 parts"));

  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("t401-rcb on %d ranks: %d failed checks\n", size, all);
  free(xyz), free(line), free(lay);
  MPI_Finalize();
  return all ? 1 : 0;
}
