/* SPDX-License-Identifier: BSD-3-Clause */
/* The one error mechanism: every failure is formatted here, stored in the context (tests read it
 * with op_last_error) and handed to the handler. The default handler exits, as OP2 programs
 * expect; a handler that returns turns errors into early returns. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/options.h"
#include "runtime/mpi_state.h"
#include "runtime/chain.h"

/* The library's one writer to stderr (fault.c's signal handler aside, which may only write(2)):
 * `op2: ` + prefix + the message as a line, in one write: under mpiexec --tag-output, a line
 * written in pieces by one rank can take another rank's line into it (stderr is unbuffered:
 * each call is its own write). A long message is formatted on the heap, a short one (and any
 * when memory is short) on the stack. */
static void say(const char *prefix, const char *fmt, va_list ap) {
  char line[1024], *heap = NULL;
  va_list again;
  va_copy(again, ap);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  if (n >= (int)sizeof line && vasprintf(&heap, fmt, again) < 0) heap = NULL;
  va_end(again);
  fprintf(stderr, "op2: %s%s\n", prefix, heap ? heap : line);
  free(heap);
}

static void say_line(const char *prefix, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void say_line(const char *prefix, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  say(prefix, fmt, ap);
  va_end(ap);
}

static void default_handler(const char *message, void *user_data) {
  (void)user_data;
  say_line("error: ", "%s", message);
  fflush(stdout);
  op2_context *ctx = op2_ctx();
  if (ctx->mpi.step_depth > 0) { /* the step's agreement exits, once every rank knows */
    ctx->mpi.exit_pending = 1;
    return;
  }
  exit(1);
}

void op2_error_exit_deferred(op2_context *ctx) {
  if (ctx->mpi.exit_pending && ctx->mpi.step_depth == 0) {
    ctx->mpi.exit_agreed = 1; /* every rank exits: nobody is left waiting (runtime/mpi/comm.c) */
    fflush(stdout);
    exit(1);
  }
}

/* Compilers name sources relative to the build directory ("../runtime/x.c"): keep the part a
 * reader finds in the source tree. */
static const char *source_name(const char *file) {
  while (strncmp(file, "../", 3) == 0) file += 3;
  return file;
}

void op2_error_probe_begin(op2_context *ctx) {
  ctx->error_probe++;
}

void op2_error_probe_end(op2_context *ctx) {
  ctx->error_probe--;
}

int op2_error_at(const char *file, int line, const char *func, int code, const char *fmt, ...) {
  op2_context *ctx = op2_ctx();
  if (ctx->error_probe) return code; /* a probe: the call reports when it runs */
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(ctx->last_error, sizeof ctx->last_error, fmt, ap);
  va_end(ap);
  size_t len = n < 0                                ? 0
               : (size_t)n < sizeof ctx->last_error ? (size_t)n
                                                    : sizeof ctx->last_error - 1;
  len += op2_chain_error_note(ctx, ctx->last_error + len, sizeof ctx->last_error - len);
  if (ctx->opt.diags >= 2 && func)
    snprintf(ctx->last_error + len, sizeof ctx->last_error - len, " [%s:%d (%s)]",
             source_name(file), line, func);
  else if (ctx->opt.diags >= 2)
    snprintf(ctx->last_error + len, sizeof ctx->last_error - len, " [%s:%d]", source_name(file),
             line);
  ctx->last_error_func = func ? func : "";
  ctx->trace_depth = 0;
  ctx->errors_reported++;
  op_error_handler handler = ctx->handler ? ctx->handler : default_handler;
  handler(ctx->last_error, ctx->handler_data);
  return code;
}

int op2_error_record(const op2_jit_error *e, const char *fmt, ...) {
  char msg[sizeof e->msg + 512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  int code = e->code != OP2_OK ? e->code : OP2_ERR_STATE;
  return op2_error_at(e->file ? e->file : "?", e->line, e->func, code, "%s", msg);
}

void op2_error_trace_at(const char *file, int line, const char *func) {
  op2_context *ctx = op2_ctx();
  if (ctx->opt.diags < 3 || !ctx->last_error_func || ctx->error_probe) return;
  /* PETSc's form: frame #0 is the reporter (its location ends the message), then each caller
   * that propagated the failure, outermost last. Recorded, not printed: the handler had the
   * message, and under MPI every rank that agreed on the failure unwinds too. */
  char frame[512];
  snprintf(frame, sizeof frame, "#%d %s() at %s:%d", ++ctx->trace_depth, func, source_name(file),
           line);
  size_t len = strlen(ctx->last_error);
  snprintf(ctx->last_error + len, sizeof ctx->last_error - len, "\n  %s", frame);
}

const char *op2_last_error_function(void) {
  const char *f = op2_ctx()->last_error_func;
  return f ? f : "";
}

void op2_diag(int level, const char *fmt, ...) {
  op2_context *ctx = op2_ctx();
  /* One voice under MPI: rank 0, unless asked for every rank's detail (level 3). */
  if (ctx->opt.diags < level || (ctx->mpi.rank > 0 && ctx->opt.diags < 3)) return;
  va_list ap;
  va_start(ap, fmt);
  say("", fmt, ap);
  va_end(ap);
}

void op2_error_final(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  say("error: ", fmt, ap);
  va_end(ap);
}

void op2_error_signal_safe(const char *const *parts, int n) {
  for (int i = 0; i < n; i++)
    if (parts[i]) (void)!write(STDERR_FILENO, parts[i], strlen(parts[i]));
}

void op_set_error_handler(op_error_handler handler, void *user_data) {
  op2_context *ctx = op2_ctx();
  /* queued loops report their errors to the handler of their call */
  op2_chain_flush_local(ctx, "op_set_error_handler");
  ctx->handler = handler;
  ctx->handler_data = user_data;
}

const char *op_last_error(void) {
  return op2_ctx()->last_error;
}
