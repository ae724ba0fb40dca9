/* SPDX-License-Identifier: BSD-3-Clause */
/* The one error mechanism (error.c); status codes and OP2_CALL are jit/desc.h's. */
#ifndef OP2_RUNTIME_ERROR_H
#define OP2_RUNTIME_ERROR_H

#include "jit/desc.h"

typedef struct op2_context op2_context;

/* The one error rule: the function that detects a failure reports it, once, with op2_error;
 * its callers only propagate the code (OP2_CALL) and never report it again. op2_error records
 * the message in the context and calls the handler; it returns the code, so that
 * `return op2_error(...)` propagates it when the handler returns. At OP2_DIAGS=2 the message
 * ends with the file and line that reported it. */
int op2_error_at(const char *file, int line, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define op2_error(...) op2_error_at(__FILE__, __LINE__, __VA_ARGS__)
/* Exits now if the default handler deferred its exit to the end of a collective step (op2_mpi.h)
 * and no step is in progress any more. */
void op2_error_exit_deferred(op2_context *ctx);
/* Diagnostics on stderr when the context's diags level is at least `level`. */
void op2_diag(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* OP2_RUNTIME_ERROR_H */
