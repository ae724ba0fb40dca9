/* SPDX-License-Identifier: BSD-3-Clause */
/* OP2_RENUMBER=auto, the default: reverse Cuthill-McKee (as OP2_RENUMBER=on) only where it can
 * win. Renumbering moves no arithmetic; it only brings the data a loop reaches through a map
 * closer together in memory, so it can only win when (a) that data does not fit in the cache
 * anyway and (b) the numbering leaves consecutive elements' targets far apart. Both are measured
 * on the map the renumbering would follow, in one pass over its rows (O(rows * dim^2)): (a) the
 * bytes of the dats on the map's to-set against OP2_AUTO_MIN_BYTES; (b) the share of targets that
 * lie farther than one cache window (OP2_AUTO_WINDOW_BYTES of those dats) from every target of
 * the row before: a loop sweeping rows in order then leaves the data it is working on. Measured
 * figures behind the thresholds: docs/PERFORMANCE.md "Automatic renumbering". */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/renumber_auto.h"
#include "runtime/error.h"
#include "runtime/mesh.h"

double op2_renumber_auto_bytes(const op2_context *ctx, op_set set) {
  double per = 0;
  for (int i = 0; i < ctx->dats.count; i++) {
    op_dat d = ctx->dats.items[i];
    if (d->set == set) per += (double)d->elem_bytes;
  }
  return per * set->size;
}

void op2_renumber_auto_measure(const op2_context *ctx, op_map base, const int *targets,
                               op2_locality *out) {
  op_set to = base->to;
  *out = (op2_locality){.bytes = op2_renumber_auto_bytes(ctx, to)};
  double per = to->size > 0 ? out->bytes / to->size : 0; /* bytes per element */
  out->window = per > 0 ? (long)(OP2_AUTO_WINDOW_BYTES / per) : (long)to->size;
  if (out->window < 1) out->window = 1;
  long far = 0, seen = 0;
  int d = base->dim;
  for (long f = 1; f < base->from->size; f++) {
    const int *row = targets + f * d, *prev = row - d;
    for (int c = 0; c < d; c++) {
      if (row[c] < 0) continue;
      long nearest = -1;
      for (int p = 0; p < d; p++) {
        if (prev[p] < 0) continue;
        long gap = labs((long)row[c] - prev[p]);
        if (nearest < 0 || gap < nearest) nearest = gap;
      }
      if (nearest < 0) continue; /* nothing held in the row before to compare with */
      seen++;
      far += nearest > out->window;
    }
  }
  out->far = seen ? (double)far / (double)seen : 0;
  out->renumber = out->bytes > OP2_AUTO_MIN_BYTES && out->far > OP2_AUTO_FAR;
}

void op2_renumber_auto_describe(const op2_locality *l, char *buf, size_t size) {
  snprintf(buf, size,
           "%.1f MB of dats (renumbered above %.0f MB), %.1f%% of targets more than %ld elements "
           "(%ld kB) from the row before's (above %.0f%%): %s",
           l->bytes / (1024.0 * 1024), OP2_AUTO_MIN_BYTES / (1024.0 * 1024), 100 * l->far,
           l->window, OP2_AUTO_WINDOW_BYTES / 1024, 100 * OP2_AUTO_FAR,
           l->renumber ? "renumbering" : "left in its order");
}

int op2_renumber_by_option(op2_context *ctx, op_map base) {
  if (ctx->opt.renumber == OP2_RENUMBER_AUTO) {
    op2_locality l;
    char line[256];
    OP2_CALL(op2_map_check(base, "OP2_RENUMBER=auto", false));
    op2_renumber_auto_measure(ctx, base, base->values, &l);
    op2_renumber_auto_describe(&l, line, sizeof line);
    op2_diag(1, "OP2_RENUMBER=auto on '%s' through map '%s': %s", base->to->name, base->name, line);
    if (!l.renumber) return OP2_OK;
  }
  return op2_renumber(ctx, base);
}

/* Once per context and only on one process (under MPI each rank renumbers its part when the mesh
 * is distributed): at op_partition, where a distributed run partitions, or else before the first
 * loop. Either way before any loop, so the time is start-up, not the first loop's. */
int op2_renumber_once(op2_context *ctx) {
  if (!ctx->opt.renumber || ctx->renumbered || ctx->mpi.size != 1) return OP2_OK;
  op_map base = op2_renumber_pick_base(ctx);
  ctx->renumbered = true; /* once, even when no map qualifies */
  return base ? op2_renumber_by_option(ctx, base) : OP2_OK;
}
