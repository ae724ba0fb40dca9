/* SPDX-License-Identifier: BSD-3-Clause */
/* Personalised all-to-all of fixed-size items: the one communication pattern the partitioning
 * and halo construction steps are built from. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/mpi/op2_mpi.h"
#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/mpi_state.h"

int op2_alltoallv(op2_context *ctx, int status, const void *send, const int *send_counts,
                  size_t item_bytes, void **recv, int *recv_counts, long *nrecv) {
  MPI_Comm comm = op2_comm(ctx);
  int p = ctx->mpi.size;
  *recv = NULL;
  *nrecv = 0;
  int *counts = status == OP2_OK ? malloc(sizeof(int) * 4 * (size_t)p) : NULL;
  if (status == OP2_OK && !counts) status = op2_error(OP2_ERR_MEM, "MPI exchange: out of memory");
  status = op2_mpi_agree(ctx, status, "an exchange of mesh data"); /* another rank's failure too */
  if (status != OP2_OK) return free(counts), status;
  /* Counts and displacements are in items of one contiguous type, so offsets past 2 GiB need no
   * int byte offset; only more than INT_MAX items in one step is refused. */
  int *sdisp = counts, *rdisp = counts + p;
  int rc = OP2_MPI(MPI_Alltoall(send_counts, 1, MPI_INT, recv_counts, 1, MPI_INT, comm));
  long stotal = 0, rtotal = 0;
  for (int q = 0; rc == OP2_OK && q < p; q++) {
    if (stotal > INT_MAX || rtotal > INT_MAX) {
      rc = op2_error(OP2_ERR_MEM, "MPI exchange: more than %d items in one step", INT_MAX);
      break;
    }
    sdisp[q] = (int)stotal;
    rdisp[q] = (int)rtotal;
    stotal += send_counts[q];
    rtotal += recv_counts[q];
  }
  if (rc == OP2_OK) {
    *recv = malloc((size_t)rtotal * item_bytes + 1);
    if (!*recv) rc = op2_error(OP2_ERR_MEM, "MPI exchange: out of memory for %ld items", rtotal);
  }
  MPI_Datatype item = MPI_DATATYPE_NULL;
  if (rc == OP2_OK) rc = OP2_MPI(MPI_Type_contiguous((int)item_bytes, MPI_BYTE, &item));
  if (rc == OP2_OK) rc = OP2_MPI(MPI_Type_commit(&item));
  rc = op2_mpi_agree(ctx, rc, "an exchange of mesh data");
  if (rc == OP2_OK)
    rc = OP2_MPI(
        MPI_Alltoallv(send, send_counts, sdisp, item, *recv, recv_counts, rdisp, item, comm));
  if (item != MPI_DATATYPE_NULL) OP2_MPI(MPI_Type_free(&item));
  free(counts);
  if (rc != OP2_OK) {
    free(*recv);
    *recv = NULL;
    return rc;
  }
  *nrecv = rtotal;
  return OP2_OK;
}

/* Groups items by destination: returns a buffer ordered by rank and the per-rank counts. The
 * distribution steps group millions of 4-, 8- and 16-byte items: a copy of a size known at compile
 * time is a move, not a call. */
int op2_group_by_rank(int p, long n, const void *items, const int *dest, size_t item_bytes,
                      void **grouped, int *counts) {
  long *fill = calloc((size_t)p + 1, sizeof(long));
  *grouped = malloc((size_t)n * item_bytes + 1);
  if (!fill || !*grouped) {
    free(fill), free(*grouped);
    *grouped = NULL;
    return op2_error(OP2_ERR_MEM, "MPI exchange: out of memory");
  }
  memset(counts, 0, sizeof(int) * (size_t)p);
  for (long i = 0; i < n; i++) counts[dest[i]]++;
  for (int q = 0; q < p; q++) fill[q + 1] = fill[q] + counts[q];
#define GROUP(BYTES)                                               \
  do {                                                             \
    for (long i = 0; i < n; i++)                                   \
      memcpy((char *)*grouped + (size_t)fill[dest[i]]++ * (BYTES), \
             (const char *)items + (size_t)i * (BYTES), (BYTES));  \
  } while (0)
  if (item_bytes == 4)
    GROUP(4);
  else if (item_bytes == 8)
    GROUP(8);
  else if (item_bytes == 16)
    GROUP(16);
  else
    GROUP(item_bytes);
#undef GROUP
  free(fill);
  return OP2_OK;
}
