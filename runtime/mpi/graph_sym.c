/* SPDX-License-Identifier: BSD-3-Clause */
/* The graph partitioner's first step: the caller's distributed graph checked on every rank and
 * symmetrised (graph_sym.h). Everything here is collective: it succeeds on every rank or fails
 * on every rank with the same message (the lowest failing rank's), so callers never hang in a
 * later collective after a one-rank error. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/mpi/graph_sym.h"
#include "runtime/mpi/standalone_message.h"

#define MPI_FAILED OP2_MPI_FAILED

void *op2_graph_alloc(size_t count, size_t size) {
  return calloc(count ? count : 1, size); /* malloc(0) may return NULL */
}

/* Empty blocks are skipped because the largest r with vtxdist[r] <= g is taken. */
int op2_graph_owner_of(const long *vtxdist, int size, long g) {
  int lo = 0, hi = size - 1;
  while (lo < hi) {
    int mid = lo + (hi - lo + 1) / 2;
    if (vtxdist[mid] <= g)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

int op2_graph_cmp_long(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

void op2_sym_graph_free(op2_sym_graph *g) {
  free(g->xadj);
  free(g->adj);
  g->xadj = NULL;
  g->adj = NULL;
}

/* The caller's graph on this rank, as symmetrise reads it. */
typedef struct graph_in {
  int nlocal;
  const long *vtxdist;
  const int *xadj;
  const long *adjncy;
  long first; /* vtxdist[rank] */
  int rank, size;
} graph_in;

/* Local checks of the arguments; `counts` holds every rank's nlocal. Nonzero with *msg on a
 * failure. */
static int check_input(const char *who, int rank, int size, const int *counts, int nlocal,
                       const long *vtxdist, const int *xadj, const long *adjncy, int nparts,
                       const int *part, int check_part_values, op2_jit_error *msg) {
  if (nparts < 1) return op2_mpi_say(msg, "%s: nparts is %d, must be at least 1", who, nparts);
  if (nlocal < 0) return op2_mpi_say(msg, "%s: rank %d: nlocal is %d", who, rank, nlocal);
  if (!vtxdist) return op2_mpi_say(msg, "%s: rank %d: vtxdist is NULL", who, rank);
  if (vtxdist[0] != 0)
    return op2_mpi_say(msg, "%s: rank %d: vtxdist[0] is %ld, must be 0", who, rank, vtxdist[0]);
  for (int r = 0; r < size; r++)
    if (counts[r] < 0 || vtxdist[r + 1] - vtxdist[r] != counts[r])
      return op2_mpi_say(msg,
                         "%s: rank %d: vtxdist gives rank %d %ld vertices but that rank has "
                         "nlocal = %d (vtxdist must be the same on every rank)",
                         who, rank, r, vtxdist[r + 1] - vtxdist[r], counts[r]);
  if (nlocal > 0 && (!xadj || !part))
    return op2_mpi_say(msg, "%s: rank %d: xadj or part is NULL with %d local vertices", who, rank,
                       nlocal);
  if (nlocal == 0) return 0;
  if (xadj[0] != 0)
    return op2_mpi_say(msg, "%s: rank %d: xadj[0] is %d, must be 0", who, rank, xadj[0]);
  for (int v = 0; v < nlocal; v++)
    if (xadj[v + 1] < xadj[v])
      return op2_mpi_say(msg, "%s: rank %d: xadj decreases at local vertex %d", who, rank, v);
  if (xadj[nlocal] > 0 && !adjncy)
    return op2_mpi_say(msg, "%s: rank %d: adjncy is NULL with %d arcs", who, rank, xadj[nlocal]);
  const long total = vtxdist[size];
  for (int v = 0; v < nlocal; v++)
    for (int k = xadj[v]; k < xadj[v + 1]; k++)
      if (adjncy[k] < 0 || adjncy[k] >= total)
        return op2_mpi_say(
            msg, "%s: rank %d: local vertex %d (global %ld) has neighbour %ld outside [0, %ld)",
            who, rank, v, vtxdist[rank] + v, adjncy[k], total);
  if (check_part_values)
    for (int v = 0; v < nlocal; v++)
      if (part[v] < 0 || part[v] >= nparts)
        return op2_mpi_say(msg, "%s: rank %d: part[%d] is %d, outside [0, %d)", who, rank, v,
                           part[v], nparts);
  return 0;
}

/* A mesh graph's rows are short (a cell's few neighbours, each twice after symmetrising):
 * insertion sort, without qsort's call per comparison; long rows go to qsort. */
static void sort_row(long *a, long n) {
  if (n > 32) {
    qsort(a, (size_t)n, sizeof(long), op2_graph_cmp_long);
    return;
  }
  for (long i = 1; i < n; i++) {
    long v = a[i], j = i;
    for (; j > 0 && a[j - 1] > v; j--) a[j] = a[j - 1];
    a[j] = v;
  }
}

/* The arcs whose far end another rank owns, travelling there reversed, as (target, source)
 * pairs in one all-to-all, grouped by the target's owner. */
typedef struct reverse_arcs {
  long *sendlong; /* per rank: the arcs to send, then the fill cursor of its pairs */
  int *sendcount, *recvcount, *sdispl, *rdispl;
  long *sendbuf, *recvbuf; /* pairs */
  long nsend, nrecv;
} reverse_arcs;

static void reverse_free(reverse_arcs *r) {
  free(r->sendlong), free(r->sendcount), free(r->recvcount), free(r->sdispl), free(r->rdispl);
  free(r->sendbuf), free(r->recvbuf);
}

/* Step 1, local: each row's degree after symmetrising, as far as this rank's own arcs tell, and
 * how many reversed arcs go to each rank. Nonzero with *msg on a failure. */
static int count_degrees(const char *who, const graph_in *in, reverse_arcs *r, long *deg,
                         op2_jit_error *msg) {
  if (!r->sendlong || !r->sendcount || !r->recvcount || !r->sdispl || !r->rdispl || !deg)
    return op2_mpi_say(msg, "%s: rank %d: out of memory", who, in->rank);
  for (int i = 0; i < in->nlocal; i++) {
    const long g = in->first + i;
    for (int k = in->xadj[i]; k < in->xadj[i + 1]; k++) {
      const long v = in->adjncy[k];
      if (v == g) continue;
      deg[i]++;
      const int o = op2_graph_owner_of(in->vtxdist, in->size, v);
      if (o == in->rank)
        deg[v - in->first]++;
      else
        r->sendlong[o]++;
    }
  }
  for (int q = 0; q < in->size; q++) r->nsend += r->sendlong[q];
  for (int q = 0; q < in->size; q++) r->sendcount[q] = (int)r->sendlong[q];
  if (r->nsend > INT_MAX)
    return op2_mpi_say(msg, "%s: rank %d: %ld reverse arcs to send do not fit an MPI count", who,
                       in->rank, r->nsend);
  return 0;
}

/* Step 2's pairs (target vertex, source vertex), grouped by the target's owner. */
static void fill_pairs(const graph_in *in, reverse_arcs *r) {
  for (int q = 0; q < in->size; q++) r->sendlong[q] = r->sdispl[q];
  for (int i = 0; i < in->nlocal; i++) {
    const long g = in->first + i;
    for (int k = in->xadj[i]; k < in->xadj[i + 1]; k++) {
      const long v = in->adjncy[k];
      if (v == g) continue;
      const int o = op2_graph_owner_of(in->vtxdist, in->size, v);
      if (o == in->rank) continue;
      const long at = r->sendlong[o]++;
      r->sendbuf[2 * at] = v;
      r->sendbuf[2 * at + 1] = g;
    }
  }
}

/* Step 2, collective: the reversed arcs to their targets' owners. 0, or -1 on every rank. */
static int exchange_reverse_arcs(MPI_Comm comm, const char *who, const graph_in *in,
                                 reverse_arcs *r, op2_jit_error *msg) {
  int failed =
      MPI_FAILED(MPI_Alltoall(r->sendcount, 1, MPI_INT, r->recvcount, 1, MPI_INT, comm), msg);
  for (int q = 0; !failed && q < in->size; q++) {
    r->sdispl[q] = q ? r->sdispl[q - 1] + r->sendcount[q - 1] : 0;
    r->rdispl[q] = (int)r->nrecv;
    r->nrecv += r->recvcount[q];
    if (r->nrecv > INT_MAX) break;
  }
  if (!failed && r->nrecv > INT_MAX) {
    failed = op2_mpi_say(msg, "%s: rank %d: reverse arcs to receive do not fit an MPI count", who,
                         in->rank);
  } else if (!failed) {
    r->sendbuf = op2_graph_alloc((size_t)r->nsend * 2, sizeof(long));
    r->recvbuf = op2_graph_alloc((size_t)r->nrecv * 2, sizeof(long));
    if (!r->sendbuf || !r->recvbuf)
      failed = op2_mpi_say(msg, "%s: rank %d: out of memory", who, in->rank);
  }
  if (op2_mpi_standalone_agree(comm, failed, msg)) return -1;
  fill_pairs(in, r);
  MPI_Datatype pair;
  failed = MPI_FAILED(MPI_Type_contiguous(2, MPI_LONG, &pair), msg) ||
           MPI_FAILED(MPI_Type_commit(&pair), msg) ||
           MPI_FAILED(MPI_Alltoallv(r->sendbuf, r->sendcount, r->sdispl, pair, r->recvbuf,
                                    r->recvcount, r->rdispl, pair, comm),
                      msg) ||
           MPI_FAILED(MPI_Type_free(&pair), msg);
  free(r->sendbuf);
  r->sendbuf = NULL;
  return op2_mpi_standalone_agree(comm, failed, msg);
}

/* Step 3, local: the rows (own arcs, their reverses held here, the reverses received), each
 * sorted and without duplicates, into *out. Nonzero with *msg on a failure. */
static int assemble_rows(const char *who, const graph_in *in, long *deg, const reverse_arcs *r,
                         op2_sym_graph *out, op2_jit_error *msg) {
  const int nlocal = in->nlocal;
  const long first = in->first;
  for (long j = 0; j < r->nrecv; j++) deg[r->recvbuf[2 * j] - first]++;
  long *x = op2_graph_alloc((size_t)nlocal + 1, sizeof(long));
  long arcs = 0;
  for (int i = 0; i < nlocal; i++) arcs += deg[i];
  long *adj = op2_graph_alloc((size_t)arcs, sizeof(long));
  if (!x || !adj) {
    free(x);
    free(adj);
    return op2_mpi_say(msg, "%s: rank %d: out of memory", who, in->rank);
  }
  for (int i = 0; i < nlocal; i++) x[i + 1] = x[i] + deg[i];
  for (int i = 0; i < nlocal; i++) deg[i] = x[i]; /* now the fill cursor of row i */
  for (int i = 0; i < nlocal; i++) {
    const long g = first + i;
    for (int k = in->xadj[i]; k < in->xadj[i + 1]; k++) {
      const long v = in->adjncy[k];
      if (v == g) continue;
      adj[deg[i]++] = v;
      if (v >= first && v < first + nlocal) adj[deg[v - first]++] = g;
    }
  }
  for (long j = 0; j < r->nrecv; j++) adj[deg[r->recvbuf[2 * j] - first]++] = r->recvbuf[2 * j + 1];
  /* Sort and deduplicate each row, compacting in place. */
  long w = 0, start = 0;
  for (int i = 0; i < nlocal; i++) {
    const long end = x[i + 1];
    sort_row(adj + start, end - start);
    x[i] = w;
    for (long j = start; j < end; j++)
      if (w == x[i] || adj[w - 1] != adj[j]) adj[w++] = adj[j];
    start = end;
  }
  x[nlocal] = w;
  out->xadj = x;
  out->adj = adj;
  return 0;
}

/* Collective: every arc u->v of the input yields u->v at u's owner and v->u at v's owner; the
 * reverse arcs of remote vertices travel in one all-to-all. Sorting the rows makes the result
 * independent of the order (and repetition) in which the caller gave the edges. */
static int symmetrise(MPI_Comm comm, const char *who, const graph_in *in, op2_sym_graph *out,
                      op2_jit_error *msg) {
  const size_t p = (size_t)in->size;
  out->n = in->nlocal;
  out->first = in->first;
  out->xadj = out->adj = NULL;
  reverse_arcs r = {.sendlong = op2_graph_alloc(p, sizeof(long)),
                    .sendcount = op2_graph_alloc(p, sizeof(int)),
                    .recvcount = op2_graph_alloc(p, sizeof(int)),
                    .sdispl = op2_graph_alloc(p, sizeof(int)),
                    .rdispl = op2_graph_alloc(p, sizeof(int))};
  long *deg = op2_graph_alloc((size_t)in->nlocal + 1, sizeof(long));
  int rc = -1;
  if (op2_mpi_standalone_agree(comm, count_degrees(who, in, &r, deg, msg), msg) == 0 &&
      exchange_reverse_arcs(comm, who, in, &r, msg) == 0)
    rc = op2_mpi_standalone_agree(comm, assemble_rows(who, in, deg, &r, out, msg), msg);
  reverse_free(&r);
  free(deg);
  if (rc) op2_sym_graph_free(out);
  return rc;
}

int op2_sym_graph_build(MPI_Comm comm, const char *who, int nlocal, const long *vtxdist,
                        const int *xadj, const long *adjncy, int nparts, const int *part,
                        int check_part_values, op2_sym_graph *g, op2_jit_error *msg) {
  int rank, size, failed = 0;
  g->xadj = g->adj = NULL;
  if (comm == MPI_COMM_NULL) {
    op2_mpi_say(msg, "%s: the communicator is MPI_COMM_NULL", who);
    return -1;
  }
  if (MPI_FAILED(MPI_Comm_rank(comm, &rank), msg) || MPI_FAILED(MPI_Comm_size(comm, &size), msg))
    return -1;
  int *counts = op2_graph_alloc((size_t)size, sizeof(int));
  if (!counts) failed = op2_mpi_say(msg, "%s: rank %d: out of memory", who, rank);
  if (op2_mpi_standalone_agree(comm, failed, msg)) return -1;
  if (MPI_FAILED(MPI_Allgather(&nlocal, 1, MPI_INT, counts, 1, MPI_INT, comm), msg))
    return free(counts), -1;
  failed = check_input(who, rank, size, counts, nlocal, vtxdist, xadj, adjncy, nparts, part,
                       check_part_values, msg);
  free(counts);
  if (op2_mpi_standalone_agree(comm, failed, msg)) return -1;
  graph_in in = {nlocal, vtxdist, xadj, adjncy, vtxdist[rank], rank, size};
  return symmetrise(comm, who, &in, g, msg);
}
