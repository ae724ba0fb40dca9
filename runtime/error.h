/* SPDX-License-Identifier: BSD-3-Clause */
/* The one error mechanism (error.c); status codes and OP2_CALL are base/base.h's. */
#ifndef OP2_RUNTIME_ERROR_H
#define OP2_RUNTIME_ERROR_H

#include "base/base.h"

typedef struct op2_context op2_context;

/* The one error rule: the function that detects a failure reports it, once, with op2_error;
 * its callers only propagate the code (OP2_CALL) and never report it again. op2_error records
 * the message and the function, file and line that found it in the context and calls the
 * handler; it returns the code, so that `return op2_error(...)` propagates it when the handler
 * returns. At OP2_DIAGS=2 the message ends with `[file:line (function)]`. */
int op2_error_at(const char *file, int line, const char *func, int code, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
#define op2_error(...) op2_error_at(__FILE__, __LINE__, __func__, __VA_ARGS__)
/* A helper that cannot say which call failed, or must not report yet (jit/, which has no
 * context; the runtime's helpers whose callers name the call: output files, records, the
 * invariant checkers, the MPI partitioners built alone for their tests) fills a failure record
 * instead (op2_jit_error_set: code, place, message); the caller reports it with this, once: as
 * op2_error with the record's code, at the record's place (so OP2_DIAGS=2 names the function
 * that found the failure), in the caller's words (fmt, which usually ends with the record's
 * msg). */
int op2_error_record(const op2_jit_error *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Checks run only to learn whether they pass (a queued call's, chain.c): between begin and
 * end op2_error records and reports nothing, calls no handler, and only returns its code; the
 * call that fails is then run at once, whose own checks report the failure, once. Nested pairs
 * are allowed. */
void op2_error_probe_begin(op2_context *ctx);
void op2_error_probe_end(op2_context *ctx);
/* The function that reported the last error (op2_error's caller), or "" before any. */
const char *op2_last_error_function(void);

/* OP2_CALL's failure branch in runtime/ (base/base.h calls OP2_CALL_FAILED there): at
 * OP2_DIAGS>=3 the caller that propagates a failure is added to the last error's trace, PETSc
 * style, so op_last_error() ends with the chain of callers. Only failures pay for it. */
void op2_error_trace_at(const char *file, int line, const char *func);
#undef OP2_CALL_FAILED
#define OP2_CALL_FAILED() op2_error_trace_at(__FILE__, __LINE__, __func__)

/* Exits now if the default handler deferred its exit to the end of a collective step (op2_mpi.h)
 * and no step is in progress any more. */
void op2_error_exit_deferred(op2_context *ctx);
/* Diagnostics on stderr when the context's diags level is at least `level`. */
void op2_diag(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A failure after which the process ends at once, where no handler may run: a thread watching an
 * agreement, an exit hook, an allocator whose callers never check, a broken invariant, no
 * context to report into. `op2: error: MESSAGE` on stderr in one write, and nothing else (no
 * context is touched); the caller then ends the process its own way (_exit, MPI_Abort, exit,
 * abort). */
void op2_error_final(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same from a signal handler, where nothing may be formatted or allocated: the `n` pieces of
 * text, already made, written to stderr with write(2) one after the other. */
void op2_error_signal_safe(const char *const *parts, int n);

#endif /* OP2_RUNTIME_ERROR_H */
