/* SPDX-License-Identifier: BSD-3-Clause */
/* Failures of the MPI helpers that build without the rest of the library (the graph partitioner's
 * files: graph_sym.c, graph_quality.c, ptscotch.c; geometric.c: their tests compile them alone,
 * with base/base.c, so they cannot call op2_error): a failure fills the caller's failure record
 * (op2_jit_error, as jit/'s helpers do), agreed across the ranks, and the library reports it
 * once (op2_error_record). */
#ifndef OP2_RUNTIME_MPI_STANDALONE_MESSAGE_H
#define OP2_RUNTIME_MPI_STANDALONE_MESSAGE_H

#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "base/base.h"

/* This rank's own failure, in the record at the caller's place (code OP2_ERR_STATE). */
#define op2_mpi_say(e, ...) op2_jit_error_set((e), OP2_ERR_STATE, __VA_ARGS__)

/* Every MPI call's status is checked: a failure is said in *e with the call, its file and line,
 * and counts as a failure of the step it belongs to (the communicators return errors, not
 * abort). Returns 1 when `rc` is a failure. */
static inline int op2_mpi_call_failed(int rc, const char *call, const char *file, int line,
                                      const char *func, op2_jit_error *e) {
  if (rc == MPI_SUCCESS) return 0;
  char why[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, why, &len) != MPI_SUCCESS) snprintf(why, sizeof why, "code %d", rc);
  op2_jit_error_set_at(e, file, line, func, OP2_ERR_STATE, "%.*s failed (%s:%d): %s",
                       (int)strcspn(call, "("), call, file, line, why);
  return 1;
}
#define OP2_MPI_FAILED(call, e) \
  op2_mpi_call_failed((call), #call, __FILE__, __LINE__, __func__, (e))

/* Collective: 0 when no rank failed; otherwise -1 on every rank, with the lowest failing rank's
 * message in *e (on the other ranks placed where they learned of it). */
static inline int op2_mpi_standalone_agree_at(MPI_Comm comm, int failed, op2_jit_error *e,
                                              const char *file, int line, const char *func) {
  int rank, size, mine, first;
  if (OP2_MPI_FAILED(MPI_Comm_rank(comm, &rank), e) ||
      OP2_MPI_FAILED(MPI_Comm_size(comm, &size), e))
    return -1;
  mine = failed ? rank : size;
  if (OP2_MPI_FAILED(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm), e)) return -1;
  if (first == size) return 0;
  if (rank != first) e->code = OP2_ERR_STATE, e->file = file, e->line = line, e->func = func;
  OP2_MPI_FAILED(MPI_Bcast(e->msg, (int)sizeof e->msg, MPI_CHAR, first, comm), e);
  return -1;
}
#define op2_mpi_standalone_agree(comm, failed, e) \
  op2_mpi_standalone_agree_at((comm), (failed), (e), __FILE__, __LINE__, __func__)

#endif /* OP2_RUNTIME_MPI_STANDALONE_MESSAGE_H */
