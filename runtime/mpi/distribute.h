/* SPDX-License-Identifier: BSD-3-Clause */
/* The distribution's steps, as distribute.c runs them, one file each (runtime/mpi only):
 *   declaration.c      how the program declared (each rank its block, or the whole mesh
 *                      everywhere, cut down to blocks): op2_mpi_prepare, in op2_mpi.h
 *   holders.c          who declared each global index, and lookups in the holders' tables
 *   primary_graph.c    the graph of the primary set, in the declared distribution
 *   partitioners.c     the primary set's parts: PT-Scotch, coordinate bisection, both
 *                      (GEOMKWAY), or the program's
 *   partition_report.c the partition's quality figures and report (OP2_DIAGS)
 *   owners.c           every element's owner: the primary set's parts, then the other sets
 *                      through the maps
 *   migrate.c          every element moved to its owner, one array at a time
 *   halo_build.c       the halos (op2_halo_build)
 * Every function here is collective: each rank calls it with its status so far, and local
 * failures reach the next agreement, never an early return on one rank alone. */
#ifndef OP2_MPI_DISTRIBUTE_H
#define OP2_MPI_DISTRIBUTE_H

#include "runtime/mpi/op2_mpi.h"
#include "runtime/mpi/ptscotch.h"

/* ---- holders.c ---- */
/* Who declared each global index of each set: p+1 first global indices per set (by set index),
 * from the declared blocks. */
typedef struct op2_holders {
  long *first;
} op2_holders;
int op2_holders_init(op2_context *ctx, op2_holders *h);
/* The rank that declared global index g of `set`. */
int op2_holder_of(const op2_holders *h, int p, op_set set, long g);
/* answers[i] = what rank dest[i] holds for keys[i] in its table (table[key - first], the table
 * and first of the rank asked). The questions keep their order within each rank. */
int op2_holders_lookup(op2_context *ctx, int status, long n, const long *keys, const int *dest,
                       const long *table, long first, long *answers);

/* Two global ids (an element and its neighbour, a target and its source, ...), and their order
 * (first, then second). */
typedef struct op2_pair {
  long a, b;
} op2_pair;
int op2_pair_cmp(const void *x, const void *y);

/* ---- primary_graph.c ---- */
/* The local rows (in global numbering) of the primary set's graph through map pm. */
int op2_primary_graph(op2_context *ctx, const op2_holders *h, op_set prime, op_map pm, int **xadj,
                      long **adjncy);
/* The graph numbered from 0, as PT-Scotch takes it (Debian's SCOTCH_Num is 32 bits) and the
 * figures read it, whatever base the global ids start from (OP2_TEST_ID_BASE): vtxdist (p+1
 * entries) from the declared holders, adjncy shifted in place. Local. */
void op2_graph_from_zero(const op2_context *ctx, const op2_holders *h, op_set prime,
                         const int *xadj, long *adjncy, long *vtxdist);

/* ---- partitioners.c ---- */
/* A partition's figures for the report: computed by PT-Scotch's step while it has the graph. */
typedef struct op2_part_figures {
  int known;
  op2_partition_quality q, qb; /* the partition's, the declared blocks' */
} op2_part_figures;
/* The primary set's parts (one per rank, each element's rank in part[]) by the spec's method;
 * with `fig`, the report's figures where the partitioner has them. */
int op2_partition_parts(op2_context *ctx, const op2_holders *h, const op2_partition_spec *spec,
                        int *part, op2_part_figures *fig);

/* ---- partition_report.c ---- */
/* The declared blocks' figures on the graph (each rank's elements its own part). */
int op2_block_figures(op2_context *ctx, op_set prime, const long *vtxdist, const int *xadj,
                      const long *adjncy, op2_partition_quality *qb);
/* OP2_DIAGS: the partition's figures and rank 0's line about them. */
int op2_partition_report(op2_context *ctx, const op2_holders *h, const op2_partition_spec *spec,
                         const int *part, double seconds, const op2_part_figures *known);

/* ---- owners.c ---- */
/* Every element's owner (owner[set index][element], malloc'ed), by the spec. */
int op2_partition_owners(op2_context *ctx, const op2_holders *h, const op2_partition_spec *spec,
                         int **owner);

/* ---- migrate.c ---- */
/* The set's elements moved to their owners, with `status` the caller's so far. */
int op2_migrate_set(op2_context *ctx, int status, op_set set, const int *owner);

/* ---- halo_build.c ---- */
int op2_halo_build(op2_context *ctx);

#endif /* OP2_MPI_DISTRIBUTE_H */
