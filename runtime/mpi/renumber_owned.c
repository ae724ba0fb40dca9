/* SPDX-License-Identifier: BSD-3-Clause */
/* Locality renumbering under MPI (op_renumber, OP2_RENUMBER=on): each rank orders its own part
 * after migration and before the halo build. At that point a rank's sets are just its owned
 * elements, orig maps local -> global and map values are still global ids, so a permutation of
 * the owned rows (dats, map rows, orig) is all it takes: the halo build then puts core elements
 * first keeping this order, and translates map values to the new local indices. Renumbering after
 * the halo build would have to keep the [core | owned | exec | non-exec] segments and rewrite
 * every halo list. Targets owned by another rank are left out of the graph. */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/mpi/op2_mpi.h"
#include "runtime/context.h"
#include "runtime/distributed.h"
#include "runtime/error.h"
#include "runtime/mesh.h"

/* Every map's targets as local indices (-1: not held here). */
static int local_targets(op2_context *ctx, int **targets) {
  int ns = ctx->sets.count, rc = OP2_OK;
  op2_global_index *held = calloc((size_t)ns + 1, sizeof(op2_global_index));
  if (!held) return op2_error(OP2_ERR_MEM, "renumbering: out of memory");
  for (int s = 0; rc == OP2_OK && s < ns; s++) {
    op_set set = ctx->sets.items[s];
    rc = op2_global_index_build(&held[s], set->orig, set->size);
  }
  for (int i = 0; rc == OP2_OK && i < ctx->maps.count; i++) {
    op_map m = ctx->maps.items[i];
    size_t n = (size_t)m->from->size * (size_t)m->dim;
    if (!(targets[i] = malloc(sizeof(int) * (n + 1))))
      rc = op2_error(OP2_ERR_MEM, "renumbering: out of memory");
    for (size_t k = 0; rc == OP2_OK && k < n; k++)
      targets[i][k] = op2_global_index_find(&held[m->to->index], op2_map_gid(ctx, m, k));
  }
  for (int s = 0; s < ns; s++) op2_global_index_free(&held[s]);
  free(held);
  return rc;
}

/* Mean spread (largest - smallest local index) of the base map's rows, over rows whose targets
 * are all held here: what the renumbering shrinks. */
static double mean_spread(const op_map m, const int *t) {
  double sum = 0;
  long rows = 0;
  for (long f = 0; f < m->from->size; f++) {
    int lo = -1, hi = -1, all = 1;
    for (int c = 0; c < m->dim; c++) {
      int v = t[f * m->dim + c];
      all &= v >= 0;
      if (v >= 0 && (lo < 0 || v < lo)) lo = v;
      if (v > hi) hi = v;
    }
    if (all) sum += hi - lo, rows++;
  }
  return rows ? sum / (double)rows : 0;
}

int op2_mpi_renumber_owned(op2_context *ctx) {
  op_map base = ctx->renumber_base;
  if (!base && ctx->opt.renumber) base = op2_renumber_pick_base(ctx);
  /* every rank picks the same map: the choice is rank 0's (local sizes may differ) */
  int which = base ? base->index : -1;
  if (!ctx->renumber_base && !ctx->opt.renumber) return OP2_OK;
  OP2_CALL(op2_mpi_agree_rank0_int(ctx, &which, "renumbering"));
  ctx->renumbered = true;
  if (which < 0) return OP2_OK;
  base = ctx->maps.items[which];
  int **targets = calloc((size_t)ctx->maps.count + 1, sizeof(int *));
  int rc = targets ? local_targets(ctx, targets) : op2_error(OP2_ERR_MEM, "renumbering: oom");
  double spread[2] = {0, 0};
  if (rc == OP2_OK) spread[0] = mean_spread(base, targets[which]);
  if (rc == OP2_OK) rc = op2_renumber_local(ctx, base, targets);
  for (int i = 0; targets && i < ctx->maps.count; i++) free(targets[i]);
  free(targets);
  /* the spread after, from the permuted rows and new orig */
  if (rc == OP2_OK) {
    targets = calloc((size_t)ctx->maps.count + 1, sizeof(int *));
    rc = targets ? local_targets(ctx, targets) : op2_error(OP2_ERR_MEM, "renumbering: oom");
    if (rc == OP2_OK) spread[1] = mean_spread(base, targets[which]);
    for (int i = 0; targets && i < ctx->maps.count; i++) free(targets[i]);
    free(targets);
  }
  int p = ctx->mpi.size;
  double *all = malloc(sizeof(double) * 2 * (size_t)p);
  if (rc == OP2_OK && !all) rc = op2_error(OP2_ERR_MEM, "renumbering: out of memory");
  rc = op2_mpi_agree(ctx, rc, "renumbering");
  if (rc == OP2_OK) rc = op2_mpi_gather_doubles(ctx, spread, 2, all);
  if (rc == OP2_OK && ctx->mpi.rank == 0 && ctx->opt.diags >= 1) {
    fprintf(stderr,
            "op2: renumbered each rank's part: %s on '%s' through map '%s'; "
            "mean row spread per rank before -> after:",
            op2_renumber_method(ctx), base->to->name, base->name);
    for (int q = 0; q < p; q++) fprintf(stderr, " %.1f->%.1f", all[2 * q], all[2 * q + 1]);
    fputc('\n', stderr);
  }
  free(all);
  return rc;
}
