/* SPDX-License-Identifier: BSD-3-Clause */
/* The collectives over ranks that runtime/ asks for (declared in runtime/distributed.h), so that
 * runtime/ itself makes no MPI call. Each is a raw collective: the caller agrees on success
 * first (op2_mpi_agree), as every rank must reach it. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/mpi/op2_mpi.h"
#include "runtime/context.h"
#include "runtime/mpi_state.h"
#include "runtime/backend.h"
#include "runtime/error.h"

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

static bool travels_with(const op2_arg_desc *desc, int j, int ref) {
  return j == ref || ((int)desc[j].acc == OP2_ACC_INFO && desc[j].info_of == ref);
}

/* A value's bytes in a record, rounded up to 8 so that every value in it stays aligned. */
static size_t field_bytes(const op2_arg_desc *d) {
  return ((size_t)d->dim * op2_type_size(d->type) + 7) & ~(size_t)7;
}

/* A record per rank: the reduction's partial, then its infos' in argument order, each at an
 * 8-byte boundary (a double after an int info is read in place), as bytes. */
int op2_mpi_reduce_info(op2_context *ctx, const op2_arg_desc *desc, int nargs, int ref,
                        void *const *caller, void *const *mine) {
  size_t rec = 0, p = (size_t)ctx->mpi.size;
  for (int j = 0; j < nargs; j++)
    if (travels_with(desc, j, ref)) rec += field_bytes(&desc[j]);
  char *all = calloc(p + 1, rec);
  void **part = calloc((size_t)nargs, sizeof *part);
  int rc = all && part && caller && mine
               ? OP2_OK
               : op2_error(OP2_ERR_MEM, "op_par_loop: out of memory for a reduction");
  rc = op2_mpi_agree(ctx, rc, "op_par_loop: reduction");
  if (rc == OP2_OK) {
    char *at = all + rec * p; /* this rank's record, after the gathered ones */
    for (int j = 0; j < nargs; j++) {
      if (!travels_with(desc, j, ref)) continue;
      memcpy(at, mine[j], (size_t)desc[j].dim * op2_type_size(desc[j].type));
      at += field_bytes(&desc[j]);
    }
    rc = OP2_MPI(
        MPI_Allgather(all + rec * p, (int)rec, MPI_BYTE, all, (int)rec, MPI_BYTE, op2_comm(ctx)));
  }
  for (size_t r = 0; rc == OP2_OK && r < p; r++) { /* in rank order */
    char *at = all + rec * r;
    for (int j = 0; j < nargs; j++) {
      part[j] = NULL;
      if (!travels_with(desc, j, ref)) continue;
      part[j] = at;
      at += field_bytes(&desc[j]);
    }
    op2_reduction_fold_part(desc, nargs, caller, part);
  }
  free(part);
  free(all);
  return rc;
}
