/* OP2's timing files: op_timing_output's table in a file, and per-rank CSV. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "op2_impl.h"

/* Opens `file_name` on rank 0; every rank learns whether that worked (collective). */
static FILE *open_on_root(op2_context *ctx, const char *what, const char *file_name, int *opened) {
  FILE *f = NULL;
  int saved = 0;
  *opened = 1;
  if (ctx->mpi.rank == 0) {
    f = fopen(file_name, "w");
    *opened = f != NULL;
    saved = errno;
  }
  if (ctx->mpi.size > 1) MPI_Bcast(opened, 1, MPI_INT, 0, ctx->mpi.comm);
  if (!*opened)
    op2_error(OP2_ERR_IO, "%s: cannot write %s%s%s", what, file_name,
              ctx->mpi.rank == 0 ? ": " : "", ctx->mpi.rank == 0 ? strerror(saved) : "");
  return f;
}

/* The table op_timing_output prints, with rank 0's stdout pointed at the file meanwhile. */
void op_timing_output_2_file(const char *file_name) {
  op2_context *ctx = op2_ctx();
  if (op2_require_init("op_timing_output_2_file") != OP2_OK) return;
  if (!file_name) {
    op2_error(OP2_ERR_ARG, "op_timing_output_2_file: file name is NULL");
    return;
  }
  int opened;
  FILE *f = open_on_root(ctx, "op_timing_output_2_file", file_name, &opened);
  if (!opened) return;
  int saved_stdout = -1, redirected = 1;
  if (f) {
    fflush(stdout);
    saved_stdout = dup(STDOUT_FILENO);
    redirected = saved_stdout >= 0 && dup2(fileno(f), STDOUT_FILENO) >= 0;
  }
  op_timing_output(); /* collective under MPI; only rank 0 prints */
  if (f) {
    fflush(stdout);
    if (saved_stdout >= 0) dup2(saved_stdout, STDOUT_FILENO), close(saved_stdout);
    int failed = ferror(f) | (fclose(f) != 0);
    if (!redirected || failed)
      op2_error(OP2_ERR_IO, "op_timing_output_2_file: writing %s failed", file_name);
  }
}

/* Per loop and rank: calls, seconds, plan seconds, bytes. */
enum { FIELDS = 4 };

void op_timings_to_csv(const char *file_name) {
  op2_context *ctx = op2_ctx();
  if (op2_require_init("op_timings_to_csv") != OP2_OK) return;
  if (!file_name) {
    op2_error(OP2_ERR_ARG, "op_timings_to_csv: file name is NULL");
    return;
  }
  int n = ctx->stats.count, p = ctx->mpi.size;
  double *mine = calloc((size_t)n * FIELDS + 1, sizeof(double));
  double *all = ctx->mpi.rank == 0 ? calloc((size_t)n * FIELDS * p + 1, sizeof(double)) : NULL;
  int have = mine && (ctx->mpi.rank != 0 || all);
  if (p > 1) MPI_Allreduce(MPI_IN_PLACE, &have, 1, MPI_INT, MPI_MIN, ctx->mpi.comm);
  if (!have) {
    free(mine), free(all);
    op2_error(OP2_ERR_MEM, "op_timings_to_csv: out of memory");
    return;
  }
  for (int i = 0; i < n; i++) {
    const op2_loop_stats *s = ctx->stats.items[i];
    double *row = mine + (size_t)i * FIELDS;
    row[0] = (double)s->calls, row[1] = s->seconds, row[2] = s->plan_seconds, row[3] = s->bytes;
  }
  /* Loops were created in the same order on every rank (one program). */
  if (p > 1)
    MPI_Gather(mine, n * FIELDS, MPI_DOUBLE, all, n * FIELDS, MPI_DOUBLE, 0, ctx->mpi.comm);
  else
    memcpy(all, mine, sizeof(double) * (size_t)n * FIELDS);
  int opened;
  FILE *f = open_on_root(ctx, "op_timings_to_csv", file_name, &opened);
  if (f) {
    fprintf(f,
            "rank,thread,nranks,nthreads,count,total time,plan time,mpi time,GB used,GB total,"
            "kernel name\n");
    for (int i = 0; i < n; i++) {
      const op2_loop_stats *s = ctx->stats.items[i];
      for (int r = 0; r < p; r++) {
        const double *row = all + ((size_t)r * n + i) * FIELDS;
        if (row[0] <= 0) continue;
        fprintf(f, "%d,%d,%d,%d,%.0f,%f,%f,%f,%f,%f,%s\n", r, 0, p, 1, row[0], row[1], row[2], 0.0,
                row[3] / 1e9, row[3] / 1e9, s->name);
      }
    }
    int failed = ferror(f) | (fclose(f) != 0);
    if (failed) op2_error(OP2_ERR_IO, "op_timings_to_csv: writing %s failed", file_name);
  }
  free(mine), free(all);
}
