/* SPDX-License-Identifier: BSD-3-Clause */
/* Graph partitioning of a distributed graph with PT-Scotch. Pure functions of their arguments: no
 * library context, no global state, so the partitioning pipeline and its tests can call them on
 * any communicator. Every function here is collective on `comm`. */
#ifndef OP2_MPI_PTSCOTCH_H
#define OP2_MPI_PTSCOTCH_H

#include <stddef.h>

#include <mpi.h>

#include "base/base.h"

/* Allowed part weight excess over the average, for PT-Scotch's parts and for declared blocks
 * kept instead of them (keep_blocks.c). */
#define OP2_PARTITION_BALANCE 0.05

/* Quality figures of a partition, over the symmetrised graph without duplicates or self loops.
 * Identical on every rank. */
typedef struct op2_partition_quality {
  long edge_cut;           /* edges whose ends are in different parts (each undirected edge once) */
  long min_part, max_part; /* vertex counts */
  double imbalance;        /* max_part / (global_vertices / nparts); 1.0 for an empty graph */
} op2_partition_quality;

/* k-way partition of a distributed graph with PT-Scotch; the same input gives the same partition.
 * Rank r holds vertices [vtxdist[r], vtxdist[r+1]) (vtxdist has comm-size + 1 entries, starts at
 * 0 and is the same on every rank); local vertex v is global vertex vtxdist[r] + v. Its neighbours
 * are adjncy[xadj[v] .. xadj[v+1]) as GLOBAL numbers. An edge may be given at one end only, twice,
 * or as a self loop: the graph is symmetrised and cleaned first. part[v] gets a value in
 * [0, nparts). `check_graph` (rank 0's value counts): Scotch also checks its distributed graph,
 * which costs a walk of the graph with communication (OP2_PTSCOTCH_CHECK). `q` may be NULL.
 * Returns 0, or -1 on every rank with the same failure in *err (which may be NULL). Never
 * aborts. */
int op2_ptscotch_kway(MPI_Comm comm, int nlocal, const long *vtxdist, const int *xadj,
                      const long *adjncy, int nparts, int check_graph, int *part,
                      op2_partition_quality *q, op2_jit_error *err);

/* The quality figures of any given partition (e.g. the BLOCK one), same graph conventions.
 * Returns 0, or -1 on every rank when the input is invalid (a part out of range, ...). */
int op2_partition_quality_of(MPI_Comm comm, int nlocal, const long *vtxdist, const int *xadj,
                             const long *adjncy, int nparts, const int *part,
                             op2_partition_quality *q);

#endif
