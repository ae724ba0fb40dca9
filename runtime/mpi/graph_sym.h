/* SPDX-License-Identifier: BSD-3-Clause */
/* The distributed graph as the graph partitioner takes it (ptscotch.h's conventions: vtxdist,
 * xadj, adjncy in global numbers), checked and symmetrised once (graph_sym.c), then partitioned
 * (ptscotch.c) and measured (graph_quality.c). Private to those three files, which build alone
 * for their test (t400): no library context, collective on `comm`, failures in an op2_jit_error
 * agreed on every rank (standalone_message.h). */
#ifndef OP2_MPI_GRAPH_SYM_H
#define OP2_MPI_GRAPH_SYM_H

#include <stddef.h>

#include <mpi.h>

#include "base/base.h"
#include "runtime/mpi/ptscotch.h"

/* The symmetrised local graph: rows sorted, no duplicates, no self loops, global neighbours. */
typedef struct op2_sym_graph {
  int n;
  long first; /* global number of local vertex 0 */
  long *xadj; /* n + 1 offsets */
  long *adj;
} op2_sym_graph;

/* Checks the arguments on every rank (parts too with `check_part_values`), then symmetrises:
 * every arc u->v of the input yields u->v at u's owner and v->u at v's owner, rows sorted and
 * without duplicates, so the result does not depend on the order or repetition of the edges.
 * `who` names the caller in messages. 0, or -1 on every rank with the same message in *msg. */
int op2_sym_graph_build(MPI_Comm comm, const char *who, int nlocal, const long *vtxdist,
                        const int *xadj, const long *adjncy, int nparts, const int *part,
                        int check_part_values, op2_sym_graph *g, op2_jit_error *msg);
void op2_sym_graph_free(op2_sym_graph *g);

/* The quality figures of `part` on the symmetrised graph (graph_quality.c). 0, or -1 on every
 * rank with the same message in *msg. */
int op2_graph_quality(MPI_Comm comm, const char *who, const long *vtxdist, const op2_sym_graph *g,
                      int nparts, const int *part, op2_partition_quality *q, op2_jit_error *msg);

/* calloc that never reads as a failure for 0 elements (an empty rank). */
void *op2_graph_alloc(size_t count, size_t size);
/* The rank whose block of vtxdist holds global vertex g. */
int op2_graph_owner_of(const long *vtxdist, int size, long g);
/* qsort's order of longs. */
int op2_graph_cmp_long(const void *a, const void *b);

#endif /* OP2_MPI_GRAPH_SYM_H */
