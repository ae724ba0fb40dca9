/* SPDX-License-Identifier: BSD-3-Clause */
/* k-way partitioning of a distributed graph with PT-Scotch: the graph checked and symmetrised
 * (graph_sym.c), partitioned here in Scotch's steps, and measured (graph_quality.c). Everything
 * here is collective: each function either succeeds on every rank or fails on every rank with
 * the same message (the lowest failing rank's), so callers never hang in a later collective after
 * a one-rank error. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_getaffinity_np when built outside the project's flags */
#endif

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

/* Scotch's header first: ours has the same file name, and an -I to runtime/mpi must not hide it. */
#include <ptscotch.h>

#include "runtime/mpi/ptscotch.h"
#include "runtime/mpi/graph_sym.h"
#include "runtime/mpi/standalone_message.h"

/* Partitions must not depend on the run, the rank count being equal: one seed for every call. */
#define OP2_SCOTCH_SEED 20240601

#define MPI_FAILED OP2_MPI_FAILED

/* One call of Scotch: its arrays (the symmetrised graph in SCOTCH_Num), its private communicator
 * and the objects set up so far, released by scotch_release in reverse order. */
typedef struct scotch_run {
  MPI_Comm comm; /* a private one: Scotch's point-to-point messages cannot meet the caller's */
  SCOTCH_Num *vert, *edge, *parttab;
  SCOTCH_Dgraph graph, bound;
  SCOTCH_Context context;
  SCOTCH_Strat strat;
  int have_comm, have_graph, have_context, have_bound, have_strat;
} scotch_run;

static void scotch_release(scotch_run *s, op2_jit_error *msg) {
  if (s->have_strat) SCOTCH_stratExit(&s->strat);
  if (s->have_bound) SCOTCH_dgraphExit(&s->bound);
  if (s->have_context) SCOTCH_contextExit(&s->context);
  if (s->have_graph) SCOTCH_dgraphExit(&s->graph);
  if (s->have_comm) MPI_FAILED(MPI_Comm_free(&s->comm), msg);
  free(s->vert);
  free(s->edge);
  free(s->parttab);
}

/* Step 1: the graph in Scotch's numbers, when it fits them (the same answer on every rank, so
 * no agreement is needed for that). 0, or -1 on every rank. */
static int scotch_arrays(MPI_Comm comm, const char *who, int rank, const long *vtxdist, int size,
                         const op2_sym_graph *g, int nparts, scotch_run *s, op2_jit_error *msg) {
  const int n = g->n;
  const long arcs = g->xadj[n];
  long all_arcs = arcs;
  if (MPI_FAILED(MPI_Allreduce(MPI_IN_PLACE, &all_arcs, 1, MPI_LONG, MPI_SUM, comm), msg))
    return -1;
  if (vtxdist[size] > (long)SCOTCH_NUMMAX || all_arcs > (long)SCOTCH_NUMMAX ||
      nparts > SCOTCH_NUMMAX) {
    op2_mpi_say(msg,
                "%s: the graph (%ld vertices, %ld arcs after symmetrisation) does not fit "
                "PT-Scotch's %d-bit SCOTCH_Num",
                who, vtxdist[size], all_arcs, (int)(8 * sizeof(SCOTCH_Num)));
    return -1;
  }
  int failed = 0;
  s->vert = op2_graph_alloc((size_t)n + 1, sizeof(SCOTCH_Num));
  s->edge = op2_graph_alloc((size_t)arcs, sizeof(SCOTCH_Num));
  s->parttab = op2_graph_alloc((size_t)n, sizeof(SCOTCH_Num));
  if (!s->vert || !s->edge || !s->parttab) {
    failed = op2_mpi_say(msg, "%s: rank %d: out of memory", who, rank);
  } else {
    for (int i = 0; i <= n; i++) s->vert[i] = (SCOTCH_Num)g->xadj[i];
    for (long k = 0; k < arcs; k++) s->edge[k] = (SCOTCH_Num)g->adj[k];
  }
  if (op2_mpi_standalone_agree(comm, failed, msg)) return -1;
  if (op2_mpi_standalone_agree(comm, MPI_FAILED(MPI_Comm_dup(comm, &s->comm), msg), msg)) return -1;
  s->have_comm = 1;
  return 0;
}

