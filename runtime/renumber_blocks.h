/* SPDX-License-Identifier: BSD-3-Clause */
/* The element graph renumbering orders (renumber.c) and the partition-based order
 * (renumber_blocks.c, OP2_RENUMBER=blocks). */
#ifndef OP2_RUNTIME_RENUMBER_BLOCKS_H
#define OP2_RUNTIME_RENUMBER_BLOCKS_H

/* Adjacency of a set's elements (compressed rows, symmetric, no self-loops, no duplicates). */
typedef struct op2_graph {
  int n;
  int *offset; /* n+1 */
  int *adj;
} op2_graph;

/* Partition-based order: cuts the graph into `nparts` parts of about equal size (PT-Scotch's
 * SCOTCH_graphPart) and numbers each part's elements together. `order` (new -> old) comes in as
 * an order to follow within and between parts (reverse Cuthill-McKee: parts follow each other
 * in the order of their first element in it, their elements keep its order), and goes out as
 * the partition-based one. `part`, when not NULL, receives each old element's part, renumbered
 * so that parts ascend along the new order. OP2_OK, or an error set (memory, Scotch). */
int op2_renumber_blocks(const op2_graph *g, int nparts, int *order, int *part);

#endif /* OP2_RUNTIME_RENUMBER_BLOCKS_H */
