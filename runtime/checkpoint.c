/* SPDX-License-Identifier: BSD-3-Clause */
/* Checkpointing policy and restart: op_checkpointing_init, op_checkpoint and the hooks around
 * every loop call. Positions count loop calls since op_init. A checkpoint at position P holds the
 * dats and constants as they were after P calls, and the log of those P calls. A restarted run
 * replays calls 0..P-1 from the log (they do not run; their reductions return the logged values)
 * and restores the data when it reaches position P, at an op_checkpoint() call or at the start of
 * call P, whichever comes first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/checkpoint.h"
#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/options.h"
#include "runtime/mesh.h"
#include "runtime/backend.h"
#include "runtime/chain.h"
#include "runtime/distributed.h"

static op2_checkpoint *state(op2_context *ctx) {
  if (!ctx->checkpoint) ctx->checkpoint = calloc(1, sizeof(op2_checkpoint));
  if (!ctx->checkpoint) op2_error(OP2_ERR_MEM, "checkpointing: out of memory");
  return ctx->checkpoint;
}

static int parse_policy(const char *policy, op2_ckpt_policy *kind, double *interval) {
  *interval = 0;
  if (!policy || !*policy || strcmp(policy, "manual") == 0) {
    *kind = OP2_CKPT_MANUAL;
    return OP2_OK;
  }
  char *end;
  if (strncmp(policy, "time:", 5) == 0) {
    double s = strtod(policy + 5, &end);
    if (end != policy + 5 && !*end && s > 0 && s < 1e9) {
      *kind = OP2_CKPT_TIME;
      *interval = s;
      return OP2_OK;
    }
  }
  return op2_error(OP2_ERR_ARG,
                   "op_checkpointing_init: policy '%s' is not one of \"manual\" (at every "
                   "op_checkpoint() call) or \"time:SECONDS\" (e.g. \"time:30\")",
                   policy);
}

/* Reads `file` and, when it holds a checkpoint, fast-forwards this run to it. *found 0: there is
 * no file (a fresh run). */
static int start_restart(op2_context *ctx, op2_checkpoint *ck, const char *file, int *found) {
  char *blob = NULL;
  size_t blob_len = 0;
  OP2_CALL(op2_h5_checkpoint_load(file, &ck->image, &ck->image_len, &blob, &blob_len, found));
  if (!*found) return OP2_OK;
  op2_ckpt_meta meta;
  int rc = op2_ckpt_log_parse(blob, blob_len, file, &ck->saved, &meta);
  free(blob);
  if (rc == OP2_OK) ck->saved_mesh = meta.mesh; /* compared when the data is restored */
  int ranks = op2_h5_checkpoint_ranks();
  if (rc == OP2_OK && meta.ranks != ranks)
    rc = op2_error(OP2_ERR_STATE,
                   "checkpoint %s: written by %ld MPI ranks, this run has %d; restart it with "
                   "%ld ranks",
                   file, meta.ranks, ranks, meta.ranks);
  if (rc == OP2_OK && ctx->backend->sync_host)
    rc = op2_error(OP2_ERR_STATE,
                   "checkpoint %s: restarting under backend '%s' is not supported (its device "
                   "copies would not be restored); restart with OP2_BACKEND=seq or openmp",
                   file, ctx->backend->name);
  if (rc == OP2_OK && ck->position > 0)
    rc = op2_error(OP2_ERR_STATE,
                   "checkpoint %s: %ld loop calls ran before checkpointing started; a restart must "
                   "begin before the first op_par_loop",
                   file, ck->position);
  if (rc == OP2_OK && !(ck->restore_file = strdup(file)))
    rc = op2_error(OP2_ERR_MEM, "checkpoint %s: out of memory", file);
  if (rc != OP2_OK) {
    free(ck->image);
    ck->image = NULL;
    free(ck->saved_mesh);
    ck->saved_mesh = NULL;
    op2_ckpt_log_free(&ck->saved);
    return rc;
  }
  ck->restoring = true;
  ck->restore_at = meta.position;
  ck->written = meta.number;
  op2_diag(0,
           "restarting from checkpoint %s: replaying %ld loop calls without running them, then "
           "restoring its data",
           file, meta.position);
  return OP2_OK;
}

