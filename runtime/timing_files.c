/* SPDX-License-Identifier: BSD-3-Clause */
/* OP2's timing files: op_timing_output's table in a file, and per-rank CSV. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/mpi_state.h"
#include "runtime/loop.h"
#include "runtime/distributed.h"
#include "runtime/output_file.h"
#include "runtime/chain.h"

/* Opens `file_name` on rank 0 through op2_output (o->f stays NULL elsewhere); every rank learns
 * whether that worked (an agreement under MPI). */
static int open_on_root(op2_context *ctx, const char *what, const char *file_name, op2_output *o) {
  o->f = NULL;
  int rc = OP2_OK;
  op2_jit_error why;
  if (ctx->mpi.rank == 0 && op2_output_open(o, file_name, &why) != 0)
    o->f = NULL, rc = op2_error_record(&why, "%s: %s", what, why.msg);
  rc = op2_mpi_agree(ctx, rc, what);
  if (rc != OP2_OK && o->f) op2_output_close(o, 1, NULL); /* another rank failed */
  return rc;
}

/* Closes the file rank 0 wrote (`failed`: the caller's writes were lost, and a replaced file
 * keeps its old contents); OP2_OK elsewhere. */
static int close_on_root(op2_output *o, int failed, const char *what) {
  if (!o->f) return OP2_OK;
  char path[sizeof o->path];
  snprintf(path, sizeof path, "%s", o->path);
  if (op2_output_close(o, failed, NULL) == 0) return OP2_OK;
  return failed ? op2_error(OP2_ERR_IO, "%s: writing %s failed", what, path)
                : op2_error(OP2_ERR_IO, "%s: writing %s failed: %s", what, path, strerror(errno));
}

/* The table op_timing_output prints, with rank 0's stdout pointed at the file meanwhile. */
static int timing_to_file(op2_context *ctx, const char *file_name) {
  if (!file_name) return op2_error(OP2_ERR_ARG, "op_timing_output_2_file: file name is NULL");
  op2_output o;
  OP2_CALL(open_on_root(ctx, "op_timing_output_2_file", file_name, &o));
  FILE *f = o.f;
  int saved_stdout = -1, redirected = 1, stdout_failed_before = 0;
  if (f) {
    fflush(stdout);
    stdout_failed_before = ferror(stdout);
    saved_stdout = dup(STDOUT_FILENO);
    redirected = saved_stdout >= 0 && dup2(fileno(f), STDOUT_FILENO) >= 0;
  }
  op_timing_output(); /* collective under MPI; only rank 0 prints */
  if (!f) return OP2_OK;
  /* The table went through stdout: its write errors are this file's (a full disk). */
  int lost = fflush(stdout) != 0 || (ferror(stdout) && !stdout_failed_before);
  if (lost && !stdout_failed_before) clearerr(stdout); /* the program's stdout is fine */
  if (saved_stdout >= 0) dup2(saved_stdout, STDOUT_FILENO), close(saved_stdout);
  return close_on_root(&o, !redirected || lost, "op_timing_output_2_file");
}

/* Under MPI each public call below is one collective step, so a failure on rank 0 (the writer)
 * or any other rank is reported by every rank. */
void op_timing_output_2_file(const char *file_name) {
  if (op2_require_init("op_timing_output_2_file") != OP2_OK) return;
  op2_context *ctx = op2_ctx();
  op2_chain_flush(ctx, "op_timing_output_2_file"); /* lazy execution: queued loops first */
  op2_mpi_step(ctx, "op_timing_output_2_file");
  op2_mpi_step_end(ctx, timing_to_file(ctx, file_name));
}

/* Per loop and rank: calls, seconds, plan seconds, bytes. */
enum { FIELDS = 4 };

static void write_csv(op2_context *ctx, FILE *f, const double *all) {
  int n = ctx->stats.count, p = ctx->mpi.size;
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
}

static int timings_to_csv(op2_context *ctx, const char *file_name) {
  if (!file_name) return op2_error(OP2_ERR_ARG, "op_timings_to_csv: file name is NULL");
  int n = ctx->stats.count, p = ctx->mpi.size;
  double *mine = calloc((size_t)n * FIELDS + 1, sizeof(double));
  double *all = ctx->mpi.rank == 0 ? calloc((size_t)n * FIELDS * p + 1, sizeof(double)) : NULL;
  int rc = mine && (ctx->mpi.rank != 0 || all)
               ? OP2_OK
               : op2_error(OP2_ERR_MEM, "op_timings_to_csv: out of memory");
  rc = op2_mpi_agree(ctx, rc, "op_timings_to_csv"); /* before the gather */
  for (int i = 0; rc == OP2_OK && i < n; i++) {
    const op2_loop_stats *s = ctx->stats.items[i];
    double *row = mine + (size_t)i * FIELDS;
    row[0] = (double)s->calls, row[1] = s->seconds, row[2] = s->plan_seconds, row[3] = s->bytes;
  }
  /* Loops were created in the same order on every rank (one program). */
  if (rc == OP2_OK) rc = op2_mpi_gather_doubles(ctx, mine, n * FIELDS, all);
  op2_output o = {.f = NULL};
  if (rc == OP2_OK) rc = open_on_root(ctx, "op_timings_to_csv", file_name, &o);
  if (o.f) write_csv(ctx, o.f, all);
  if (rc == OP2_OK) rc = close_on_root(&o, 0, "op_timings_to_csv");
  free(mine), free(all);
  return rc;
}

void op_timings_to_csv(const char *file_name) {
  if (op2_require_init("op_timings_to_csv") != OP2_OK) return;
  op2_context *ctx = op2_ctx();
  op2_chain_flush(ctx, "op_timings_to_csv"); /* lazy execution: queued loops first */
  op2_mpi_step(ctx, "op_timings_to_csv");
  op2_mpi_step_end(ctx, timings_to_csv(ctx, file_name));
}
