/* SPDX-License-Identifier: BSD-3-Clause */
/* k-way partitioning of a distributed graph with PT-Scotch, and the quality figures of any
 * partition. Everything here is collective: each function either succeeds on every rank or fails
 * on every rank with the same message (the lowest failing rank's), so callers never hang in a
 * later collective after a one-rank error. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_getaffinity_np when built outside the project's flags */
#endif

#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Scotch's header first: ours has the same file name, and an -I to runtime/mpi must not hide it. */
#include <ptscotch.h>

#include "runtime/mpi/ptscotch.h"
#include "runtime/mpi/standalone_message.h"

enum { MSG_MAX = OP2_MPI_MSG_MAX };

/* Partitions must not depend on the run, the rank count being equal: one seed for every call. */
#define OP2_SCOTCH_SEED 20240601

/* The symmetrised local graph: rows sorted, no duplicates, no self loops, global neighbours. */
typedef struct sym_graph {
  int n;
  long first; /* global number of local vertex 0 */
  long *xadj; /* n + 1 offsets */
  long *adj;
} sym_graph;

/* Every MPI call's status is checked: a failure is said in msg with the call and its line, and
 * counts as a failure of the step it belongs to (the communicators return errors, not abort). */
#define MPI_FAILED OP2_MPI_FAILED

/* malloc(0) may return NULL, which must not read as a failure for empty ranks. */
static void *alloc(size_t count, size_t size) {
  return calloc(count ? count : 1, size);
}

/* The rank whose block holds global vertex g (in [0, vtxdist[size])); empty blocks are skipped
 * because the largest r with vtxdist[r] <= g is taken. */
