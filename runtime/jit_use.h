/* SPDX-License-Identifier: BSD-3-Clause */
/* Asking jit/ (jit_use.c): the engine from the options, a loop as jit/ sees it, its kernel. */
#ifndef OP2_RUNTIME_JIT_USE_H
#define OP2_RUNTIME_JIT_USE_H

#include "jit/jit.h"

typedef struct op2_context op2_context;
typedef struct op2_loop op2_loop;

/* The engine from the user's options (op_init), and its end (op_exit). */
int op2_jit_init(op2_context *ctx);
void op2_jit_fini(op2_context *ctx);
/* Reports the failure a jit/ call recorded (once); returns rc. */
int op2_jit_report(op2_context *ctx, int rc);
/* The loop as jit/ sees it: pointers into the loop and the declared constants, no copies. */
void op2_loop_describe(const op2_context *ctx, const op2_loop *loop, op2_loop_desc *d);
/* Gives the loop its C kernel (loop->kernel) and counts it in the loop's statistics. */
int op2_loop_kernel(op2_context *ctx, op2_loop *loop, const char *kernel_src);
/* Swaps in k's finished optimised build; blocks until every queued build has finished. */
void op2_jit_poll_kernel(op2_context *ctx, op2_kernel *k);
void op2_jit_wait_all(op2_context *ctx);

#endif /* OP2_RUNTIME_JIT_USE_H */
