/* SPDX-License-Identifier: BSD-3-Clause */
/* The partitioning's third step: what the partition is worth, reported at OP2_DIAGS (edge cut,
 * part sizes and imbalance beside the declared blocks' cut). PT-Scotch's figures come from its
 * own graph (partitioners.c); the others' from the report map's rows, or from the primary graph
 * built for the purpose. Collective. */
#include <stdlib.h>

#include "runtime/mpi/distribute.h"
#include "runtime/error.h"
#include "runtime/options.h"

int op2_block_figures(op2_context *ctx, op_set prime, const long *vtxdist, const int *xadj,
                      const long *adjncy, op2_partition_quality *qb) {
  int *block = malloc(sizeof(int) * ((size_t)prime->size + 1));
  int rc = block ? OP2_OK : op2_error(OP2_ERR_MEM, "partitioning: out of memory");
  rc = op2_mpi_agree(ctx, rc, "partitioning");
  for (int v = 0; rc == OP2_OK && v < prime->size; v++) block[v] = ctx->mpi.rank;
  if (rc == OP2_OK && op2_partition_quality_of(op2_comm(ctx), prime->size, vtxdist, xadj, adjncy,
                                               ctx->mpi.size, block, qb) != 0)
    rc = op2_error(OP2_ERR_STATE, "partitioning: the declared blocks' figures failed");
  free(block);
  return rc;
}

/* The report's figures from an arity-2 map onto the partitioned set, whose rows are the graph's
 * edges (OP2's edge-to-node or edge-to-cell map): a row is cut when its two ends land on
 * different ranks (or, for the declared blocks, are held by different ranks); a row linking an
 * element to itself is no edge. One exchange, for the parts of the ends other ranks declared,
 * instead of building and symmetrising the graph. Collective. */
static int map_figures(op2_context *ctx, const op2_holders *h, op_set prime, op_map pm,
                       const int *part, op2_part_figures *fig) {
  /* Rows go in rounds of at most this many, so that the lookup's buffers stay small beside the
   * mesh (all rows at once took as much memory as the map, more than the migration that follows).
   */
  enum { ROWS_PER_ROUND = 1 << 17 };
  const int p = ctx->mpi.size;
  const long rows = pm->from->size, chunk = 2L * ROWS_PER_ROUND;
  long *keys = malloc(sizeof(long) * (size_t)chunk), *ends = malloc(sizeof(long) * (size_t)chunk);
  long *table = malloc(sizeof(long) * ((size_t)prime->size + 1));
  long *count = calloc((size_t)p + 2, sizeof(long));
  int *dest = malloc(sizeof(int) * (size_t)chunk);
  int rc = keys && ends && table && count && dest
               ? OP2_OK
               : op2_error(OP2_ERR_MEM, "partitioning: out of memory");
  for (int v = 0; rc == OP2_OK && v < prime->size; v++) table[v] = part[v], count[part[v]]++;
  long rounds = (rows + ROWS_PER_ROUND - 1) / ROWS_PER_ROUND; /* every rank runs the most */
  int mpi_rc = OP2_MPI(MPI_Allreduce(MPI_IN_PLACE, &rounds, 1, MPI_LONG, MPI_MAX, op2_comm(ctx)));
  if (rc == OP2_OK) rc = mpi_rc;
  for (long round = 0; mpi_rc == OP2_OK && round < rounds; round++) {
    long r0 = round * ROWS_PER_ROUND, r1 = r0 + ROWS_PER_ROUND < rows ? r0 + ROWS_PER_ROUND : rows;
    long n = r1 > r0 ? 2 * (r1 - r0) : 0;
    for (long k = 0; rc == OP2_OK && k < n; k++)
      keys[k] = op2_map_gid(ctx, pm, (size_t)(2 * r0 + k)),
      dest[k] = op2_holder_of(h, p, prime, keys[k]);
    rc = op2_holders_lookup(ctx, rc, rc == OP2_OK ? n : 0, keys, dest, table, prime->decl_first,
                            ends);
    for (long r = 0; rc == OP2_OK && r < n / 2; r++) {
      if (keys[2 * r] == keys[2 * r + 1]) continue;
      count[p] += ends[2 * r] != ends[2 * r + 1];
      count[p + 1] += dest[2 * r] != dest[2 * r + 1];
    }
  }
  if (rc == OP2_OK)
    rc = OP2_MPI(MPI_Allreduce(MPI_IN_PLACE, count, p + 2, MPI_LONG, MPI_SUM, op2_comm(ctx)));
  if (rc == OP2_OK) {
    fig->q.edge_cut = count[p], fig->qb.edge_cut = count[p + 1];
    fig->q.min_part = fig->q.max_part = count[0];
    for (int q = 1; q < p; q++) {
      if (count[q] < fig->q.min_part) fig->q.min_part = count[q];
      if (count[q] > fig->q.max_part) fig->q.max_part = count[q];
    }
    fig->q.imbalance =
        prime->global_size > 0 ? (double)fig->q.max_part * p / (double)prime->global_size : 1.0;
    fig->known = 1;
  }
  free(keys), free(ends), free(table), free(count), free(dest);
  return rc;
}

