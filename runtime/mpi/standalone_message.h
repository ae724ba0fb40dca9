/* SPDX-License-Identifier: BSD-3-Clause */
/* Messages of the MPI helpers that build without the rest of the library (ptscotch.c,
 * geometric.c: their tests compile them alone, so they cannot call op2_error): a failure is said
 * into the caller's buffer of OP2_MPI_MSG_MAX bytes, and the library reports it. */
#ifndef OP2_RUNTIME_MPI_STANDALONE_MESSAGE_H
#define OP2_RUNTIME_MPI_STANDALONE_MESSAGE_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { OP2_MPI_MSG_MAX = 256 };

static inline void op2_mpi_say(char *msg, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline void op2_mpi_say(char *msg, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, OP2_MPI_MSG_MAX, fmt, ap);
  va_end(ap);
}

/* Every MPI call's status is checked: a failure is said in msg with the call, its file and line,
 * and counts as a failure of the step it belongs to (the communicators return errors, not
 * abort). Returns 1 when `rc` is a failure. */
static inline int op2_mpi_call_failed(int rc, const char *call, const char *file, int line,
                                      char *msg) {
  if (rc == MPI_SUCCESS) return 0;
  char why[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, why, &len) != MPI_SUCCESS) snprintf(why, sizeof why, "code %d", rc);
  op2_mpi_say(msg, "%.*s failed (%s:%d): %s", (int)strcspn(call, "("), call, file, line, why);
  return 1;
}
#define OP2_MPI_FAILED(call, msg) op2_mpi_call_failed((call), #call, __FILE__, __LINE__, (msg))

/* Collective: 0 when no rank failed; otherwise -1 on every rank, with the lowest failing rank's
 * message in msg. */
static inline int op2_mpi_standalone_agree(MPI_Comm comm, int failed, char *msg) {
  int rank, size, mine, first;
  if (OP2_MPI_FAILED(MPI_Comm_rank(comm, &rank), msg) ||
      OP2_MPI_FAILED(MPI_Comm_size(comm, &size), msg))
    return -1;
  mine = failed ? rank : size;
  if (OP2_MPI_FAILED(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm), msg)) return -1;
  if (first == size) return 0;
  OP2_MPI_FAILED(MPI_Bcast(msg, OP2_MPI_MSG_MAX, MPI_CHAR, first, comm), msg);
  return -1;
}

#endif /* OP2_RUNTIME_MPI_STANDALONE_MESSAGE_H */
