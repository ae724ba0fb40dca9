/* SPDX-License-Identifier: BSD-3-Clause */
/* Whether op_partition's graph partitioner would pay. A partitioner makes halos small; when the
 * declared blocks already have small halos (a mesh numbered along its geometry, as mesh
 * generators and renumbering leave it), it costs the graph, the partitioner and moving about half
 * the mesh between ranks (a large part of a distribution's time) to gain at most the
 * share of halo work the blocks leave. The measure is that share: map entries whose target lies
 * in another rank's block, against all map entries of the rank, on the rank where it is largest.
 * Blocks are kept when that share is at most OP2_PARTITION_KEEP and every set's blocks are as
 * balanced as the partitioner's parts must be. One walk of the maps and one reduction. */

#include "runtime/mpi/op2_mpi.h"
#include "runtime/mpi/ptscotch.h"
#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/options.h"
#include "runtime/mpi_state.h"
#include "runtime/mesh.h"

/* Sets smaller than this per rank are left out of the balance test: their loops cost nothing. */
enum { SMALL_SET_PER_RANK = 64 };

static double cross_share(const op2_context *ctx, const long *first) {
  int p = ctx->mpi.size, me = ctx->mpi.rank;
  double cross = 0, entries = 0;
  for (int i = 0; i < ctx->maps.count; i++) {
    op_map m = ctx->maps.items[i];
    const long *f = first + (size_t)m->to->index * (p + 1);
    long lo = f[me], hi = f[me + 1], n = (long)m->from->size * m->dim, c = 0;
    for (long k = 0; k < n; k++) {
      idx_g_t g = op2_map_gid(ctx, m, (size_t)k);
      c += g < lo || g >= hi;
    }
    cross += (double)c, entries += (double)n;
  }
  return entries > 0 ? cross / entries : 0.0;
}

static double worst_imbalance(const op2_context *ctx, const long *first) {
  int p = ctx->mpi.size;
  double worst = 1.0;
  for (int s = 0; s < ctx->sets.count; s++) {
    const long *f = first + (size_t)s * (p + 1);
    if (f[p] < (long)SMALL_SET_PER_RANK * p) continue;
    for (int q = 0; q < p; q++) {
      double imbalance = (double)(f[q + 1] - f[q]) * p / (double)f[p];
      if (imbalance > worst) worst = imbalance;
    }
  }
  return worst;
}

int op2_mpi_keep_blocks(op2_context *ctx, const long *first, const char *lib, int *keep) {
  double mine = cross_share(ctx, first), share = 0;
  OP2_CALL(OP2_MPI(MPI_Allreduce(&mine, &share, 1, MPI_DOUBLE, MPI_MAX, op2_comm(ctx))));
  double imbalance = worst_imbalance(ctx, first), limit = ctx->opt.partition_keep;
  *keep = limit > 0 && share <= limit && imbalance <= 1.0 + OP2_PARTITION_BALANCE;
  if (ctx->mpi.rank == 0)
    op2_diag(*keep ? 1 : 2,
             "op_partition %s: %s: %.3f%% of map entries reach another rank's declared block "
             "(kept up to %g%%: OP2_PARTITION_KEEP=%g), blocks' imbalance %.3f (kept up to "
             "%.3f)",
             lib,
             *keep ? "the declared blocks are kept, the partitioner is not run" : "partitioning",
             100 * share, 100 * limit, limit, imbalance, 1.0 + OP2_PARTITION_BALANCE);
  return OP2_OK;
}
