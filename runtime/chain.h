/* SPDX-License-Identifier: BSD-3-Clause */
/* Lazy execution (OP2_LAZY=on, and by default where it pays): op_par_loop records its call in the
 * context's chain and returns; the chain runs, call by call and in order, when something needs its
 * results. Each call is run by op_par_loop itself, so halo exchanges, reductions, checkpoints and
 * statistics stay exactly those of the eager run. */
#ifndef OP2_CHAIN_H
#define OP2_CHAIN_H

#include <stdbool.h>
#include <stddef.h>

#include "op2.h"
#include "runtime/loop_call.h"

typedef struct op2_context op2_context;

/* Whether op_par_loop queues calls: OP2_LAZY=on, or by default (auto) where queuing buys
 * something: on more than one MPI rank (the chain's halo exchanges travel in groups:
 * chain_mpi.c) or with OP2_FUSE=on (direct loops fused: chain_fuse.c). On one process without
 * fusion a queued call only costs its copy and lets the program see a dat's data member before
 * the call has run, so calls run at once there, as OP2 runs them (docs/PERFORMANCE.md). */
bool op2_chain_lazy(const op2_context *ctx);

/* Whether the call has a global reduction (OP_INC, OP_MIN, OP_MAX on a global): its value is the
 * program's when op_par_loop returns, so the chain runs before it (here and under MPI). */
bool op2_call_has_reduction(const op2_loop_call *call);

/* op_par_loop's hook, before anything else of the call. True: the call was queued and
 * op_par_loop returns at once. False: it runs now, after every queued call has run (lazy
 * execution is off, the loop has a global reduction, the arguments need checking now, the chain
 * is running this call, or the error handler called op_par_loop while it ran). The call's
 * kernel_kept: the library holds the text until op_exit (a kernel header's); its site: the
 * caller's return address, named in messages about the call. */
bool op2_chain_defer(op2_context *ctx, const op2_loop_call *call);

/* Runs every queued call, in order, before `why` (the public call that needs their results,
 * named in the messages of a queued call's errors). Nothing when nothing is queued or the chain
 * is already running. A queued call that fails is reported (naming it) and the rest still run,
 * as each would have after the failed call returned. */
void op2_chain_flush(op2_context *ctx, const char *why);

/* The same for calls that are not collective under MPI (op_printf, op_timers,
 * op_set_error_handler): a program may make them on one rank only, where running the chain (its
 * loops are collective) would leave the ranks out of step, so under MPI they run nothing. */
void op2_chain_flush_local(op2_context *ctx, const char *why);

/* op_decl_const: runs the chain first when the declaration changes a constant's value (queued
 * calls see the values they were called with). */
void op2_chain_before_const(op2_context *ctx, int dim, const char *type, const void *data,
                            const char *name);

/* op2_error: while a queued call runs, writes " (queued ...)" into buf (at most len bytes, NUL
 * included): which op_par_loop call it was, where it was called and what ran the chain. Returns
 * the characters written. */
size_t op2_chain_error_note(const op2_context *ctx, char *buf, size_t len);

/* op_par_loop, with its call's data bound and code ready: true when the chain keeps the call
 * (its pointers copied) to run it later, its exchanges planned with the chain's (under MPI,
 * chain_mpi.c), instead of it running now. */
typedef struct op2_exec op2_exec;
bool op2_chain_capture(op2_context *ctx, const op2_exec *exec);

/* par_loop.c: the statistics, checkpoint log and tuning of a call the chain ran (captured). */
typedef struct op2_loop op2_loop;
void op2_par_loop_record(op2_context *ctx, op2_loop *loop, double seconds,
                         const op2_loop_call *call);

/* op_free_dat_temp: whether a queued call that has not finished running uses `dat` (the chain
 * is running: the program's error handler frees the dat while a queued call failed). */
bool op2_chain_will_use(const op2_context *ctx, op_dat dat);

/* op_exit: releases the chain (op_exit has run it first). */
void op2_chain_free(op2_context *ctx);

#endif /* OP2_CHAIN_H */
