/* SPDX-License-Identifier: BSD-3-Clause */
/* The mesh's distribution as its steps (distribute.h names the file of each): how the program
 * declared, who declared what, each element's owner (the primary set partitioned, reported, the
 * other sets through the maps), the migration, each rank's renumbering, the halos; then what the
 * distribution held and built, reported. Local failures are carried to the next collective
 * (which agrees on them), never returned early. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "runtime/mpi/distribute.h"
#include "runtime/error.h"
#include "runtime/options.h"

/* This process's peak resident set in KiB: VmHWM, or getrusage's ru_maxrss where /proc is not. */
static long peak_rss_kib(void) {
  long kib = -1;
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, "VmHWM:", 6) == 0) kib = strtol(line + 6, NULL, 10);
  if (f) fclose(f);
  struct rusage ru;
  if (kib < 0 && getrusage(RUSAGE_SELF, &ru) == 0) kib = ru.ru_maxrss;
  return kib;
}

/* Prepares, gives every element its owner, moves the elements and builds the halos. Local
 * failures are carried to the next collective (which agrees on them), never returned early.
 * *label becomes the report's name of what was done when the declared blocks are kept; *moving
 * becomes true where no failure is agreed before the elements start to move, which is where a
 * failure stops leaving the declared mesh as it was. */
static int distribute(op2_context *ctx, const op2_partition_spec *spec, const char **label,
                      bool *moving) {
  double t_step = ctx->mpi.t_dist_start = op2_wall_seconds();
  OP2_CALL(op2_mpi_prepare(ctx));
  op2_mpi_step_time(ctx, &t_step, "declaration check");
  op2_holders h;
  OP2_CALL(op2_holders_init(ctx, &h));
  /* holders_init ended in an agreement, so every rank is here for this collective check */
  op2_partition_spec how = *spec;
  if (how.method == OP2_PART_PTSCOTCH) { /* only a graph partitioner may be skipped */
    int keep = 0, rc = op2_mpi_keep_blocks(ctx, h.first, how.asked, &keep);
    if (rc != OP2_OK) return free(h.first), rc;
    if (keep) how.method = OP2_PART_BLOCK, *label = "declared blocks kept, PTSCOTCH not run";
  }
  int **owner = calloc((size_t)ctx->sets.count + 1, sizeof(int *));
  int rc = owner ? OP2_OK : op2_error(OP2_ERR_MEM, "partitioning: out of memory");
  if (rc == OP2_OK) rc = op2_partition_owners(ctx, &h, &how, owner);
  /* partition_owners ends in collectives every rank passed, or fails locally after them */
  op2_mpi_step_time(ctx, &t_step, "ownership");
  ctx->mpi.t_owned = t_step;
  rc = op2_mpi_agree(ctx, rc, "partitioning");
  *moving = rc == OP2_OK;
  for (int s = 0; rc == OP2_OK && s < ctx->sets.count; s++) {
    rc = op2_migrate_set(ctx, rc, ctx->sets.items[s], owner[s]);
    /* The set's old arrays and messages are free: give their pages back before the next set's
     * (freed blocks inside the heap stay resident, and each set's would add to the peak). */
    malloc_trim(0);
  }
  for (int s = 0; owner && s < ctx->sets.count; s++) free(owner[s]);
  for (int s = 0; rc == OP2_OK && s < ctx->sets.count; s++) { /* kept for fetches */
    op_set set = ctx->sets.items[s];
    set->decl_firsts = malloc(sizeof(long) * ((size_t)ctx->mpi.size + 1));
    if (!set->decl_firsts)
      rc = op2_error(OP2_ERR_MEM, "partitioning: out of memory");
    else
      memcpy(set->decl_firsts, h.first + (size_t)s * (ctx->mpi.size + 1),
             sizeof(long) * ((size_t)ctx->mpi.size + 1));
  }
  free(owner), free(h.first);
  rc = op2_mpi_agree(ctx, rc, "distribution");
  op2_mpi_step_time(ctx, &t_step, "migration");
  ctx->mpi.t_moved = t_step;
  if (rc == OP2_OK) rc = op2_mpi_renumber_owned(ctx);
  if (rc == OP2_OK && ctx->renumbered) op2_mpi_step_time(ctx, &t_step, "renumbering");
  if (rc == OP2_OK) rc = op2_halo_build(ctx);
  for (int s = 0; rc == OP2_OK && s < ctx->sets.count; s++) {
    op_set set = ctx->sets.items[s];
    op2_set_held_rows(set, (long)set->size + set->exec_size + set->nonexec_size);
  }
  op2_mpi_step_time(ctx, &t_step, "halos");
  ctx->mpi.t_halos = t_step;
  return rc;
}

void op2_mpi_step_time(const op2_context *ctx, double *t, const char *step) {
  double now = op2_wall_seconds();
  if (ctx->mpi.rank == 0 && ctx->opt.diags >= 2) /* rank 0's peak so far: which step raised it */
    op2_diag(2, "distribution: %s %.3f s (peak RSS %.0f MiB)", step, now - *t,
             peak_rss_kib() / 1024.0);
  *t = now;
}

