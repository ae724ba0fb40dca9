/* SPDX-License-Identifier: BSD-3-Clause */
/* Locality renumbering under MPI (op_renumber, OP2_RENUMBER=on, or auto where the rank's part is
 * big and badly numbered: renumber_auto.c): each rank orders its own part
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
#include "runtime/renumber_auto.h"

/* Map `only`'s targets (-1: every map's) as local indices (-1: not held here), into targets[i]
 * for each map i not already there. */
static int local_targets(op2_context *ctx, int **targets, int only) {
  int ns = ctx->sets.count, rc = OP2_OK;
  op2_global_index *held = calloc((size_t)ns + 1, sizeof(op2_global_index));
  char *built = calloc((size_t)ns + 1, 1);
  if (!held || !built) return free(held), free(built), op2_error(OP2_ERR_MEM, "renumbering: oom");
  for (int i = 0; rc == OP2_OK && i < ctx->maps.count; i++) {
    op_map m = ctx->maps.items[i];
    if ((only >= 0 && i != only) || targets[i]) continue;
    op_set to = m->to;
    if (!built[to->index]) rc = op2_global_index_build(&held[to->index], to->orig, to->size);
    built[to->index] = 1;
    size_t n = (size_t)m->from->size * (size_t)m->dim;
    if (rc == OP2_OK && !(targets[i] = malloc(sizeof(int) * (n + 1))))
      rc = op2_error(OP2_ERR_MEM, "renumbering: out of memory");
    for (size_t k = 0; rc == OP2_OK && k < n; k++)
      targets[i][k] = op2_global_index_find(&held[to->index], op2_map_gid(ctx, m, k));
  }
  for (int s = 0; s < ns; s++)
    if (built[s]) op2_global_index_free(&held[s]);
  free(held), free(built);
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

/* Rank 0's lines at OP2_DIAGS=1 from every rank's figures (`all`: 5 a rank, as `spread` below):
 * under auto each rank's measure and decision, then the row spread before and after of the
 * ranks that renumbered. Each line is built whole and said once, through op2_diag. */
static void report(op2_context *ctx, op_map base, bool automatic, const double *all) {
  if (ctx->opt.diags < 1) return;
  int p = ctx->mpi.size;
  op2_buf b = {0};
  if (automatic) {
    op2_buf_printf(&b,
                   "OP2_RENUMBER=auto on each rank's part of '%s' through map '%s' (renumbered "
                   "above %.0f MB of dats and %.0f%% of targets far from the row before's); per "
                   "rank MB, far %%, decision:",
                   base->to->name, base->name, OP2_AUTO_MIN_BYTES / (1024.0 * 1024),
                   100 * OP2_AUTO_FAR);
    for (int q = 0; q < p; q++) {
      op2_buf_printf(&b, " %.1f", all[5 * q + 2] / (1024.0 * 1024));
      if (all[5 * q + 3] >= 0) op2_buf_printf(&b, " %.1f%%", 100 * all[5 * q + 3]);
      op2_buf_printf(&b, " %s", all[5 * q + 4] != 0 ? "renumber" : "keep");
    }
    if (b.data) op2_diag(1, "%s", b.data);
    op2_buf_free(&b);
  }
  bool any = false; /* under auto, whether some rank renumbered */
  for (int q = 0; q < p; q++) any |= all[5 * q + 4] != 0;
  if (!any) return;
  op2_buf_printf(&b,
                 "renumbered each rank's part: %s on '%s' through map '%s'; mean row spread per "
                 "rank before -> after:",
                 op2_renumber_method(ctx), base->to->name, base->name);
  for (int q = 0; q < p; q++)
    if (all[5 * q + 4] != 0)
      op2_buf_printf(&b, " %.1f->%.1f", all[5 * q], all[5 * q + 1]);
    else
      op2_buf_printf(&b, " kept");
  if (b.data) op2_diag(1, "%s", b.data);
  op2_buf_free(&b);
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
  int rc = targets ? OP2_OK : op2_error(OP2_ERR_MEM, "renumbering: out of memory");
  /* spread before, after; with OP2_RENUMBER=auto the measure (bytes, far share or -1 when not
   * measured, decision) */
  double spread[5] = {0, 0, 0, -1, 1};
  /* auto: each rank decides for its own part (what its loops sweep), no agreement needed: the
   * renumbering is local to the rank and the halo build that follows works either way. The
   * bytes first: a part that fits in cache is left alone without a look at its map. */
  bool automatic = ctx->opt.renumber == OP2_RENUMBER_AUTO && !ctx->renumber_base;
  if (rc == OP2_OK && automatic) {
    op2_locality l = {.bytes = op2_renumber_auto_bytes(ctx, base->to)};
    if (l.bytes > OP2_AUTO_MIN_BYTES) rc = local_targets(ctx, targets, which);
    if (rc == OP2_OK && l.bytes > OP2_AUTO_MIN_BYTES)
      op2_renumber_auto_measure(ctx, base, targets[which], &l);
    spread[2] = l.bytes, spread[3] = l.bytes > OP2_AUTO_MIN_BYTES ? l.far : -1;
    spread[4] = l.renumber;
  }
  bool renumber = spread[4] != 0;
  if (rc == OP2_OK && renumber) rc = local_targets(ctx, targets, -1);
  if (rc == OP2_OK && renumber) spread[0] = mean_spread(base, targets[which]);
  if (rc == OP2_OK && renumber) rc = op2_renumber_local(ctx, base, targets);
  for (int i = 0; targets && i < ctx->maps.count; i++) free(targets[i]);
  free(targets);
  /* the spread after, from the permuted rows and new orig */
  if (rc == OP2_OK && renumber) {
    targets = calloc((size_t)ctx->maps.count + 1, sizeof(int *));
    rc = targets ? local_targets(ctx, targets, which)
                 : op2_error(OP2_ERR_MEM, "renumbering: out of memory");
    if (rc == OP2_OK) spread[1] = mean_spread(base, targets[which]);
    for (int i = 0; targets && i < ctx->maps.count; i++) free(targets[i]);
    free(targets);
  }
  int p = ctx->mpi.size;
  double *all = malloc(sizeof(double) * 5 * (size_t)p);
  if (rc == OP2_OK && !all) rc = op2_error(OP2_ERR_MEM, "renumbering: out of memory");
  rc = op2_mpi_agree(ctx, rc, "renumbering");
  if (rc == OP2_OK) rc = op2_mpi_gather_doubles(ctx, spread, 5, all);
  if (rc == OP2_OK && ctx->mpi.rank == 0) report(ctx, base, automatic, all);
  free(all);
  return rc;
}
