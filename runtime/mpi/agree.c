/* SPDX-License-Identifier: BSD-3-Clause */
/* Failures in collective work. Every MPI call's status is checked (OP2_MPI) and every collective
 * step ends with op2_mpi_agree, so that a failure on one rank makes every rank report and return
 * (or exit) instead of leaving the others waiting in a collective the failed rank never enters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "runtime/mpi/op2_mpi.h"
#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/options.h"
#include "runtime/mpi_state.h"

int op2_mpi_failed(int mpi_rc, const char *call, const char *file, int line) {
  char why[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  if (MPI_Error_string(mpi_rc, why, &len) != MPI_SUCCESS)
    snprintf(why, sizeof why, "code %d", mpi_rc);
  int name_len = (int)strcspn(call, "(");
  return op2_error_at(file, line, NULL, OP2_ERR_STATE, "%.*s failed: %s", name_len, call, why);
}

/* The tag of a public call: its name's hash and its number among this rank's collective calls. */
static void tag_call(op2_mpi *m, uint64_t what_hash) {
  m->call_tag = what_hash + m->call_seq * 0x9E3779B97F4A7C15ull;
}

static void begin_call_hashed(op2_mpi *m, uint64_t what_hash) {
  m->call_seq++;
  tag_call(m, what_hash);
}

static void begin_call(op2_mpi *m, const char *what) {
  begin_call_hashed(m, XXH3_64bits(what, strlen(what)));
}

void op2_mpi_step_name_make(op2_mpi_step_name *s, const char *call, const char *name) {
  snprintf(s->text, sizeof s->text, "%s '%.200s'", call, name ? name : "(null)");
  s->len = strlen(s->text);
  s->hash = XXH3_64bits(s->text, s->len);
}

void op2_mpi_step_named(op2_context *ctx, const op2_mpi_step_name *s) {
  if (ctx->mpi.size < 2) return;
  if (ctx->mpi.step_depth++ == 0) {
    memcpy(ctx->mpi.step_name, s->text, s->len + 1);
    begin_call_hashed(&ctx->mpi, s->hash);
  }
}

void op2_mpi_step_replay(op2_context *ctx, const op2_mpi_step_name *s) {
  if (ctx->mpi.size < 2) return;
  if (ctx->mpi.step_depth++ == 0) {
    memcpy(ctx->mpi.step_name, s->text, s->len + 1);
    tag_call(&ctx->mpi, s->hash); /* counted when it was captured, as eagerly */
  }
}

void op2_mpi_step(op2_context *ctx, const char *what) {
  if (ctx->mpi.size < 2) return;
  if (ctx->mpi.step_depth++ == 0) {
    snprintf(ctx->mpi.step_name, sizeof ctx->mpi.step_name, "%s", what);
    begin_call(&ctx->mpi, ctx->mpi.step_name);
  }
}

int op2_mpi_step_end(op2_context *ctx, int status) {
  op2_mpi *m = &ctx->mpi;
  if (m->size < 2) return status;
  status = op2_mpi_agree(ctx, status, m->step_name);
  if (m->step_depth > 0 && --m->step_depth == 0) m->failure_agreed = 0, m->step_name[0] = '\0';
  op2_error_exit_deferred(ctx);
  return status;
}

void op2_mpi_step_leave(op2_context *ctx) {
  op2_mpi *m = &ctx->mpi;
  if (m->size > 1 && m->step_depth > 0 && --m->step_depth == 0)
    m->failure_agreed = 0, m->step_name[0] = '\0';
}

void op2_mpi_decl_begin(op2_context *ctx, const char *call, const char *name) {
  if (ctx->mpi.size < 2) return;
  char step[160];
  snprintf(step, sizeof step, "%s '%.100s'", call, name ? name : "(unnamed)");
  op2_mpi_step(ctx, step);
}

int op2_mpi_decl_end(op2_context *ctx, int status) {
  return op2_mpi_step_end(ctx, status);
}

int op2_mpi_agree_exit(op2_context *ctx) {
  if (ctx->mpi.size < 2 || !ctx->mpi.has_comms) return OP2_OK;
  op2_mpi_step(ctx, "op_exit");
  return op2_mpi_step_end(ctx, OP2_OK);
}

/* Ranks in different calls: every rank learns each rank's call (all of them saw the tags differ
 * in the same reduction, so all come here) and the message names them. */