static const char *method_name(op2_part_method m) {
  switch (m) {
    case OP2_PART_PTSCOTCH:
      return "PT-Scotch k-way";
    case OP2_PART_GEOMETRIC:
      return "recursive coordinate bisection";
    case OP2_PART_EXTERNAL:
      return "the program's partition";
    default:
      return "declared blocks";
  }
}

/* OP2_DIAGS: the partition's figures on the graph of the report map: edge cut (element pairs the
 * map links that land on different ranks, each once), part sizes and imbalance, beside the
 * declared blocks' cut. PT-Scotch's at OP2_DIAGS=1 (as before, computed on its graph), the
 * others' at 2: their graph is built only for this. Collective. */
int op2_partition_report(op2_context *ctx, const op2_holders *h, const op2_partition_spec *spec,
                         const int *part, double seconds, const op2_part_figures *known) {
  const char *ran = method_name(spec->method);
  op_set prime = spec->prime;
  op_map pm = spec->prime_map;
  int level = spec->method == OP2_PART_PTSCOTCH ? 1 : 2;
  if (ctx->opt.diags < level) return OP2_OK;
  int me = ctx->mpi.rank;
  if (!pm) {
    if (me == 0)
      op2_diag(level, "op_partition %s: %s of set '%s' (%d parts) in %.3f s (no map: no edge cut)",
               spec->asked, ran, prime->name, ctx->mpi.size, seconds);
    return OP2_OK;
  }
  op2_part_figures fig = *known;
  int rc = OP2_OK;
  if (!fig.known && pm->to == prime && pm->dim == 2)
    rc = map_figures(ctx, h, prime, pm, part, &fig);
  if (!fig.known && rc == OP2_OK) {
    int *xadj = NULL;
    long *adjncy = NULL;
    long vtxdist[ctx->mpi.size + 1];
    rc = op2_primary_graph(ctx, h, prime, pm, &xadj, &adjncy);
    if (rc == OP2_OK) op2_graph_from_zero(ctx, h, prime, xadj, adjncy, vtxdist);
    rc = op2_mpi_agree(ctx, rc, "partitioning");
    if (rc == OP2_OK && op2_partition_quality_of(op2_comm(ctx), prime->size, vtxdist, xadj, adjncy,
                                                 ctx->mpi.size, part, &fig.q) != 0)
      rc = op2_error(OP2_ERR_STATE, "op_partition %s: the partition's figures failed", spec->asked);
    rc = op2_mpi_agree(ctx, rc, "partitioning");
    if (rc == OP2_OK) rc = op2_block_figures(ctx, prime, vtxdist, xadj, adjncy, &fig.qb);
    free(xadj), free(adjncy);
  }
  if (rc == OP2_OK && me == 0)
    op2_diag(level,
             "partition of '%s' (%s: %s, %d parts) in %.3f s: edge cut %ld (declared blocks: "
             "%ld) on map '%s', parts %ld..%ld elements, imbalance %.3f",
             prime->name, spec->asked, ran, ctx->mpi.size, seconds, fig.q.edge_cut, fig.qb.edge_cut,
             pm->name, fig.q.min_part, fig.q.max_part, fig.q.imbalance);
  return rc;
}