/* The restart source named by OP2_RESTART, read once, before anything is replayed. */
static int restart_from_option(op2_context *ctx, op2_checkpoint *ck) {
  if (!ctx->opt.restart[0] || ck->restart_read) return OP2_OK;
  ck->restart_read = true; /* once, even when it fails */
  int found;
  OP2_CALL(start_restart(ctx, ck, ctx->opt.restart, &found));
  if (!found)
    return op2_error(OP2_ERR_ARG, "OP2_RESTART=%s: no such checkpoint file", ctx->opt.restart);
  return OP2_OK;
}

/* At the checkpoint's position the run has declared what the writer had (same program): its
 * mesh must be the writer's, or the data would land on other elements. */
static int restore_now(op2_context *ctx, op2_checkpoint *ck) {
  int rc = OP2_OK;
  if (ck->saved_mesh) {
    char *now = op2_ckpt_mesh_summary(ctx);
    rc = now ? op2_ckpt_mesh_check(ck->restore_file, ck->saved_mesh, now) : OP2_ERR_MEM;
    free(now);
    free(ck->saved_mesh);
    ck->saved_mesh = NULL;
  }
  if (rc == OP2_OK) rc = op2_h5_checkpoint_restore(ck->restore_file, ck->image, ck->image_len);
  free(ck->image);
  ck->image = NULL;
  ck->image_len = 0;
  op2_ckpt_log_free(&ck->saved);
  ck->restoring = false;
  ck->last = op2_wall_seconds();
  return rc;
}

static int write_checkpoint(op2_context *ctx, op2_checkpoint *ck) {
  op2_ckpt_meta meta = {.ranks = op2_h5_checkpoint_ranks(),
                        .position = ck->position,
                        .number = ck->written + 1,
                        .mesh = op2_ckpt_mesh_summary(ctx)};
  if (!meta.mesh) return OP2_ERR_MEM;
  char *blob;
  size_t len;
  int st = op2_ckpt_log_serialise(&ck->log, &meta, &blob, &len);
  free(meta.mesh);
  OP2_CALL(st);
  int rc = op2_h5_checkpoint_save(ck->file, blob, len);
  free(blob);
  if (rc == OP2_OK) ck->written++;
  ck->last = op2_wall_seconds();
  return rc;
}

/* A point where a checkpoint may be taken or restored: op_checkpoint() (explicit) or the start of
 * a loop call. */
static int checkpoint_point(op2_context *ctx, op2_checkpoint *ck, int explicit_call) {
  if (ck->restoring) return ck->position == ck->restore_at ? restore_now(ctx, ck) : OP2_OK;
  if (!ck->file) return OP2_OK;
  int due =
      ck->policy == OP2_CKPT_MANUAL ? explicit_call : op2_wall_seconds() - ck->last >= ck->interval;
  /* Under MPI every rank must decide alike: rank 0's clock decides. */
  if (ck->policy == OP2_CKPT_TIME) op2_h5_checkpoint_bcast_int(&due);
  return due ? write_checkpoint(ctx, ck) : OP2_OK;
}

static int checkpointing_init(op2_context *ctx, const char *file, const char *policy) {
  if (!file || !*file) {
    op2_error(OP2_ERR_ARG, "op_checkpointing_init: file name is NULL or empty");
    return -1;
  }
  op2_ckpt_policy kind = OP2_CKPT_MANUAL;
  double interval;
  if (parse_policy(policy, &kind, &interval) != OP2_OK) return -1;
  if (ctx->checkpoint && ctx->checkpoint->file) {
    op2_error(OP2_ERR_STATE, "op_checkpointing_init(%s): checkpointing already writes to %s", file,
              ctx->checkpoint->file);
    return -1;
  }
  if (!ctx->checkpoint && ctx->loops.count > 0) {
    op2_error(OP2_ERR_STATE,
              "op_checkpointing_init(%s): call it before the first op_par_loop (loops have run, "
              "and a restart could not replay them)",
              file);
    return -1;
  }
  op2_checkpoint *ck = state(ctx);
  if (!ck) return -1;
  if (!(ck->file = strdup(file))) {
    op2_error(OP2_ERR_MEM, "op_checkpointing_init: out of memory");
    return -1;
  }
  ck->policy = kind;
  ck->interval = interval;
  ck->last = op2_wall_seconds();
  int found = 0;
  if (ctx->opt.restart[0]) {
    if (restart_from_option(ctx, ck) != OP2_OK) return -1;
    found = ck->restoring;
  } else if (start_restart(ctx, ck, file, &found) != OP2_OK) {
    return -1;
  }
  return found;
}