static void out_of_step(op2_context *ctx, const char *what, unsigned long long seq) {
  op2_mpi *m = &ctx->mpi;
  struct call {
    unsigned long long seq;
    char name[120];
  } mine = {.seq = seq}, *all = calloc((size_t)m->size, sizeof *all);
  snprintf(mine.name, sizeof mine.name, "%s", what);
  char *why = m->out_of_step_why;
  size_t cap = sizeof m->out_of_step_why, len = 0;
  if (!all) { /* the others are in the gather: no way back but ending the job */
    op2_error_final("rank %d: out of memory naming the ranks' calls (%s)", m->rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (OP2_MPI(MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE,
                            op2_comm(ctx))) != OP2_OK) {
    snprintf(why, cap, "the ranks are in different collective calls (rank %d in %s)", m->rank,
             what);
  } else {
    all[0].name[sizeof all[0].name - 1] = '\0';
    len = (size_t)snprintf(why, cap, "the ranks are out of step: rank 0 called %s (its call %llu)",
                           all[0].name, all[0].seq);
    int listed = 0;
    for (int r = 1; r < m->size && len < cap; r++) {
      all[r].name[sizeof all[r].name - 1] = '\0';
      if (all[r].seq == all[0].seq && strcmp(all[r].name, all[0].name) == 0) continue;
      if (listed++ == 3) {
        snprintf(why + len, cap - len, ", ...");
        break;
      }
      len += (size_t)snprintf(why + len, cap - len, ", rank %d called %s (its call %llu)", r,
                              all[r].name, all[r].seq);
    }
  }
  free(all);
  m->out_of_step = 1;
}

/* Every agreement is the same collective (an allreduce of seven values, then on failure one
 * broadcast), so a rank that fails and skips ahead to a later agreement meets the others at their
 * next one; once a failure is agreed within a step, the failed ranks' later agreements are silent
 * on every rank. The key and the call's tag ride along: min(k) == max(k) (max as ~min(~k)) when
 * all ranks agree. Ranks whose tags differ are in different calls: every rank fails, and from
 * then on every collective call fails at once on every rank (which calls would pair up again
 * cannot be known), so no rank ever waits for one that went elsewhere.
 * quiet: a rank that did not fail is not told why the others did (its caller reports).
 * rank0_value: key[0] is rank 0's value (the others pass all ones), not compared: it comes back
 * in *key_out, the same on every rank.
 * Outside a step, the default handler's exit after an error every rank gets here is an agreed
 * exit too (exit_agreed, while the handler runs): no rank is left waiting.
 * next_call: a lazy chain's agreement (op2_mpi_agree_chain), no call of its own: see there. */
static int agree_any(op2_context *ctx, int status, const uint64_t key[2], const char *what,
                     const char *loop_name, int quiet, int rank0_value, uint64_t *key_out,
                     const char *next_call) {
  op2_mpi *m = &ctx->mpi;
  if (m->size < 2) return status;
  if (status != OP2_OK && m->failure_agreed) return status;
  if (m->step_name[0]) what = m->step_name;
  if (m->out_of_step) { /* known on every rank: nobody communicates */
    /* the call this agreement belongs to (one outside a step would be the next) */
    unsigned long long call = m->step_depth > 0 ? m->call_seq : m->call_seq + 1;
    if (status == OP2_OK && (next_call || call == m->out_of_step_call))
      status = OP2_ERR_STATE; /* its calls, or this call, were reported */
    else if (status == OP2_OK)
      status = op2_error(OP2_ERR_STATE, "%s: not run: %s", what, m->out_of_step_why);
    if (call == m->out_of_step_call) m->out_of_step_call = 0;
    if (m->step_depth > 0) m->failure_agreed = 1;
    return status;
  }
  if (next_call)
    tag_call(m, XXH3_64bits(what, strlen(what))); /* within the call last captured */
  else if (m->step_depth == 0)
    begin_call(m, what); /* an agreement outside a step is a call */
  unsigned long long mine[7] = {status == OP2_OK ? (unsigned long long)m->size
                                                 : (unsigned long long)m->rank,
                                key[0],
                                key[1],
                                ~key[0],
                                ~key[1],
                                m->call_tag,
                                ~m->call_tag},
                     all[7];
  op2_mpi_wait_begin(m->comms, what); /* bounded by OP2_MPI_TIMEOUT (watchdog.c) */
  int rc = OP2_MPI(MPI_Allreduce(mine, all, 7, MPI_UNSIGNED_LONG_LONG, MPI_MIN, op2_comm(ctx)));
  op2_mpi_wait_end(m->comms);
  int first = rc == OP2_OK ? (int)all[0] : m->size;
  if (rc == OP2_OK && all[5] != ~all[6]) {
    /* a chain's agreement where another rank is in a call: this rank is at its next call */
    if (next_call) what = next_call, m->out_of_step_call = m->call_seq + 1;
    out_of_step(ctx, what, next_call ? m->call_seq + 1 : m->call_seq);
    m->exit_agreed = m->step_depth == 0;
    if (status == OP2_OK) rc = op2_error(OP2_ERR_STATE, "%s: %s", what, m->out_of_step_why);
    m->exit_agreed = 0;
  } else if (first < m->size) { /* the lowest failed rank speaks for all: its code and message */
    struct {
      int code;
      char message[sizeof ctx->last_error];
    } failed = {.code = status, .message = ""};
    if (m->rank == first) memcpy(failed.message, ctx->last_error, sizeof failed.message);
    rc = OP2_MPI(MPI_Bcast(&failed, (int)sizeof failed, MPI_BYTE, first, op2_comm(ctx)));
    if (rc == OP2_OK && status == OP2_OK && quiet) {
      rc = failed.code;
    } else if (rc == OP2_OK && status == OP2_OK) {
      failed.message[sizeof failed.message - 1] = '\0';
      m->exit_agreed = m->step_depth == 0;
      rc = op2_error(failed.code, "rank %d failed in %s: %s", first, what, failed.message);
      m->exit_agreed = 0;
    }
  } else if (rc == OP2_OK && rank0_value) {
    *key_out = all[1];
  } else if (rc == OP2_OK && (all[1] != ~all[3] || all[2] != ~all[4])) {
    rc = op2_error(OP2_ERR_STATE,
                   "op_par_loop '%s': ranks generated different kernel sources (different kernel "
                   "text, constants or arguments on some ranks)",
                   loop_name ? loop_name : "(null)");
  }
  if (status == OP2_OK) status = rc;
  if (status != OP2_OK && m->step_depth > 0) m->failure_agreed = 1;
  return status;
}

int op2_mpi_agree_on(op2_context *ctx, int status, const uint64_t key[2], const char *what,
                     const char *loop_name) {
  return agree_any(ctx, status, key, what, loop_name, 0, 0, NULL, NULL);
}

int op2_mpi_agree_quiet(op2_context *ctx, int status, const char *what) {
  static const uint64_t none[2] = {0, 0};
  return agree_any(ctx, status, none, what, NULL, 1, 0, NULL, NULL);
}

int op2_mpi_agree_rank0_int(op2_context *ctx, int *value, const char *what) {
  if (ctx->mpi.size < 2) return OP2_OK;
  uint64_t key[2] = {ctx->mpi.rank == 0 ? (uint64_t)(unsigned)*value : UINT64_MAX, 0}, got = 0;
  int rc = agree_any(ctx, OP2_OK, key, what, NULL, 0, 1, &got, NULL);
  if (rc == OP2_OK) *value = (int)(unsigned)got;
  return rc;
}

int op2_mpi_agree(op2_context *ctx, int status, const char *what) {
  static const uint64_t none[2] = {0, 0};
  return op2_mpi_agree_on(ctx, status, none, what, NULL);
}

int op2_mpi_agree_chain(op2_context *ctx, int status, const char *next_call) {
  static const uint64_t none[2] = {0, 0};
  return agree_any(ctx, status, none, "op_par_loop chain", NULL, 0, 0, NULL, next_call);
}

int op2_fault_parse(const char *value, char *step, int *rank) {
  static const char *steps[] = {"distribute", "halo",       "exchange",
                                "validate",   "node-build", "gather"};
  const char *colon = value ? strchr(value, ':') : NULL;
  if (!colon) return -1;
  char *end;
  long r = strtol(colon + 1, &end, 10);
  if (end == colon + 1 || *end || r < 0 || r > 1000000) return -1;
  for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
    if (strlen(steps[i]) != (size_t)(colon - value) ||
        strncmp(steps[i], value, (size_t)(colon - value)))
      continue;
    if (step) strcpy(step, steps[i]);
    if (rank) *rank = (int)r;
    return 0;
  }
  return -1;
}

int op2_fault(op2_context *ctx, const char *step) {
  char name[32];
  int rank;
  if (ctx->mpi.fault_fired || !ctx->opt.fault[0] ||
      op2_fault_parse(ctx->opt.fault, name, &rank) != 0 || strcmp(name, step) != 0 ||
      rank != ctx->mpi.rank)
    return 0;
  ctx->mpi.fault_fired = 1; /* once: a test then checks that every rank can go on */
  return 1;
}
