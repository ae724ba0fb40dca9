/* Data out under MPI: every value goes back to the position the user declared it at. */
#include <stdlib.h>
#include <string.h>

#include "op2_mpi.h"

typedef struct row_head {
  long global;
} row_head;

/* Sends every owned row of the dat to the rank that wants it: dest_of(global) gives the rank;
 * on return `out` holds, for this rank's wanted range [first, first+count), the values. */
static int redistribute(op2_context *ctx, op_dat dat, long first, long count,
                        int (*dest_of)(const op2_context *, op_set, long, int), void *out,
                        int to_all) {
  op_set set = dat->set;
  int p = ctx->mpi.size;
  size_t rec = sizeof(long) + dat->elem_bytes;
  long n = set->size;
  char *items = malloc(rec * ((size_t)n + 1));
  int *dest = malloc(sizeof(int) * ((size_t)n + 1));
  int *counts = malloc(sizeof(int) * 2 * (size_t)p);
  if (!items || !dest || !counts) return free(items), free(dest), free(counts), OP2_ERR_MEM;
  long m = 0;
  for (long e = 0; e < n; e++) {
    long g = set->orig[e];
    int d = to_all ? 0 : dest_of(ctx, set, g, 0);
    if (d < 0) continue;
    memcpy(items + (size_t)m * rec, &g, sizeof g);
    memcpy(items + (size_t)m * rec + sizeof g, dat->data + (size_t)e * dat->elem_bytes,
           dat->elem_bytes);
    dest[m++] = d;
  }
  void *recv = NULL;
  long nrecv = 0;
  int rc = OP2_OK;
  if (to_all) { /* everyone gets everything in range */
    int mine = (int)m, *all = counts, *disp = counts + p;
    MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, ctx->mpi.comm);
    long total = 0;
    for (int q = 0; q < p; q++) disp[q] = (int)(total * (long)rec), total += all[q],
                                all[q] *= (int)rec;
    recv = malloc(rec * ((size_t)total + 1));
    if (!recv) rc = OP2_ERR_MEM;
    else MPI_Allgatherv(items, (int)(m * (long)rec), MPI_BYTE, recv, all, disp, MPI_BYTE, ctx->mpi.comm);
    nrecv = total;
  } else {
    void *grouped;
    rc = op2_group_by_rank(p, m, items, dest, rec, &grouped, counts);
    if (rc == OP2_OK) {
      rc = op2_alltoallv(ctx->mpi.comm, grouped, counts, rec, &recv, counts + p, &nrecv);
      free(grouped);
    }
  }
  for (long k = 0; rc == OP2_OK && k < nrecv; k++) {
    long g;
    memcpy(&g, (char *)recv + (size_t)k * rec, sizeof g);
    if (g < first || g >= first + count) continue;
    memcpy((char *)out + (size_t)(g - first) * dat->elem_bytes,
           (char *)recv + (size_t)k * rec + sizeof g, dat->elem_bytes);
  }
  free(recv), free(items), free(dest), free(counts);
  return rc;
}

/* The rank that declared global index g: declared blocks are contiguous, in rank order. */
static int declarer(const op2_context *ctx, op_set set, long g, int unused) {
  (void)unused;
  int lo = 0, hi = ctx->mpi.size - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (set->decl_firsts[mid] <= g) lo = mid;
    else hi = mid - 1;
  }
  while (lo + 1 < ctx->mpi.size && set->decl_firsts[lo + 1] <= g) lo++;
  return lo;
}

static int uniform_block(const op2_context *ctx, op_set set, long g, int unused) {
  (void)unused;
  int p = ctx->mpi.size, r = (int)((g * (long long)p) / (set->global_size ? set->global_size : 1));
  while (r + 1 < p && op2_block_begin(set->global_size, r + 1, p) <= g) r++;
  while (r > 0 && op2_block_begin(set->global_size, r, p) > g) r--;
  return r;
}

int op2_mpi_fetch(op2_context *ctx, op_dat dat, void *out, long first, long count, int mode) {
  switch (mode) {
    case OP2_FETCH_DECLARED:
      return redistribute(ctx, dat, first, count, declarer, out, 0);
    case OP2_FETCH_BLOCK:
      return redistribute(ctx, dat, first, count, uniform_block, out, 0);
    default:
      return redistribute(ctx, dat, first, count, NULL, out, 1);
  }
}
