/* SPDX-License-Identifier: BSD-3-Clause */
/* The quality figures of a partition (edge cut, part sizes, imbalance) on the symmetrised graph
 * (graph_sym.h), for PT-Scotch's report and for any given partition (op2_partition_quality_of).
 * Collective: each edge u-v is counted at the owner of the smaller end, which asks the owners of
 * remote ends for their parts. */
#include <limits.h>
#include <stdlib.h>

#include "runtime/mpi/ptscotch.h"
#include "runtime/mpi/graph_sym.h"
#include "runtime/mpi/standalone_message.h"

#define MPI_FAILED OP2_MPI_FAILED

/* The parts of the remote neighbours this rank counts edges to, asked of their owners. */
typedef struct part_requests {
  long *count;      /* vertices per part */
  long *ids, nids;  /* the remote neighbours asked about, sorted */
  int *remote_part; /* their parts, in ids' order */
  int *sendcount, *recvcount, *sdispl, *rdispl;
  long *asked, nasked; /* the vertices of this rank others asked about */
  int *answer;         /* and their parts */
} part_requests;

static void requests_free(part_requests *r) {
  free(r->count), free(r->ids), free(r->asked), free(r->sendcount), free(r->recvcount);
  free(r->sdispl), free(r->rdispl), free(r->remote_part), free(r->answer);
}

/* Step 1, local: vertices per part, and the remote neighbours to ask about (the larger ends of
 * edges whose smaller end is here), grouped by owner. Nonzero with *msg on a failure. */
static int count_and_ask(const char *who, int rank, int size, const long *vtxdist,
                         const op2_sym_graph *g, const int *part, part_requests *r,
                         op2_jit_error *msg) {
  const int n = g->n;
  const long first = g->first;
  if (!r->count || !r->ids || !r->sendcount || !r->recvcount || !r->sdispl || !r->rdispl)
    return op2_mpi_say(msg, "%s: rank %d: out of memory", who, rank);
  for (int i = 0; i < n; i++) r->count[part[i]]++;
  for (int i = 0; i < n; i++)
    for (long k = g->xadj[i]; k < g->xadj[i + 1]; k++) {
      const long v = g->adj[k];
      if (v > first + i && v >= first + n) r->ids[r->nids++] = v;
    }
  qsort(r->ids, (size_t)r->nids, sizeof(long), op2_graph_cmp_long);
  long w = 0;
  for (long j = 0; j < r->nids; j++)
    if (w == 0 || r->ids[w - 1] != r->ids[j]) r->ids[w++] = r->ids[j];
  r->nids = w;
  if (r->nids > INT_MAX)
    return op2_mpi_say(msg, "%s: rank %d: %ld remote neighbours do not fit an MPI count", who, rank,
                       r->nids);
  /* ids are sorted, so each owner's requests are contiguous. */
  for (long j = 0; j < r->nids; j++) r->sendcount[op2_graph_owner_of(vtxdist, size, r->ids[j])]++;
  r->remote_part = op2_graph_alloc((size_t)r->nids, sizeof(int));
  if (!r->remote_part) return op2_mpi_say(msg, "%s: rank %d: out of memory", who, rank);
  return 0;
}

/* Step 2, collective: the part counts summed, the questions to their owners and the answers
 * back. 0, or -1 on every rank. */
static int ask_owners(MPI_Comm comm, const char *who, int rank, int size, int nparts,
                      const op2_sym_graph *g, const int *part, part_requests *r,
                      op2_jit_error *msg) {
  int failed =
      MPI_FAILED(MPI_Allreduce(MPI_IN_PLACE, r->count, nparts, MPI_LONG, MPI_SUM, comm), msg) ||
      MPI_FAILED(MPI_Alltoall(r->sendcount, 1, MPI_INT, r->recvcount, 1, MPI_INT, comm), msg);
  for (int q = 0; !failed && q < size; q++) {
    r->sdispl[q] = q ? r->sdispl[q - 1] + r->sendcount[q - 1] : 0;
    r->rdispl[q] = (int)r->nasked;
    r->nasked += r->recvcount[q];
    if (r->nasked > INT_MAX) break;
  }
  if (!failed && r->nasked > INT_MAX) {
    failed = op2_mpi_say(msg, "%s: rank %d: part requests do not fit an MPI count", who, rank);
  } else if (!failed) {
    r->asked = op2_graph_alloc((size_t)r->nasked, sizeof(long));
    r->answer = op2_graph_alloc((size_t)r->nasked, sizeof(int));
    if (!r->asked || !r->answer) failed = op2_mpi_say(msg, "%s: rank %d: out of memory", who, rank);
  }
  if (op2_mpi_standalone_agree(comm, failed, msg)) return -1;
  failed = MPI_FAILED(MPI_Alltoallv(r->ids, r->sendcount, r->sdispl, MPI_LONG, r->asked,
                                    r->recvcount, r->rdispl, MPI_LONG, comm),
                      msg);
  for (long j = 0; !failed && j < r->nasked; j++) r->answer[j] = part[r->asked[j] - g->first];
  failed =
      failed || MPI_FAILED(MPI_Alltoallv(r->answer, r->recvcount, r->rdispl, MPI_INT,
                                         r->remote_part, r->sendcount, r->sdispl, MPI_INT, comm),
                           msg);
  return op2_mpi_standalone_agree(comm, failed, msg);
}