static int owner_of(const long *vtxdist, int size, long g) {
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

static int cmp_long(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

/* Local checks of the arguments; `counts` holds every rank's nlocal. */
static int check_input(const char *who, int rank, int size, const int *counts, int nlocal,
                       const long *vtxdist, const int *xadj, const long *adjncy, int nparts,
                       const int *part, int check_part_values, char *msg) {
  if (nparts < 1) {
    op2_mpi_say(msg, "%s: nparts is %d, must be at least 1", who, nparts);
    return 1;
  }
  if (nlocal < 0) {
    op2_mpi_say(msg, "%s: rank %d: nlocal is %d", who, rank, nlocal);
    return 1;
  }
  if (!vtxdist) {
    op2_mpi_say(msg, "%s: rank %d: vtxdist is NULL", who, rank);
    return 1;
  }
  if (vtxdist[0] != 0) {
    op2_mpi_say(msg, "%s: rank %d: vtxdist[0] is %ld, must be 0", who, rank, vtxdist[0]);
    return 1;
  }
  for (int r = 0; r < size; r++) {
    if (counts[r] < 0 || vtxdist[r + 1] - vtxdist[r] != counts[r]) {
      op2_mpi_say(msg,
                  "%s: rank %d: vtxdist gives rank %d %ld vertices but that rank has nlocal = %d "
                  "(vtxdist must be the same on every rank)",
                  who, rank, r, vtxdist[r + 1] - vtxdist[r], counts[r]);
      return 1;
    }
  }
  if (nlocal > 0 && (!xadj || !part)) {
    op2_mpi_say(msg, "%s: rank %d: xadj or part is NULL with %d local vertices", who, rank, nlocal);
    return 1;
  }
  if (nlocal == 0) return 0;
  if (xadj[0] != 0) {
    op2_mpi_say(msg, "%s: rank %d: xadj[0] is %d, must be 0", who, rank, xadj[0]);
    return 1;
  }
  for (int v = 0; v < nlocal; v++) {
    if (xadj[v + 1] < xadj[v]) {
      op2_mpi_say(msg, "%s: rank %d: xadj decreases at local vertex %d", who, rank, v);
      return 1;
    }
  }
  if (xadj[nlocal] > 0 && !adjncy) {
    op2_mpi_say(msg, "%s: rank %d: adjncy is NULL with %d arcs", who, rank, xadj[nlocal]);
    return 1;
  }
  const long total = vtxdist[size];
  for (int v = 0; v < nlocal; v++) {
    for (int k = xadj[v]; k < xadj[v + 1]; k++) {
      if (adjncy[k] < 0 || adjncy[k] >= total) {
        op2_mpi_say(msg,
                    "%s: rank %d: local vertex %d (global %ld) has neighbour %ld outside [0, %ld)",
                    who, rank, v, vtxdist[rank] + v, adjncy[k], total);
        return 1;
      }
    }
  }
  if (check_part_values) {
    for (int v = 0; v < nlocal; v++) {
      if (part[v] < 0 || part[v] >= nparts) {
        op2_mpi_say(msg, "%s: rank %d: part[%d] is %d, outside [0, %d)", who, rank, v, part[v],
                    nparts);
        return 1;
      }
    }
  }
  return 0;
}

static void sym_free(sym_graph *g) {
  free(g->xadj);
  free(g->adj);
  g->xadj = NULL;
  g->adj = NULL;
}

/* A mesh graph's rows are short (a cell's few neighbours, each twice after symmetrising):
 * insertion sort, without qsort's call per comparison; long rows go to qsort. */
static void sort_row(long *a, long n) {
  if (n > 32) {
    qsort(a, (size_t)n, sizeof(long), cmp_long);
    return;
  }
  for (long i = 1; i < n; i++) {
    long v = a[i], j = i;
    for (; j > 0 && a[j - 1] > v; j--) a[j] = a[j - 1];
    a[j] = v;
  }
}

/* Collective. Every arc u->v of the input yields u->v at u's owner and v->u at v's owner; the
 * reverse arcs of remote vertices travel in one all-to-all. Sorting the rows makes the result
 * independent of the order (and repetition) in which the caller gave the edges. */
static int symmetrise(MPI_Comm comm, const char *who, int nlocal, const long *vtxdist,
                      const int *xadj, const long *adjncy, sym_graph *out, char *msg) {
  int rank, size, failed = 0, rc = -1;
  if (MPI_FAILED(MPI_Comm_rank(comm, &rank), msg) || MPI_FAILED(MPI_Comm_size(comm, &size), msg))
    return -1;
  const long first = vtxdist[rank];
  out->n = nlocal;
  out->first = first;
  out->xadj = out->adj = NULL;

  long *sendlong = alloc((size_t)size, sizeof(long));
  int *sendcount = alloc((size_t)size, sizeof(int)), *recvcount = alloc((size_t)size, sizeof(int));
  int *sdispl = alloc((size_t)size, sizeof(int)), *rdispl = alloc((size_t)size, sizeof(int));
  long *deg = alloc((size_t)nlocal + 1, sizeof(long));
  long *sendbuf = NULL, *recvbuf = NULL;
  long nsend = 0, nrecv = 0;
  if (!sendlong || !sendcount || !recvcount || !sdispl || !rdispl || !deg) {
    op2_mpi_say(msg, "%s: rank %d: out of memory", who, rank);
    failed = 1;
  } else {
    for (int i = 0; i < nlocal; i++) {
      const long g = first + i;
      for (int k = xadj[i]; k < xadj[i + 1]; k++) {
        const long v = adjncy[k];
        if (v == g) continue;
        deg[i]++;
        const int o = owner_of(vtxdist, size, v);
        if (o == rank)
          deg[v - first]++;
        else
          sendlong[o]++;
      }
    }
    for (int r = 0; r < size; r++) nsend += sendlong[r];
    if (nsend > INT_MAX) {
      op2_mpi_say(msg, "%s: rank %d: %ld reverse arcs to send do not fit an MPI count", who, rank,
                  nsend);
      failed = 1;
    }
    for (int r = 0; r < size; r++) sendcount[r] = (int)sendlong[r];
  }
  if (op2_mpi_standalone_agree(comm, failed, msg)) goto out;

  failed = MPI_FAILED(MPI_Alltoall(sendcount, 1, MPI_INT, recvcount, 1, MPI_INT, comm), msg);
  for (int r = 0; !failed && r < size; r++) {
    sdispl[r] = r ? sdispl[r - 1] + sendcount[r - 1] : 0;
    rdispl[r] = (int)nrecv;
    nrecv += recvcount[r];
    if (nrecv > INT_MAX) break;
  }
  if (failed) {
  } else if (nrecv > INT_MAX) {
    op2_mpi_say(msg, "%s: rank %d: reverse arcs to receive do not fit an MPI count", who, rank);
    failed = 1;
  } else {
    sendbuf = alloc((size_t)nsend * 2, sizeof(long));
    recvbuf = alloc((size_t)nrecv * 2, sizeof(long));
    if (!sendbuf || !recvbuf) {
      op2_mpi_say(msg, "%s: rank %d: out of memory", who, rank);
      failed = 1;
    }
  }
  if (op2_mpi_standalone_agree(comm, failed, msg)) goto out;

  /* Pairs (target vertex, source vertex), grouped by the target's owner. */
  for (int r = 0; r < size; r++) sendlong[r] = sdispl[r];
  for (int i = 0; i < nlocal; i++) {
    const long g = first + i;
    for (int k = xadj[i]; k < xadj[i + 1]; k++) {
      const long v = adjncy[k];
      if (v == g) continue;
      const int o = owner_of(vtxdist, size, v);
      if (o == rank) continue;
      const long at = sendlong[o]++;
      sendbuf[2 * at] = v;
      sendbuf[2 * at + 1] = g;
    }
  }
  MPI_Datatype pair;
  failed = MPI_FAILED(MPI_Type_contiguous(2, MPI_LONG, &pair), msg) ||
           MPI_FAILED(MPI_Type_commit(&pair), msg) ||
           MPI_FAILED(MPI_Alltoallv(sendbuf, sendcount, sdispl, pair, recvbuf, recvcount, rdispl,
                                    pair, comm),
                      msg) ||
           MPI_FAILED(MPI_Type_free(&pair), msg);
  free(sendbuf);
  sendbuf = NULL;
  if (op2_mpi_standalone_agree(comm, failed, msg)) goto out;

  for (long j = 0; j < nrecv; j++) deg[recvbuf[2 * j] - first]++;
  long *x = alloc((size_t)nlocal + 1, sizeof(long));
  long arcs = 0;
  for (int i = 0; i < nlocal; i++) arcs += deg[i];
  long *adj = alloc((size_t)arcs, sizeof(long));
  if (!x || !adj) {
    free(x);
    free(adj);
    op2_mpi_say(msg, "%s: rank %d: out of memory", who, rank);
    failed = 1;
  } else {
    for (int i = 0; i < nlocal; i++) x[i + 1] = x[i] + deg[i];
    for (int i = 0; i < nlocal; i++) deg[i] = x[i]; /* now the fill cursor of row i */
    for (int i = 0; i < nlocal; i++) {
      const long g = first + i;
      for (int k = xadj[i]; k < xadj[i + 1]; k++) {
        const long v = adjncy[k];
        if (v == g) continue;
        adj[deg[i]++] = v;
        if (v >= first && v < first + nlocal) adj[deg[v - first]++] = g;
      }
    }
    for (long j = 0; j < nrecv; j++) adj[deg[recvbuf[2 * j] - first]++] = recvbuf[2 * j + 1];
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
  }
  rc = op2_mpi_standalone_agree(comm, failed, msg);

out:
  free(sendlong);
  free(sendcount);
  free(recvcount);
  free(sdispl);
  free(rdispl);
  free(deg);
  free(sendbuf);
  free(recvbuf);
  if (rc) sym_free(out);
  return rc;
}

/* Collective: validates the arguments everywhere, then symmetrises. */
static int prepare(MPI_Comm comm, const char *who, int nlocal, const long *vtxdist, const int *xadj,
                   const long *adjncy, int nparts, const int *part, int check_part_values,
                   sym_graph *g, char *msg) {
  int rank, size, failed = 0;
  g->xadj = g->adj = NULL;
  if (comm == MPI_COMM_NULL) {
    op2_mpi_say(msg, "%s: the communicator is MPI_COMM_NULL", who);
    return -1;
  }
  if (MPI_FAILED(MPI_Comm_rank(comm, &rank), msg) || MPI_FAILED(MPI_Comm_size(comm, &size), msg))
    return -1;
  int *counts = alloc((size_t)size, sizeof(int));
  if (!counts) {
    op2_mpi_say(msg, "%s: rank %d: out of memory", who, rank);
    failed = 1;
  }
  if (op2_mpi_standalone_agree(comm, failed, msg)) return -1;
  if (MPI_FAILED(MPI_Allgather(&nlocal, 1, MPI_INT, counts, 1, MPI_INT, comm), msg))
    return free(counts), -1;
  failed = check_input(who, rank, size, counts, nlocal, vtxdist, xadj, adjncy, nparts, part,
                       check_part_values, msg);
  free(counts);
  if (op2_mpi_standalone_agree(comm, failed, msg)) return -1;
  return symmetrise(comm, who, nlocal, vtxdist, xadj, adjncy, g, msg);
}

/* Collective: quality figures of `part` on the symmetrised graph. Each edge u-v is counted at the
 * owner of the smaller end, which asks the owners of remote ends for their parts. */
static int quality(MPI_Comm comm, const char *who, const long *vtxdist, const sym_graph *g,
                   int nparts, const int *part, op2_partition_quality *q, char *msg) {
  int rank, size, failed = 0, rc = -1;
  if (MPI_FAILED(MPI_Comm_rank(comm, &rank), msg) || MPI_FAILED(MPI_Comm_size(comm, &size), msg))
    return -1;
  const int n = g->n;
  const long first = g->first, total = vtxdist[size];
  long *count = alloc((size_t)nparts, sizeof(long));
  long *ids = alloc((size_t)g->xadj[n], sizeof(long)), *asked = NULL;
  int *sendcount = alloc((size_t)size, sizeof(int)), *recvcount = alloc((size_t)size, sizeof(int));
  int *sdispl = alloc((size_t)size, sizeof(int)), *rdispl = alloc((size_t)size, sizeof(int));
  int *remote_part = NULL, *answer = NULL;
  long nids = 0, nasked = 0;
  if (!count || !ids || !sendcount || !recvcount || !sdispl || !rdispl) {
    op2_mpi_say(msg, "%s: rank %d: out of memory", who, rank);
    failed = 1;
  } else {
    for (int i = 0; i < n; i++) count[part[i]]++;
    for (int i = 0; i < n; i++)
      for (long k = g->xadj[i]; k < g->xadj[i + 1]; k++) {
        const long v = g->adj[k];
        if (v > first + i && v >= first + n) ids[nids++] = v;
      }
    qsort(ids, (size_t)nids, sizeof(long), cmp_long);
    long w = 0;
    for (long j = 0; j < nids; j++)
      if (w == 0 || ids[w - 1] != ids[j]) ids[w++] = ids[j];
    nids = w;
    if (nids > INT_MAX) {
      op2_mpi_say(msg, "%s: rank %d: %ld remote neighbours do not fit an MPI count", who, rank,
                  nids);
      failed = 1;
    } else {
      /* ids are sorted, so each owner's requests are contiguous. */
      for (long j = 0; j < nids; j++) sendcount[owner_of(vtxdist, size, ids[j])]++;
      remote_part = alloc((size_t)nids, sizeof(int));
      if (!remote_part) {
        op2_mpi_say(msg, "%s: rank %d: out of memory", who, rank);
        failed = 1;
      }
    }
  }
  if (op2_mpi_standalone_agree(comm, failed, msg)) goto out;

  failed = MPI_FAILED(MPI_Allreduce(MPI_IN_PLACE, count, nparts, MPI_LONG, MPI_SUM, comm), msg) ||
           MPI_FAILED(MPI_Alltoall(sendcount, 1, MPI_INT, recvcount, 1, MPI_INT, comm), msg);
  for (int r = 0; !failed && r < size; r++) {
    sdispl[r] = r ? sdispl[r - 1] + sendcount[r - 1] : 0;
    rdispl[r] = (int)nasked;
    nasked += recvcount[r];
    if (nasked > INT_MAX) break;
  }
  if (failed) {
  } else if (nasked > INT_MAX) {
    op2_mpi_say(msg, "%s: rank %d: part requests do not fit an MPI count", who, rank);
    failed = 1;
  } else {
    asked = alloc((size_t)nasked, sizeof(long));
    answer = alloc((size_t)nasked, sizeof(int));
    if (!asked || !answer) {
      op2_mpi_say(msg, "%s: rank %d: out of memory", who, rank);
      failed = 1;
    }
  }
  if (op2_mpi_standalone_agree(comm, failed, msg)) goto out;

  failed = MPI_FAILED(
      MPI_Alltoallv(ids, sendcount, sdispl, MPI_LONG, asked, recvcount, rdispl, MPI_LONG, comm),
      msg);
  for (long j = 0; !failed && j < nasked; j++) answer[j] = part[asked[j] - first];
  failed = failed || MPI_FAILED(MPI_Alltoallv(answer, recvcount, rdispl, MPI_INT, remote_part,
                                              sendcount, sdispl, MPI_INT, comm),
                                msg);
  if (op2_mpi_standalone_agree(comm, failed, msg)) goto out;

  long cut = 0;
  for (int i = 0; i < n; i++)
    for (long k = g->xadj[i]; k < g->xadj[i + 1]; k++) {
      const long v = g->adj[k];
      if (v <= first + i) continue;
      int pv;
      if (v < first + n) {
        pv = part[v - first];
      } else {
        const long *at = bsearch(&v, ids, (size_t)nids, sizeof(long), cmp_long);
        pv = remote_part[at - ids];
      }
      cut += pv != part[i];
    }
  if (MPI_FAILED(MPI_Allreduce(MPI_IN_PLACE, &cut, 1, MPI_LONG, MPI_SUM, comm), msg)) goto out;

  q->edge_cut = cut;
  q->min_part = q->max_part = count[0];
  for (int p = 1; p < nparts; p++) {
    if (count[p] < q->min_part) q->min_part = count[p];
    if (count[p] > q->max_part) q->max_part = count[p];
  }
  q->imbalance = total > 0 ? (double)q->max_part * nparts / (double)total : 1.0;
  rc = 0;

out:
  free(count);
  free(ids);
  free(asked);
  free(sendcount);
  free(recvcount);
  free(sdispl);
  free(rdispl);
  free(remote_part);
  free(answer);
  return rc;
}

/* Collective: PT-Scotch on the symmetrised graph. Each Scotch step's outcome is agreed on before
 * the next, so a step failing on one rank cannot leave the others waiting inside Scotch. */
static int scotch_part(MPI_Comm comm, const char *who, const long *vtxdist, const sym_graph *g,
                       int nparts, int check_graph, int *part, char *msg) {
  int rank, size, failed = 0, rc = -1;
  if (MPI_FAILED(MPI_Comm_rank(comm, &rank), msg) || MPI_FAILED(MPI_Comm_size(comm, &size), msg))
    return -1;
  const int n = g->n;
  const long arcs = g->xadj[n];
  long all_arcs = arcs;
  if (MPI_FAILED(MPI_Allreduce(MPI_IN_PLACE, &all_arcs, 1, MPI_LONG, MPI_SUM, comm), msg))
    return -1;
  /* Identical on every rank, so no agreement is needed. */
  if (vtxdist[size] > (long)SCOTCH_NUMMAX || all_arcs > (long)SCOTCH_NUMMAX ||
      nparts > SCOTCH_NUMMAX) {
    op2_mpi_say(
        msg,
        "%s: the graph (%ld vertices, %ld arcs after symmetrisation) does not fit PT-Scotch's "
        "%d-bit SCOTCH_Num",
        who, vtxdist[size], all_arcs, (int)(8 * sizeof(SCOTCH_Num)));
    return -1;
  }

  SCOTCH_Num *vert = alloc((size_t)n + 1, sizeof(SCOTCH_Num));
  SCOTCH_Num *edge = alloc((size_t)arcs, sizeof(SCOTCH_Num));
  SCOTCH_Num *parttab = alloc((size_t)n, sizeof(SCOTCH_Num));
  if (!vert || !edge || !parttab) {
    op2_mpi_say(msg, "%s: rank %d: out of memory", who, rank);
    failed = 1;
  } else {
    for (int i = 0; i <= n; i++) vert[i] = (SCOTCH_Num)g->xadj[i];
    for (long k = 0; k < arcs; k++) edge[k] = (SCOTCH_Num)g->adj[k];
  }
  if (op2_mpi_standalone_agree(comm, failed, msg)) goto out_arrays;

  /* A private communicator: Scotch's point-to-point messages cannot meet the caller's. */
  MPI_Comm scomm;
  if (op2_mpi_standalone_agree(comm, MPI_FAILED(MPI_Comm_dup(comm, &scomm), msg), msg))
    goto out_arrays;
  /* The check walks the whole graph with communication: only when asked for, decided by rank 0
   * so that every rank makes the same call sequence. */
  int check = rank == 0 && check_graph;
  MPI_Bcast(&check, 1, MPI_INT, 0, comm);

  SCOTCH_Dgraph graph, bound;
  SCOTCH_Context context;
  SCOTCH_Strat strat;
  int have_graph = 0, have_context = 0, have_bound = 0, have_strat = 0;

  if (SCOTCH_dgraphInit(&graph, scomm) != 0) {
    op2_mpi_say(msg, "%s: rank %d: SCOTCH_dgraphInit failed", who, rank);
    failed = 1;
  } else {
    have_graph = 1;
  }
  if (op2_mpi_standalone_agree(comm, failed, msg)) goto out_scotch;
  if (SCOTCH_dgraphBuild(&graph, 0, n, n, vert, vert + 1, NULL, NULL, (SCOTCH_Num)arcs,
                         (SCOTCH_Num)arcs, edge, NULL, NULL) != 0) {
    op2_mpi_say(msg, "%s: rank %d: SCOTCH_dgraphBuild failed (Scotch's own message is on stderr)",
                who, rank);
    failed = 1;
  }
  if (op2_mpi_standalone_agree(comm, failed, msg)) goto out_scotch;
  if (check && SCOTCH_dgraphCheck(&graph) != 0) {
    op2_mpi_say(msg, "%s: rank %d: SCOTCH_dgraphCheck rejected the symmetrised graph", who, rank);
    failed = 1;
  }
  if (op2_mpi_standalone_agree(comm, failed, msg)) goto out_scotch;

  /* Repeatability: a context of our own with its own random generator, reseeded to a constant,
   * and Scotch's deterministic mode (no schedule-dependent choices). The calling thread is its
   * only thread: left alone, Scotch spawns one thread per core it may use and pins them and the
   * caller to cores, so every rank of a launch without binding would crowd onto the same cores. */
  if (SCOTCH_contextInit(&context) != 0) {
    op2_mpi_say(msg, "%s: rank %d: SCOTCH_contextInit failed", who, rank);
    failed = 1;
  } else {
    have_context = 1;
    if (SCOTCH_contextThreadImport1(&context, 1) != 0 ||
        SCOTCH_contextThreadImport2(&context, 0) != 0 || SCOTCH_contextRandomClone(&context) != 0 ||
        SCOTCH_contextOptionSetNum(&context, SCOTCH_OPTIONNUMDETERMINISTIC, 1) != 0 ||
        SCOTCH_contextOptionSetNum(&context, SCOTCH_OPTIONNUMRANDOMFIXEDSEED, 1) != 0) {
      op2_mpi_say(msg, "%s: rank %d: cannot set up a deterministic Scotch context", who, rank);
      failed = 1;
    } else {
      SCOTCH_contextRandomSeed(&context, OP2_SCOTCH_SEED);
    }
  }
  if (op2_mpi_standalone_agree(comm, failed, msg)) goto out_scotch;
  if (SCOTCH_dgraphInit(&bound, scomm) != 0) {
    op2_mpi_say(msg, "%s: rank %d: SCOTCH_dgraphInit failed", who, rank);
    failed = 1;
  } else {
    have_bound = 1;
    if (SCOTCH_contextBindDgraph(&context, &graph, &bound) != 0) {
      op2_mpi_say(msg, "%s: rank %d: SCOTCH_contextBindDgraph failed", who, rank);
      failed = 1;
    }
  }
  if (op2_mpi_standalone_agree(comm, failed, msg)) goto out_scotch;

  if (SCOTCH_stratInit(&strat) != 0) {
    op2_mpi_say(msg, "%s: rank %d: SCOTCH_stratInit failed", who, rank);
    failed = 1;
  } else {
    have_strat = 1;
    if (SCOTCH_stratDgraphMapBuild(&strat, SCOTCH_STRATQUALITY, size, nparts,
                                   OP2_PARTITION_BALANCE) != 0) {
      op2_mpi_say(msg, "%s: rank %d: SCOTCH_stratDgraphMapBuild failed", who, rank);
      failed = 1;
    }
  }
  if (op2_mpi_standalone_agree(comm, failed, msg)) goto out_scotch;

  if (SCOTCH_dgraphPart(&bound, nparts, &strat, parttab) != 0) {
    op2_mpi_say(msg, "%s: rank %d: SCOTCH_dgraphPart failed (Scotch's own message is on stderr)",
                who, rank);
    failed = 1;
  } else {
    for (int i = 0; i < n; i++) {
      if (parttab[i] < 0 || parttab[i] >= nparts) {
        op2_mpi_say(msg, "%s: rank %d: SCOTCH_dgraphPart gave part %ld to local vertex %d", who,
                    rank, (long)parttab[i], i);
        failed = 1;
        break;
      }
      part[i] = (int)parttab[i];
    }
  }
  rc = op2_mpi_standalone_agree(comm, failed, msg);

out_scotch:
  if (have_strat) SCOTCH_stratExit(&strat);
  if (have_bound) SCOTCH_dgraphExit(&bound);
  if (have_context) SCOTCH_contextExit(&context);
  if (have_graph) SCOTCH_dgraphExit(&graph);
  MPI_FAILED(MPI_Comm_free(&scomm), msg);
out_arrays:
  free(vert);
  free(edge);
  free(parttab);
  return rc;
}

static void copy_message(char *err, size_t errlen, const char *msg) {
  if (err && errlen) snprintf(err, errlen, "%s", msg);
}

int op2_ptscotch_kway(MPI_Comm comm, int nlocal, const long *vtxdist, const int *xadj,
                      const long *adjncy, int nparts, int check_graph, int *part,
                      op2_partition_quality *q, char *err, size_t errlen) {
  static const char who[] = "op2_ptscotch_kway";
  char msg[MSG_MAX] = "";
  sym_graph g;
  copy_message(err, errlen, "");
  if (prepare(comm, who, nlocal, vtxdist, xadj, adjncy, nparts, part, 0, &g, msg) != 0) {
    copy_message(err, errlen, msg);
    return -1;
  }

  /* Scotch may pin the threads it runs on; the caller's binding (OpenMP, the launcher's) must
   * survive the call. */
  cpu_set_t affinity;
  const int have_affinity = pthread_getaffinity_np(pthread_self(), sizeof affinity, &affinity) == 0;

  int rc;
  if (nparts == 1) {
    for (int i = 0; i < nlocal; i++) part[i] = 0;
    rc = 0;
  } else {
    rc = scotch_part(comm, who, vtxdist, &g, nparts, check_graph, part, msg);
  }
  if (have_affinity) pthread_setaffinity_np(pthread_self(), sizeof affinity, &affinity);

  if (rc == 0 && q) rc = quality(comm, who, vtxdist, &g, nparts, part, q, msg);
  sym_free(&g);
  if (rc) copy_message(err, errlen, msg);
  return rc;
}

int op2_partition_quality_of(MPI_Comm comm, int nlocal, const long *vtxdist, const int *xadj,
                             const long *adjncy, int nparts, const int *part,
                             op2_partition_quality *q) {
  static const char who[] = "op2_partition_quality_of";
  char msg[MSG_MAX] = "";
  sym_graph g;
  op2_partition_quality figures;
  if (prepare(comm, who, nlocal, vtxdist, xadj, adjncy, nparts, part, 1, &g, msg) != 0) return -1;
  const int rc = quality(comm, who, vtxdist, &g, nparts, part, &figures, msg);
  sym_free(&g);
  if (rc == 0 && q) *q = figures;
  return rc;
}
