/* Personalised all-to-all of fixed-size items: the one communication pattern the partitioning
 * and halo construction steps are built from. */
#include <stdlib.h>
#include <string.h>

#include "op2_mpi.h"

int op2_alltoallv(MPI_Comm comm, const void *send, const int *send_counts, size_t item_bytes,
                  void **recv, int *recv_counts, long *nrecv) {
  int p;
  MPI_Comm_size(comm, &p);
  int *counts = malloc(sizeof(int) * 4 * (size_t)p);
  if (!counts) return op2_error(OP2_ERR_MEM, "MPI exchange: out of memory");
  int *sbytes = counts, *sdisp = counts + p, *rbytes = counts + 2 * p, *rdisp = counts + 3 * p;
  MPI_Alltoall(send_counts, 1, MPI_INT, recv_counts, 1, MPI_INT, comm);
  long stotal = 0, rtotal = 0;
  for (int q = 0; q < p; q++) {
    if ((double)(stotal + send_counts[q]) * (double)item_bytes > 2147483647.0 ||
        (double)(rtotal + recv_counts[q]) * (double)item_bytes > 2147483647.0) {
      free(counts);
      return op2_error(OP2_ERR_MEM, "MPI exchange: more than 2 GiB in one step");
    }
    sbytes[q] = send_counts[q] * (int)item_bytes;
    sdisp[q] = (int)(stotal * (long)item_bytes);
    rbytes[q] = recv_counts[q] * (int)item_bytes;
    rdisp[q] = (int)(rtotal * (long)item_bytes);
    stotal += send_counts[q];
    rtotal += recv_counts[q];
  }
  *recv = malloc((size_t)rtotal * item_bytes + 1);
  if (!*recv) {
    free(counts);
    return op2_error(OP2_ERR_MEM, "MPI exchange: out of memory for %ld items", rtotal);
  }
  MPI_Alltoallv(send, sbytes, sdisp, MPI_BYTE, *recv, rbytes, rdisp, MPI_BYTE, comm);
  *nrecv = rtotal;
  free(counts);
  return OP2_OK;
}

/* Groups items by destination: returns a buffer ordered by rank and the per-rank counts. */
int op2_group_by_rank(int p, long n, const void *items, const int *dest, size_t item_bytes,
                      void **grouped, int *counts) {
  long *fill = calloc((size_t)p + 1, sizeof(long));
  *grouped = malloc((size_t)n * item_bytes + 1);
  if (!fill || !*grouped) {
    free(fill), free(*grouped);
    return op2_error(OP2_ERR_MEM, "MPI exchange: out of memory");
  }
  memset(counts, 0, sizeof(int) * (size_t)p);
  for (long i = 0; i < n; i++) counts[dest[i]]++;
  for (int q = 0; q < p; q++) fill[q + 1] = fill[q] + counts[q];
  for (long i = 0; i < n; i++)
    memcpy((char *)*grouped + (size_t)fill[dest[i]]++ * item_bytes,
           (const char *)items + (size_t)i * item_bytes, item_bytes);
  free(fill);
  return OP2_OK;
}
