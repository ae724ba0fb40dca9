/* SPDX-License-Identifier: BSD-3-Clause */
/* Partition-based locality order (OP2_RENUMBER=blocks), after OP2's GPU locality work: the
 * primary set is cut into small parts of neighbouring elements (Scotch's serial graph
 * partitioner, which the PT-Scotch library carries) and each part is numbered together. The other
 * sets follow through the maps as for the plain renumbering (renumber.c), so the elements of a
 * loop over edges come in runs that touch one part's nodes: a plan's mini-partition of
 * consecutive elements then reads and writes a compact group of nodes (one block of a GPU loop
 * stages fewer, denser rows) where reverse Cuthill-McKee alone gives long thin wavefronts.
 * Parts are taken in the order of their first element in the reverse Cuthill-McKee order, and
 * each keeps that order inside, so neighbouring parts stay near each other too. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <scotch.h>

#include "runtime/error.h"
#include "runtime/renumber_blocks.h"

/* Repeatable parts: Scotch's deterministic mode with a fixed seed, on the calling thread only
 * (left alone it starts a thread per core and pins them, crowding other processes). */
#define OP2_BLOCKS_SEED 20261126

static int scotch_parts(const op2_graph *g, int nparts, SCOTCH_Num *part) {
  SCOTCH_Graph graph, bound;
  SCOTCH_Context context;
  SCOTCH_Strat strat;
  int rc = OP2_OK, have_graph = 0, have_context = 0, have_bound = 0, have_strat = 0;
  if (SCOTCH_graphInit(&graph) != 0)
    return op2_error(OP2_ERR_STATE, "OP2_RENUMBER=blocks: SCOTCH_graphInit failed");
  have_graph = 1;
  if (SCOTCH_graphBuild(&graph, 0, g->n, g->offset, g->offset + 1, NULL, NULL, g->offset[g->n],
                        g->adj, NULL) != 0)
    rc = op2_error(OP2_ERR_STATE,
                   "OP2_RENUMBER=blocks: SCOTCH_graphBuild rejected the element graph (%d "
                   "elements, %d links; Scotch's message is on stderr)",
                   g->n, g->offset[g->n]);
  if (rc == OP2_OK && SCOTCH_contextInit(&context) == 0) have_context = 1;
  if (rc == OP2_OK &&
      (!have_context || SCOTCH_contextThreadImport1(&context, 1) != 0 ||
       SCOTCH_contextThreadImport2(&context, 0) != 0 || SCOTCH_contextRandomClone(&context) != 0 ||
       SCOTCH_contextOptionSetNum(&context, SCOTCH_OPTIONNUMDETERMINISTIC, 1) != 0 ||
       SCOTCH_contextOptionSetNum(&context, SCOTCH_OPTIONNUMRANDOMFIXEDSEED, 1) != 0))
    rc = op2_error(OP2_ERR_STATE,
                   "OP2_RENUMBER=blocks: cannot set up a deterministic Scotch context");
  if (rc == OP2_OK) SCOTCH_contextRandomSeed(&context, OP2_BLOCKS_SEED);
  if (rc == OP2_OK && SCOTCH_graphInit(&bound) == 0) have_bound = 1;
  if (rc == OP2_OK && (!have_bound || SCOTCH_contextBindGraph(&context, &graph, &bound) != 0))
    rc = op2_error(OP2_ERR_STATE, "OP2_RENUMBER=blocks: SCOTCH_contextBindGraph failed");
  if (rc == OP2_OK && SCOTCH_stratInit(&strat) == 0) have_strat = 1;
  /* Balance within 10%: a part a little larger than its plan blocks costs one block more now and
   * then; the cut is what matters. */
  if (rc == OP2_OK &&
      (!have_strat || SCOTCH_stratGraphMapBuild(&strat, SCOTCH_STRATSPEED, nparts, 0.1) != 0))
    rc = op2_error(OP2_ERR_STATE, "OP2_RENUMBER=blocks: SCOTCH_stratGraphMapBuild failed");
  if (rc == OP2_OK && SCOTCH_graphPart(&bound, nparts, &strat, part) != 0)
    rc = op2_error(OP2_ERR_STATE,
                   "OP2_RENUMBER=blocks: SCOTCH_graphPart failed cutting %d elements into %d "
                   "parts (Scotch's message is on stderr)",
                   g->n, nparts);
  if (have_strat) SCOTCH_stratExit(&strat);
  if (have_bound) SCOTCH_graphExit(&bound);
  if (have_context) SCOTCH_contextExit(&context);
  if (have_graph) SCOTCH_graphExit(&graph);
  return rc;
}

int op2_renumber_blocks(const op2_graph *g, int nparts, int *order, int *part_out) {
  int n = g->n;
  if (nparts > n) nparts = n;
  if (nparts < 1) nparts = 1;
  SCOTCH_Num *part = malloc(sizeof(SCOTCH_Num) * ((size_t)n + 1));
  int *rank_of_part = malloc(sizeof(int) * ((size_t)nparts + 1));
  int *start = calloc((size_t)nparts + 2, sizeof(int));
  int *in = malloc(sizeof(int) * ((size_t)n + 1));
  int rc = part && rank_of_part && start && in ? OP2_OK
                                               : op2_error(OP2_ERR_MEM,
                                                           "OP2_RENUMBER=blocks: out "
                                                           "of memory");
  if (rc == OP2_OK && nparts > 1) rc = scotch_parts(g, nparts, part);
  if (rc == OP2_OK && nparts == 1)
    for (int v = 0; v < n; v++) part[v] = 0;
  for (int v = 0; rc == OP2_OK && v < n; v++)
    if (part[v] < 0 || part[v] >= nparts)
      rc = op2_error(OP2_ERR_STATE, "OP2_RENUMBER=blocks: Scotch gave element %d part %d of %d", v,
                     (int)part[v], nparts);
  if (rc == OP2_OK) {
    /* parts ranked by their first element along `order`; empty parts get no rank */
    int ranked = 0;
    for (int p = 0; p < nparts; p++) rank_of_part[p] = -1;
    for (int i = 0; i < n; i++)
      if (rank_of_part[part[order[i]]] < 0) rank_of_part[part[order[i]]] = ranked++;
    /* counting sort by part rank, stable along `order` */
    for (int v = 0; v < n; v++) start[rank_of_part[part[v]] + 1]++;
    for (int r = 0; r < ranked; r++) start[r + 1] += start[r];
    for (int i = 0; i < n; i++) in[start[rank_of_part[part[order[i]]]]++] = order[i];
    for (int i = 0; i < n; i++) order[i] = in[i];
    if (part_out)
      for (int v = 0; v < n; v++) part_out[v] = rank_of_part[part[v]];
  }
  free(part), free(rank_of_part), free(start), free(in);
  return rc;
}
