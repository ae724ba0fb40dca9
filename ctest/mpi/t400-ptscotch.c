/* SPDX-License-Identifier: BSD-3-Clause */
/* op2_ptscotch_kway and op2_partition_quality_of on a 60x40 four-neighbour grid, block
 * distributed, with edges given at one end only on some vertices (and duplicates and self loops
 * on others) so that the symmetrisation has work to do. Run under mpirun with 1 to 4 ranks.
 *
 * Checks are counted, not fatal: a rank that stopped at a failed check would leave the others
 * waiting in a collective, so every rank runs to the end and the failures are summed. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_getaffinity_np */
#endif
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "runtime/mpi/ptscotch.h"

enum { NX = 60, NY = 40, N = NX * NY };

static int rank, size, failures;

#define T_CHECK(cond)                                                                         \
  do {                                                                                        \
    if (!(cond)) {                                                                            \
      fprintf(stderr, "rank %d: %s:%d: CHECK failed: %s\n", rank, __FILE__, __LINE__, #cond); \
      failures++;                                                                             \
    }                                                                                         \
  } while (0)

#define T_CHECK_EQ(a, b)                                                                  \
  do {                                                                                    \
    long long t_a_ = (long long)(a), t_b_ = (long long)(b);                               \
    if (t_a_ != t_b_) {                                                                   \
      fprintf(stderr, "rank %d: %s:%d: CHECK_EQ failed: %s == %s (%lld vs %lld)\n", rank, \
              __FILE__, __LINE__, #a, #b, t_a_, t_b_);                                    \
      failures++;                                                                         \
    }                                                                                     \
  } while (0)

typedef struct dist_graph {
  int nlocal;
  long *vtxdist; /* size + 1 */
  int *xadj;
  long *adjncy;
} dist_graph;

static long block_begin(long global, int r, int parts) {
  return global * r / parts;
}

/* The grid with this rank's vertices [vtxdist[rank], vtxdist[rank+1]). A "lower" vertex lists
 * only its neighbours with smaller numbers, a "full" one lists all of them, its first neighbour a
 * second time and itself: every edge is still given at least at its larger end. */
static dist_graph grid_graph(const long *vtxdist) {
  dist_graph g;
  g.vtxdist = malloc((size_t)(size + 1) * sizeof(long));
  memcpy(g.vtxdist, vtxdist, (size_t)(size + 1) * sizeof(long));
  const long first = vtxdist[rank];
  g.nlocal = (int)(vtxdist[rank + 1] - first);
  g.xadj = malloc((size_t)(g.nlocal + 1) * sizeof(int));
  g.adjncy = malloc((size_t)(g.nlocal * 6 + 1) * sizeof(long));
  int k = 0;
  g.xadj[0] = 0;
  for (int i = 0; i < g.nlocal; i++) {
    const long u = first + i;
    const int x = (int)(u % NX), y = (int)(u / NX);
    const int lower = rank % 2 == 1 || u % 5 == 0;
    long nb[4];
    int nn = 0;
    if (x > 0) nb[nn++] = u - 1;
    if (x < NX - 1) nb[nn++] = u + 1;
    if (y > 0) nb[nn++] = u - NX;
    if (y < NY - 1) nb[nn++] = u + NX;
    const int start = k;
    for (int j = 0; j < nn; j++)
      if (!lower || nb[j] < u) g.adjncy[k++] = nb[j];
    if (!lower) {
      g.adjncy[k++] = g.adjncy[start];
      g.adjncy[k++] = u;
    }
    g.xadj[i + 1] = k;
  }
  return g;
}

static void free_graph(dist_graph *g) {
  free(g->vtxdist);
  free(g->xadj);
  free(g->adjncy);
}

/* Rank 0 gathers the whole partition and recounts from the grid's geometry, independently of
 * the adjacency given to the library. Every rank checks its own figures against rank 0's. */
static void verify(const char *label, const dist_graph *g, int nparts, const int *part,
                   const op2_partition_quality *q) {
  for (int i = 0; i < g->nlocal; i++) T_CHECK(part[i] >= 0 && part[i] < nparts);
  int *counts = malloc((size_t)size * sizeof(int)), *displs = malloc((size_t)size * sizeof(int));
  for (int r = 0; r < size; r++) {
    counts[r] = (int)(g->vtxdist[r + 1] - g->vtxdist[r]);
    displs[r] = (int)g->vtxdist[r];
  }
  int *all = rank == 0 ? malloc(N * sizeof(int)) : NULL;
  MPI_Gatherv(part, g->nlocal, MPI_INT, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
  op2_partition_quality ref = {0, 0, 0, 0};
  if (rank == 0) {
    long *per_part = calloc((size_t)nparts, sizeof(long));
    for (int u = 0; u < N; u++) {
      per_part[all[u]]++;
      if (u % NX < NX - 1) ref.edge_cut += all[u] != all[u + 1];
      if (u / NX < NY - 1) ref.edge_cut += all[u] != all[u + NX];
    }
    ref.min_part = ref.max_part = per_part[0];
    for (int p = 1; p < nparts; p++) {
      if (per_part[p] < ref.min_part) ref.min_part = per_part[p];
      if (per_part[p] > ref.max_part) ref.max_part = per_part[p];
    }
    ref.imbalance = (double)ref.max_part / ((double)N / nparts);
    printf("%-28s nparts %d: cut %5ld  parts %4ld..%4ld  imbalance %.3f\n", label, nparts,
           ref.edge_cut, ref.min_part, ref.max_part, ref.imbalance);
    free(per_part);
  }
  MPI_Bcast(&ref, sizeof ref, MPI_BYTE, 0, MPI_COMM_WORLD);
  T_CHECK_EQ(q->edge_cut, ref.edge_cut);
  T_CHECK_EQ(q->min_part, ref.min_part);
  T_CHECK_EQ(q->max_part, ref.max_part);
  T_CHECK(q->imbalance > ref.imbalance - 1e-12 && q->imbalance < ref.imbalance + 1e-12);
  free(all);
  free(counts);
  free(displs);
}

static int all_agree(int local_ok) {
  int ok;
  MPI_Allreduce(&local_ok, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return ok;
}

/* kway twice (the second time with Scotch's graph check on), then the quality figures checked
 * against a recount, the BLOCK partition and a random one. */
static void partition_and_check(const char *label, const dist_graph *g, int nparts) {
  int *part = malloc((size_t)(g->nlocal + 1) * sizeof(int));
  int *again = malloc((size_t)(g->nlocal + 1) * sizeof(int));
  int *other = malloc((size_t)(g->nlocal + 1) * sizeof(int));
  op2_partition_quality q, q2, qq;
  op2_jit_error err = {.code = OP2_ERR_ARG, .msg = "unset"};
  int rc = op2_ptscotch_kway(MPI_COMM_WORLD, g->nlocal, g->vtxdist, g->xadj, g->adjncy, nparts, 0,
                             part, &q, &err);
  T_CHECK_EQ(rc, 0);
  if (rc) fprintf(stderr, "rank %d: %s\n", rank, err.msg);
  T_CHECK(err.code == OP2_OK && err.msg[0] == '\0');
  if (!all_agree(rc == 0)) goto out;
  verify(label, g, nparts, part, &q);
  if (nparts > 1) {
    T_CHECK(q.min_part > 0);
    T_CHECK(q.imbalance <= 1.1);
  } else {
    T_CHECK_EQ(q.edge_cut, 0);
    T_CHECK_EQ(q.max_part, N);
  }

  /* Determinism: the same input gives the same partition. */
  rc = op2_ptscotch_kway(MPI_COMM_WORLD, g->nlocal, g->vtxdist, g->xadj, g->adjncy, nparts,
                         rank == 0, again, &q2, &err);
  T_CHECK_EQ(rc, 0);
  int differ = 0;
  for (int i = 0; i < g->nlocal; i++) differ += part[i] != again[i];
  T_CHECK_EQ(differ, 0);
  T_CHECK_EQ(q2.edge_cut, q.edge_cut);

  /* quality_of on the same partition gives the same figures. */
  rc = op2_partition_quality_of(MPI_COMM_WORLD, g->nlocal, g->vtxdist, g->xadj, g->adjncy, nparts,
                                part, &qq);
  T_CHECK_EQ(rc, 0);
  T_CHECK_EQ(qq.edge_cut, q.edge_cut);
  T_CHECK_EQ(qq.min_part, q.min_part);
  T_CHECK_EQ(qq.max_part, q.max_part);
  T_CHECK(qq.imbalance == q.imbalance);

  /* The BLOCK partition of the global numbering into nparts. */
  const long first = g->vtxdist[rank];
  for (int i = 0; i < g->nlocal; i++) {
    const long u = first + i;
    int p = (int)(u * nparts / N);
    while (p + 1 < nparts && block_begin(N, p + 1, nparts) <= u) p++;
    while (block_begin(N, p, nparts) > u) p--;
    other[i] = p;
  }
  rc = op2_partition_quality_of(MPI_COMM_WORLD, g->nlocal, g->vtxdist, g->xadj, g->adjncy, nparts,
                                other, &qq);
  T_CHECK_EQ(rc, 0);
  verify("  BLOCK", g, nparts, other, &qq);
  if (nparts > 1) T_CHECK(q.edge_cut <= 2 * qq.edge_cut);

  /* A random partition (a hash of the global number). */
  for (int i = 0; i < g->nlocal; i++) {
    unsigned long h = (unsigned long)(first + i) * 2654435761ul;
    other[i] = (int)((h >> 7) % (unsigned long)nparts);
  }
  rc = op2_partition_quality_of(MPI_COMM_WORLD, g->nlocal, g->vtxdist, g->xadj, g->adjncy, nparts,
                                other, &qq);
  T_CHECK_EQ(rc, 0);
  verify("  random", g, nparts, other, &qq);
  if (nparts > 1) T_CHECK(q.edge_cut * 8 < qq.edge_cut);
out:
  free(part);
  free(again);
  free(other);
}

/* Bad input fails on every rank with the same message, wherever the fault is. */
static void error_cases(const dist_graph *g) {
  int *part = malloc((size_t)(g->nlocal + 1) * sizeof(int));
  op2_jit_error err;
  char first_msg[sizeof err.msg];
  op2_partition_quality q;

  int rc = op2_ptscotch_kway(MPI_COMM_WORLD, g->nlocal, g->vtxdist, g->xadj, g->adjncy, 0, 0, part,
                             &q, &err);
  T_CHECK_EQ(rc, -1);
  T_CHECK(strstr(err.msg, "nparts") != NULL);

  /* A neighbour out of range on the last rank only. */
  long *adj = malloc((size_t)(g->xadj[g->nlocal] + 1) * sizeof(long));
  memcpy(adj, g->adjncy, (size_t)g->xadj[g->nlocal] * sizeof(long));
  if (rank == size - 1 && g->xadj[g->nlocal] > 0) adj[g->xadj[g->nlocal] - 1] = N + 7;
  rc = op2_ptscotch_kway(MPI_COMM_WORLD, g->nlocal, g->vtxdist, g->xadj, adj, size, 0, part, &q,
                         &err);
  T_CHECK_EQ(rc, -1);
  T_CHECK(strstr(err.msg, "outside") != NULL);
  char expect[32];
  snprintf(expect, sizeof expect, "rank %d:", size - 1);
  T_CHECK(strstr(err.msg, expect) != NULL);
  /* The same message everywhere. */
  memcpy(first_msg, err.msg, sizeof first_msg);
  MPI_Bcast(first_msg, sizeof first_msg, MPI_CHAR, 0, MPI_COMM_WORLD);
  T_CHECK(strcmp(first_msg, err.msg) == 0);
  free(adj);

  /* vtxdist that disagrees with the local counts, on the last rank only. */
  long *vd = malloc((size_t)(size + 1) * sizeof(long));
  memcpy(vd, g->vtxdist, (size_t)(size + 1) * sizeof(long));
  if (rank == size - 1) vd[size] += 1;
  rc =
      op2_ptscotch_kway(MPI_COMM_WORLD, g->nlocal, vd, g->xadj, g->adjncy, size, 0, part, &q, &err);
  T_CHECK_EQ(rc, -1);
  T_CHECK(strstr(err.msg, "vtxdist") != NULL);
  free(vd);

  /* quality_of with a part out of range on rank 0. */
  for (int i = 0; i < g->nlocal; i++) part[i] = 0;
  if (rank == 0 && g->nlocal > 0) part[0] = 3;
  rc = op2_partition_quality_of(MPI_COMM_WORLD, g->nlocal, g->vtxdist, g->xadj, g->adjncy, 3, part,
                                &q);
  T_CHECK_EQ(rc, -1);
  free(part);
}

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  long *vtxdist = malloc((size_t)(size + 1) * sizeof(long));
  for (int r = 0; r <= size; r++) vtxdist[r] = block_begin(N, r, size);
  dist_graph g = grid_graph(vtxdist);

  error_cases(&g);

  cpu_set_t before, after;
  pthread_getaffinity_np(pthread_self(), sizeof before, &before);
  partition_and_check("kway, block distribution", &g, size);
  pthread_getaffinity_np(pthread_self(), sizeof after, &after);
  T_CHECK(CPU_EQUAL(&before, &after));
  if (size != 5) partition_and_check("kway, block distribution", &g, 5);
  if (size != 1) partition_and_check("kway, block distribution", &g, 1);

  /* Rank 1 holds nothing: the others share the grid. */
  if (size >= 2) {
    long acc = 0;
    int others = 0;
    for (int r = 0; r < size; r++) {
      vtxdist[r] = acc;
      if (r != 1) acc = block_begin(N, ++others, size - 1);
    }
    vtxdist[size] = N;
    dist_graph h = grid_graph(vtxdist);
    partition_and_check("kway, rank 1 empty", &h, size);
    free_graph(&h);
  }
  free_graph(&g);
  free(vtxdist);

  int total;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("t400-ptscotch, %d ranks: %s (%d failed checks)\n", size, total ? "FAIL" : "PASS",
           total);
  MPI_Finalize();
  return total ? 1 : 0;
}