/* Collective under MPI (one step): a rank whose call fails, or that is elsewhere, makes every
 * rank's call fail, and each rank then leaves checkpointing as it was (off), so that no rank
 * writes or restores what the others do not. */
int op_checkpointing_init(const char *file, const char *policy) {
  op2_context *ctx = op2_ctx();
  if (op2_require_init("op_checkpointing_init") != OP2_OK) return 0;
  op2_chain_flush(ctx, "op_checkpointing_init"); /* lazy execution: queued loops first */
  op2_mpi_step(ctx, "op_checkpointing_init");
  int was_on = ctx->checkpoint && ctx->checkpoint->file;
  int found = checkpointing_init(ctx, file, policy);
  if (op2_mpi_step_end(ctx, found < 0 ? OP2_ERR_ARG : OP2_OK) == OP2_OK) return found;
  if (!was_on) op2_checkpoint_free(ctx); /* what this call set up, here or elsewhere, is undone */
  return 0;
}

void op_checkpoint(void) {
  op2_context *ctx = op2_ctx();
  if (op2_require_init("op_checkpoint") != OP2_OK) return;
  op2_chain_flush(ctx, "op_checkpoint");                /* lazy execution: queued loops first */
  if (!ctx->checkpoint && !ctx->opt.restart[0]) return; /* checkpointing is off */
  op2_mpi_step(ctx, "op_checkpoint");
  op2_checkpoint *ck = state(ctx);
  int rc = ck ? restart_from_option(ctx, ck) : OP2_ERR_MEM;
  if (rc == OP2_OK) rc = checkpoint_point(ctx, ck, 1);
  op2_mpi_step_end(ctx, rc);
}

int op2_checkpoint_before_loop(op2_context *ctx, const op2_loop_call *call, int *skip) {
  *skip = 0;
  if (!ctx->checkpoint && !ctx->opt.restart[0]) return OP2_OK;
  op2_checkpoint *ck = state(ctx);
  if (!ck) return OP2_ERR_MEM;
  OP2_CALL(restart_from_option(ctx, ck));
  OP2_CALL(checkpoint_point(ctx, ck, 0));
  if (!ck->restoring) return OP2_OK;
  const char *name = call->name;
  uint64_t hash = op2_ckpt_loop_hash(name, call->set, call->nargs, call->args);
  OP2_CALL(op2_ckpt_log_replay(&ck->saved, ck->position, ck->restore_file, name, hash, call->nargs,
                               call->args));
  OP2_CALL(op2_ckpt_log_append(&ck->log, name, hash, call->nargs, call->args));
  ck->position++;
  *skip = 1;
  return OP2_OK;
}

int op2_checkpoint_after_loop(op2_context *ctx, const op2_loop_call *call) {
  op2_checkpoint *ck = ctx->checkpoint;
  if (!ck) return OP2_OK;
  uint64_t hash = op2_ckpt_loop_hash(call->name, call->set, call->nargs, call->args);
  OP2_CALL(op2_ckpt_log_append(&ck->log, call->name, hash, call->nargs, call->args));
  ck->position++;
  return OP2_OK;
}

int op2_checkpoint_before_read(op2_context *ctx, op_dat dat) {
  op2_checkpoint *ck = ctx->checkpoint;
  if (!ck || !ck->restoring) return OP2_OK;
  return op2_error(OP2_ERR_STATE,
                   "dat '%s' read after %ld loop calls of a run restarting from checkpoint %s, "
                   "which holds the data after %ld calls: its data is not restored yet (this run "
                   "stops short of the checkpoint: run it at least as far as the run that wrote "
                   "it)",
                   dat->name, ck->position, ck->restore_file, ck->restore_at);
}

void op2_checkpoint_free(op2_context *ctx) {
  op2_checkpoint *ck = ctx->checkpoint;
  if (!ck) return;
  free(ck->saved_mesh);
  free(ck->file);
  free(ck->restore_file);
  free(ck->image);
  op2_ckpt_log_free(&ck->log);
  op2_ckpt_log_free(&ck->saved);
  free(ck);
  ctx->checkpoint = NULL;
}
