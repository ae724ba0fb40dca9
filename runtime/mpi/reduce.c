/* SPDX-License-Identifier: BSD-3-Clause */
/* The collectives over ranks that runtime/ asks for (declared in runtime/distributed.h), so that
 * runtime/ itself makes no MPI call. Each is a raw collective: the caller agrees on success
 * first (op2_mpi_agree), as every rank must reach it. */
#include <string.h>

#include "runtime/mpi/op2_mpi.h"
#include "runtime/context.h"
#include "runtime/mpi_state.h"
#include "runtime/backend.h"

int op2_mpi_reduce_max_sum(op2_context *ctx, const double *mine, double *max, double *sum, int n) {
  if (ctx->mpi.size < 2) { /* never touches MPI in a program that does not use it */
    memcpy(max, mine, sizeof *mine * (size_t)n);
    if (sum) memcpy(sum, mine, sizeof *mine * (size_t)n);
    return OP2_OK;
  }
  int rc = OP2_MPI(MPI_Reduce(mine, max, n, MPI_DOUBLE, MPI_MAX, 0, op2_comm(ctx)));
  if (rc == OP2_OK && sum)
    rc = OP2_MPI(MPI_Reduce(mine, sum, n, MPI_DOUBLE, MPI_SUM, 0, op2_comm(ctx)));
  return rc;
}

int op2_mpi_gather_doubles(op2_context *ctx, const double *mine, int n, double *all) {
  if (ctx->mpi.size < 2) {
    memcpy(all, mine, sizeof *mine * (size_t)n);
    return OP2_OK;
  }
  return OP2_MPI(MPI_Gather(mine, n, MPI_DOUBLE, all, n, MPI_DOUBLE, 0, op2_comm(ctx)));
}

int op2_mpi_block_of(op2_context *ctx, long local, long *global, long *first) {
  int rc = OP2_MPI(MPI_Allreduce(&local, global, 1, MPI_LONG, MPI_SUM, op2_comm(ctx)));
  if (rc == OP2_OK) rc = OP2_MPI(MPI_Exscan(&local, first, 1, MPI_LONG, MPI_SUM, op2_comm(ctx)));
  if (ctx->mpi.rank == 0) *first = 0; /* MPI_Exscan leaves rank 0's result undefined */
  return rc;
}

/* Under MPI a reduction accumulates into private partials, which are reduced over ranks (into
 * `all`, as large) and folded into the caller's data. */
int op2_mpi_reduce_arg(op2_context *ctx, const op2_arg_desc *d, void *caller, const void *mine,
                       void *all) {
  static const MPI_Datatype types[OP2_TYPE_COUNT] = {[OP2_TYPE_DOUBLE] = MPI_DOUBLE,
                                                     [OP2_TYPE_FLOAT] = MPI_FLOAT,
                                                     [OP2_TYPE_INT] = MPI_INT,
                                                     [OP2_TYPE_LONGLONG] = MPI_LONG_LONG};
  MPI_Op op = d->acc == OP_INC ? MPI_SUM : d->acc == OP_MIN ? MPI_MIN : MPI_MAX;
  OP2_CALL(OP2_MPI(MPI_Allreduce(mine, all, d->dim, types[d->type], op, op2_comm(ctx))));
  op2_reduction_fold(d, caller, all);
  return OP2_OK;
}

/* op_arg_info over ranks: the value of the lowest rank whose partial of the reference (`ref`,
 * reduced already: its result in ref_result) is that result. */
int op2_mpi_reduce_info(op2_context *ctx, const op2_arg_desc *d, void *caller, void *mine,
                        const op2_arg_desc *ref, const void *ref_mine, const void *ref_result) {
  static const MPI_Datatype types[OP2_TYPE_COUNT] = {[OP2_TYPE_DOUBLE] = MPI_DOUBLE,
                                                     [OP2_TYPE_FLOAT] = MPI_FLOAT,
                                                     [OP2_TYPE_INT] = MPI_INT,
                                                     [OP2_TYPE_LONGLONG] = MPI_LONG_LONG};
  int me = memcmp(ref_mine, ref_result, (size_t)ref->dim * op2_type_size(ref->type)) == 0
               ? ctx->mpi.rank
               : ctx->mpi.size,
      winner;
  OP2_CALL(OP2_MPI(MPI_Allreduce(&me, &winner, 1, MPI_INT, MPI_MIN, op2_comm(ctx))));
  if (winner >= ctx->mpi.size) return OP2_OK; /* not reached: some rank holds the result */
  OP2_CALL(OP2_MPI(MPI_Bcast(mine, d->dim, types[d->type], winner, op2_comm(ctx))));
  memcpy(caller, mine, (size_t)d->dim * op2_type_size(d->type));
  return OP2_OK;
}