/* Step 2: Scotch's distributed graph, checked when asked. 0, or -1 on every rank. */
static int scotch_graph(MPI_Comm comm, const char *who, int rank, const op2_sym_graph *g, int check,
                        scotch_run *s, op2_jit_error *msg) {
  const int n = g->n;
  const long arcs = g->xadj[n];
  int failed = 0;
  if (SCOTCH_dgraphInit(&s->graph, s->comm) != 0)
    failed = op2_mpi_say(msg, "%s: rank %d: SCOTCH_dgraphInit failed", who, rank);
  else
    s->have_graph = 1;
  if (op2_mpi_standalone_agree(comm, failed, msg)) return -1;
  if (SCOTCH_dgraphBuild(&s->graph, 0, n, n, s->vert, s->vert + 1, NULL, NULL, (SCOTCH_Num)arcs,
                         (SCOTCH_Num)arcs, s->edge, NULL, NULL) != 0)
    failed = op2_mpi_say(
        msg, "%s: rank %d: SCOTCH_dgraphBuild failed (Scotch's own message is on stderr)", who,
        rank);
  if (op2_mpi_standalone_agree(comm, failed, msg)) return -1;
  if (check && SCOTCH_dgraphCheck(&s->graph) != 0)
    failed = op2_mpi_say(msg, "%s: rank %d: SCOTCH_dgraphCheck rejected the symmetrised graph", who,
                         rank);
  return op2_mpi_standalone_agree(comm, failed, msg);
}

/* Step 3, repeatability: a context of our own with its own random generator, reseeded to a
 * constant, and Scotch's deterministic mode (no schedule-dependent choices). The calling thread
 * is its only thread: left alone, Scotch spawns one thread per core it may use and pins them and
 * the caller to cores, so every rank of a launch without binding would crowd onto the same
 * cores. The graph is bound to the context. 0, or -1 on every rank. */
static int scotch_context(MPI_Comm comm, const char *who, int rank, scotch_run *s,
                          op2_jit_error *msg) {
  int failed = 0;
  if (SCOTCH_contextInit(&s->context) != 0) {
    failed = op2_mpi_say(msg, "%s: rank %d: SCOTCH_contextInit failed", who, rank);
  } else {
    s->have_context = 1;
    SCOTCH_Context *c = &s->context;
    if (SCOTCH_contextThreadImport1(c, 1) != 0 || SCOTCH_contextThreadImport2(c, 0) != 0 ||
        SCOTCH_contextRandomClone(c) != 0 ||
        SCOTCH_contextOptionSetNum(c, SCOTCH_OPTIONNUMDETERMINISTIC, 1) != 0 ||
        SCOTCH_contextOptionSetNum(c, SCOTCH_OPTIONNUMRANDOMFIXEDSEED, 1) != 0)
      failed =
          op2_mpi_say(msg, "%s: rank %d: cannot set up a deterministic Scotch context", who, rank);
    else
      SCOTCH_contextRandomSeed(c, OP2_SCOTCH_SEED);
  }
  if (op2_mpi_standalone_agree(comm, failed, msg)) return -1;
  if (SCOTCH_dgraphInit(&s->bound, s->comm) != 0) {
    failed = op2_mpi_say(msg, "%s: rank %d: SCOTCH_dgraphInit failed", who, rank);
  } else {
    s->have_bound = 1;
    if (SCOTCH_contextBindDgraph(&s->context, &s->graph, &s->bound) != 0)
      failed = op2_mpi_say(msg, "%s: rank %d: SCOTCH_contextBindDgraph failed", who, rank);
  }
  return op2_mpi_standalone_agree(comm, failed, msg);
}

/* Step 4: the strategy (quality, OP2_PARTITION_BALANCE) and the partition itself, checked and
 * copied into part. 0, or -1 on every rank. */