/* OP2_DIAGS=2: what input and distribution held. Per set, the most rows of one of its datasets a
 * rank read and the most of its rows a rank held in one array (against the uniform block
 * ceil(N/P): more means some rank read or assembled more than its share), then every rank's peak
 * resident memory so far. Collective; rank 0 prints. */
static int report_memory(op2_context *ctx) {
  int p = ctx->mpi.size;
  for (int s = 0; s < ctx->sets.count; s++) {
    op_set set = ctx->sets.items[s];
    long mine[3] = {set->rows_read_most, set->rows_held_most,
                    (long)set->size + set->exec_size + set->nonexec_size},
         most[3];
    OP2_CALL(OP2_MPI(MPI_Reduce(mine, most, 3, MPI_LONG, MPI_MAX, 0, op2_comm(ctx))));
    if (ctx->mpi.rank == 0)
      op2_diag(2,
               "input: set '%s' (%ld elements, block %ld): at most %ld rows of a dataset read, "
               "%ld rows held in one array, %ld owned and halo now, on a rank",
               set->name, set->global_size, (set->global_size + p - 1) / p, most[0], most[1],
               most[2]);
  }
  long kib = peak_rss_kib(), *all = ctx->mpi.rank == 0 ? malloc(sizeof(long) * (size_t)p) : NULL;
  int rc = OP2_MPI(MPI_Gather(&kib, 1, MPI_LONG, all, 1, MPI_LONG, 0, op2_comm(ctx)));
  if (rc == OP2_OK && all) {
    char line[2048] = "";
    size_t at = 0;
    long lo = all[0], hi = all[0];
    for (int q = 0; q < p; q++) {
      lo = all[q] < lo ? all[q] : lo, hi = all[q] > hi ? all[q] : hi;
      if (at < sizeof line - 32)
        at += (size_t)snprintf(line + at, sizeof line - at, " %.1f", all[q] / 1024.0);
    }
    op2_diag(
        2,
        "input: peak RSS per rank after distribution (VmHWM, MiB): min %.1f, max %.1f; by rank:%s",
        lo / 1024.0, hi / 1024.0, line);
  }
  free(all);
  return rc;
}

/* Diagnostics once distributed: halo sizes per set (collective, printed by rank 0). */
static int report(op2_context *ctx, const char *lib, double t0) {
  if (ctx->opt.diags >= 2) OP2_CALL(report_memory(ctx));
  for (int s = 0; s < ctx->sets.count && ctx->opt.diags >= 1; s++) {
    op_set set = ctx->sets.items[s];
    long mine[4] = {set->size, set->core_size, set->exec_size, set->nonexec_size}, sum[4], max[4];
    OP2_CALL(OP2_MPI(MPI_Reduce(mine, sum, 4, MPI_LONG, MPI_SUM, 0, op2_comm(ctx))));
    OP2_CALL(OP2_MPI(MPI_Reduce(mine, max, 4, MPI_LONG, MPI_MAX, 0, op2_comm(ctx))));
    if (ctx->mpi.rank == 0)
      op2_diag(1,
               "set '%s': owned max %ld (imbalance %.3f), core %ld, exec halo %ld, non-exec "
               "halo %ld (sums over ranks)",
               set->name, max[0], sum[0] ? (double)max[0] * ctx->mpi.size / (double)sum[0] : 1.0,
               sum[1], sum[2], sum[3]);
  }
  if (ctx->mpi.rank == 0)
    op2_diag(1, "mesh distributed over %d ranks (%s declaration, %s) in %.3f s", ctx->mpi.size,
             ctx->mpi_replicated ? "whole mesh on every rank" : "each rank its block",
             lib ? lib : "BLOCK", op2_wall_seconds() - t0);
  return OP2_OK;
}

/* One collective step: every rank ends it knowing whether every rank succeeded. */
int op2_mpi_partition(op2_context *ctx, const op2_partition_spec *spec) {
  if (ctx->mpi_distributed) return OP2_OK;
  double t0 = op2_wall_seconds();
  op2_mpi_step(ctx, "distribution");
  bool moving = false;
  const char *label = spec->method == OP2_PART_BLOCK ? "BLOCK" : spec->asked;
  /* the maps' values as the program left them (it may write them until now); after a
   * distribution that failed half way they are neither, which distribute() reports */
  int rc = ctx->mpi_lost ? OP2_OK : op2_maps_check_all(ctx, "the distribution of the mesh", true);
  rc = op2_mpi_step_end(ctx, rc == OP2_OK ? distribute(ctx, spec, &label, &moving) : rc);
  if (rc != OP2_OK) {
    if (moving) ctx->mpi_lost = true; /* before the elements move, a retry finds what it had */
    return rc;
  }
  op2_maps_seal_all(ctx); /* moved, renumbered, made local */
  ctx->mpi_distributed = true;
  return report(ctx, label, t0);
}

/* The first loop's distribution (lib NULL: the declared blocks), or PT-Scotch on prime_map. */
int op2_mpi_distribute(op2_context *ctx, const char *lib, op_set prime, op_map prime_map) {
  op2_partition_spec spec = {
      .method = lib && strcmp(lib, "PTSCOTCH") == 0 ? OP2_PART_PTSCOTCH : OP2_PART_BLOCK,
      .asked = lib ? lib : "BLOCK",
      .prime = prime,
      .prime_map = prime_map};
  return op2_mpi_partition(ctx, &spec);
}
