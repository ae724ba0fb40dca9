/* SPDX-License-Identifier: BSD-3-Clause */
/* A lazy chain under MPI (runtime/chain_mpi.c): its halo exchanges planned for the chain as a
 * whole. Each call goes through op_par_loop up to its run (checked, agreed by the ranks, bound)
 * and is handed back; then the dats each call needs refreshed (read through a map, or read at
 * all by a call that runs its exec halo, and written since their last exchange) are grouped:
 * every dat whose last writer before its first reader is at or before a point of the chain
 * travels in that point's group, one message per neighbour for the whole group. The calls then
 * run in order, each in its phases (core while its groups travel, the other owned elements,
 * the exec halo), each a step of its own as when run one by one. */
#ifndef OP2_CHAIN_MPI_H
#define OP2_CHAIN_MPI_H

#include <stdbool.h>

#include "op2.h"
#include "runtime/loop_call.h"

typedef struct op2_context op2_context;
typedef struct op2_exec op2_exec;
struct op2_chain;
typedef struct op2_chain_mpi op2_chain_mpi;

/* What running a chain did. */
enum { OP2_CHAIN_NOT_RUN, OP2_CHAIN_RAN, OP2_CHAIN_FREED };

/* Runs chain c under MPI with its exchanges planned (*state keeps the plan's buffers from one
 * chain to the next). OP2_CHAIN_NOT_RUN: not for this chain (a backend with its own code,
 * checkpoints, tuning), the calls then run one by one; OP2_CHAIN_FREED: op_exit ran inside and
 * the chain is gone. */
int op2_chain_mpi_run(op2_context *ctx, struct op2_chain *c, op2_chain_mpi **state);
void op2_chain_mpi_free(op2_chain_mpi *state);

/* chain.c: the calls as this file runs them. */
int op2_chain_length(const struct op2_chain *c);
/* Queued call i (the plan reads its name, set and arguments: access modes, maps, dats). */
void op2_chain_call_of(const struct op2_chain *c, int i, op2_loop_call *out);
/* Every call's capture buffers (before the first capture); false when out of memory. */
bool op2_chain_capture_ready(struct op2_chain *c);
/* Call i through op_par_loop: run now, or (capture) handed back bound and ready in *exec (NULL:
 * it failed, reported and agreed there). OP2_CHAIN_FREED when op_exit ran inside. */
int op2_chain_call_run(op2_context *ctx, struct op2_chain *c, int i, bool capture,
                       const op2_exec **exec);
/* Calls first..last are running (named in their errors); OP2_CHAIN_FREED when op_exit ran. */
int op2_chain_running(struct op2_chain *c, int first, int last);
/* Between the chain's calls (the ranks agreeing on its plan): errors name no queued call. */
void op2_chain_agreeing(struct op2_chain *c, bool agreeing);
/* What made the chain run ("op_exit", "op_par_loop 'NAME' (a global reduction)", ...). */
const char *op2_chain_why(const struct op2_chain *c);

#endif /* OP2_CHAIN_MPI_H */