static int scotch_run_part(MPI_Comm comm, const char *who, int rank, int size, int n, int nparts,
                           int *part, scotch_run *s, op2_jit_error *msg) {
  int failed = 0;
  if (SCOTCH_stratInit(&s->strat) != 0) {
    failed = op2_mpi_say(msg, "%s: rank %d: SCOTCH_stratInit failed", who, rank);
  } else {
    s->have_strat = 1;
    if (SCOTCH_stratDgraphMapBuild(&s->strat, SCOTCH_STRATQUALITY, size, nparts,
                                   OP2_PARTITION_BALANCE) != 0)
      failed = op2_mpi_say(msg, "%s: rank %d: SCOTCH_stratDgraphMapBuild failed", who, rank);
  }
  if (op2_mpi_standalone_agree(comm, failed, msg)) return -1;
  if (SCOTCH_dgraphPart(&s->bound, nparts, &s->strat, s->parttab) != 0) {
    failed = op2_mpi_say(
        msg, "%s: rank %d: SCOTCH_dgraphPart failed (Scotch's own message is on stderr)", who,
        rank);
  } else {
    for (int i = 0; i < n; i++) {
      if (s->parttab[i] < 0 || s->parttab[i] >= nparts) {
        failed = op2_mpi_say(msg, "%s: rank %d: SCOTCH_dgraphPart gave part %ld to local vertex %d",
                             who, rank, (long)s->parttab[i], i);
        break;
      }
      part[i] = (int)s->parttab[i];
    }
  }
  return op2_mpi_standalone_agree(comm, failed, msg);
}

/* Collective: PT-Scotch on the symmetrised graph. Each Scotch step's outcome is agreed on before
 * the next, so a step failing on one rank cannot leave the others waiting inside Scotch. */
static int scotch_part(MPI_Comm comm, const char *who, const long *vtxdist, const op2_sym_graph *g,
                       int nparts, int check_graph, int *part, op2_jit_error *msg) {
  int rank, size, rc = -1;
  if (MPI_FAILED(MPI_Comm_rank(comm, &rank), msg) || MPI_FAILED(MPI_Comm_size(comm, &size), msg))
    return -1;
  scotch_run s = {.comm = MPI_COMM_NULL};
  if (scotch_arrays(comm, who, rank, vtxdist, size, g, nparts, &s, msg) == 0) {
    /* The check walks the whole graph with communication: only when asked for, decided by rank
     * 0 so that every rank makes the same call sequence. */
    int check = rank == 0 && check_graph;
    MPI_Bcast(&check, 1, MPI_INT, 0, comm);
    if (scotch_graph(comm, who, rank, g, check, &s, msg) == 0 &&
        scotch_context(comm, who, rank, &s, msg) == 0)
      rc = scotch_run_part(comm, who, rank, size, g->n, nparts, part, &s, msg);
  }
  scotch_release(&s, msg);
  return rc;
}

int op2_ptscotch_kway(MPI_Comm comm, int nlocal, const long *vtxdist, const int *xadj,
                      const long *adjncy, int nparts, int check_graph, int *part,
                      op2_partition_quality *q, op2_jit_error *err) {
  static const char who[] = "op2_ptscotch_kway";
  op2_jit_error msg = {.code = OP2_OK};
  op2_sym_graph g;
  if (err) *err = msg;
  if (op2_sym_graph_build(comm, who, nlocal, vtxdist, xadj, adjncy, nparts, part, 0, &g, &msg) !=
      0) {
    if (err) *err = msg;
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
    rc = scotch_part(comm, who, vtxdist, &g, nparts, check_graph, part, &msg);
  }
  if (have_affinity) pthread_setaffinity_np(pthread_self(), sizeof affinity, &affinity);

  if (rc == 0 && q) rc = op2_graph_quality(comm, who, vtxdist, &g, nparts, part, q, &msg);
  op2_sym_graph_free(&g);
  if (rc && err) *err = msg;
  return rc;
}