/* Step 3, local: the edges this rank counts whose ends lie in different parts. */
static long local_cut(const op2_sym_graph *g, const int *part, const part_requests *r) {
  const int n = g->n;
  const long first = g->first;
  long cut = 0;
  for (int i = 0; i < n; i++)
    for (long k = g->xadj[i]; k < g->xadj[i + 1]; k++) {
      const long v = g->adj[k];
      if (v <= first + i) continue;
      int pv;
      if (v < first + n) {
        pv = part[v - first];
      } else {
        const long *at = bsearch(&v, r->ids, (size_t)r->nids, sizeof(long), op2_graph_cmp_long);
        pv = r->remote_part[at - r->ids];
      }
      cut += pv != part[i];
    }
  return cut;
}

int op2_graph_quality(MPI_Comm comm, const char *who, const long *vtxdist, const op2_sym_graph *g,
                      int nparts, const int *part, op2_partition_quality *q, op2_jit_error *msg) {
  int rank, size, rc = -1;
  if (MPI_FAILED(MPI_Comm_rank(comm, &rank), msg) || MPI_FAILED(MPI_Comm_size(comm, &size), msg))
    return -1;
  const long total = vtxdist[size];
  part_requests r = {.count = op2_graph_alloc((size_t)nparts, sizeof(long)),
                     .ids = op2_graph_alloc((size_t)g->xadj[g->n], sizeof(long)),
                     .sendcount = op2_graph_alloc((size_t)size, sizeof(int)),
                     .recvcount = op2_graph_alloc((size_t)size, sizeof(int)),
                     .sdispl = op2_graph_alloc((size_t)size, sizeof(int)),
                     .rdispl = op2_graph_alloc((size_t)size, sizeof(int))};
  int failed = count_and_ask(who, rank, size, vtxdist, g, part, &r, msg);
  if (op2_mpi_standalone_agree(comm, failed, msg) == 0 &&
      ask_owners(comm, who, rank, size, nparts, g, part, &r, msg) == 0) {
    long cut = local_cut(g, part, &r);
    if (!MPI_FAILED(MPI_Allreduce(MPI_IN_PLACE, &cut, 1, MPI_LONG, MPI_SUM, comm), msg)) {
      q->edge_cut = cut;
      q->min_part = q->max_part = r.count[0];
      for (int p = 1; p < nparts; p++) {
        if (r.count[p] < q->min_part) q->min_part = r.count[p];
        if (r.count[p] > q->max_part) q->max_part = r.count[p];
      }
      q->imbalance = total > 0 ? (double)q->max_part * nparts / (double)total : 1.0;
      rc = 0;
    }
  }
  requests_free(&r);
  return rc;
}

int op2_partition_quality_of(MPI_Comm comm, int nlocal, const long *vtxdist, const int *xadj,
                             const long *adjncy, int nparts, const int *part,
                             op2_partition_quality *q) {
  static const char who[] = "op2_partition_quality_of";
  op2_jit_error msg = {.code = OP2_OK};
  op2_sym_graph g;
  op2_partition_quality figures;
  if (op2_sym_graph_build(comm, who, nlocal, vtxdist, xadj, adjncy, nparts, part, 1, &g, &msg) != 0)
    return -1;
  const int rc = op2_graph_quality(comm, who, vtxdist, &g, nparts, part, &figures, &msg);
  op2_sym_graph_free(&g);
  if (rc == 0 && q) *q = figures;
  return rc;
}
