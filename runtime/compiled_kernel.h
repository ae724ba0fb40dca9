/* SPDX-License-Identifier: BSD-3-Clause */
/* Loops whose kernel is a procedure the program compiled itself (OP2's Fortran API:
 * runtime/fortran/). What the core asks of them. Such a loop's kernel text is the library's own
 * description of the procedure, kept until op_exit and beginning with OP2_COMPILED_PREFIX (no C
 * text begins with '!'): loops, call sites and the lazy chain key it as any text, and the core
 * asks runtime/fortran/ for the jit request that gives the loop its kernel (the Fortran target). */
#ifndef OP2_RUNTIME_COMPILED_KERNEL_H
#define OP2_RUNTIME_COMPILED_KERNEL_H

#include <stdbool.h>
#include <string.h>

#include "jit/jit.h"

typedef struct op2_context op2_context;
typedef struct op2_loop op2_loop;

#define OP2_COMPILED_PREFIX "!op2 compiled procedure "

static inline bool op2_kernel_text_compiled(const char *text) {
  return text && strncmp(text, OP2_COMPILED_PREFIX, sizeof OP2_COMPILED_PREFIX - 1) == 0;
}

/* What a request for such a loop's kernel holds while it is made (runtime/fortran/). */
typedef struct op2_compiled_request op2_compiled_request;
/* Fills rq's target and Fortran fields for the loop whose kernel text is `text` (allocated in
 * *out, freed by op2_compiled_request_free after the request). Refused (reported) under a
 * backend that does not run host kernels. */
int op2_compiled_request_make(op2_context *ctx, const op2_loop *loop, const char *text,
                              op2_jit_request *rq, op2_compiled_request **out);
void op2_compiled_request_free(op2_compiled_request *r);
/* The kernel records of the program's procedures (op_exit). */
void op2_compiled_free(op2_context *ctx);

#endif /* OP2_RUNTIME_COMPILED_KERNEL_H */
