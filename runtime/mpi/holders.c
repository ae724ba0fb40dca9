/* SPDX-License-Identifier: BSD-3-Clause */
/* Who declared each global index (distribute.h): the ranks' declared blocks, known to every rank,
 * and the one question the distribution's steps ask of them: what the holders of some global ids
 * have in a table of theirs. */
#include <stdlib.h>

#include "runtime/mpi/distribute.h"
#include "runtime/error.h"

int op2_holders_init(op2_context *ctx, op2_holders *h) {
  int p = ctx->mpi.size, ns = ctx->sets.count;
  h->first = malloc(sizeof(long) * (size_t)(p + 1) * (size_t)(ns ? ns : 1));
  int agreed =
      op2_mpi_agree(ctx, h->first ? OP2_OK : op2_error(OP2_ERR_MEM, "partitioning: out of memory"),
                    "distribution");
  if (agreed != OP2_OK) { /* another rank failed, or is in another call */
    free(h->first);
    h->first = NULL;
    return agreed;
  }
  for (int s = 0; s < ns; s++) {
    op_set set = ctx->sets.items[s];
    long *f = h->first + (size_t)s * (p + 1);
    int rc = OP2_MPI(MPI_Allgather(&set->decl_first, 1, MPI_LONG, f, 1, MPI_LONG, op2_comm(ctx)));
    if (rc != OP2_OK) {
      free(h->first);
      h->first = NULL;
      return rc;
    }
    f[p] = op2_gid_base(ctx) + set->global_size;
  }
  return OP2_OK;
}

int op2_holder_of(const op2_holders *h, int p, op_set set, long g) {
  const long *f = h->first + (size_t)set->index * (p + 1);
  int lo = 0, hi = p - 1;
  while (lo < hi) { /* last rank whose first <= g */
    int mid = (lo + hi + 1) / 2;
    if (f[mid] <= g)
      lo = mid;
    else
      hi = mid - 1;
  }
  while (lo + 1 < p && f[lo + 1] <= g && f[lo + 1] == f[lo]) lo++;
  return lo;
}

int op2_pair_cmp(const void *x, const void *y) {
  const op2_pair *a = x, *b = y;
  if (a->a != b->a) return (a->a > b->a) - (a->a < b->a);
  return (a->b > b->b) - (a->b < b->b);
}

int op2_holders_lookup(op2_context *ctx, int status, long n, const long *keys, const int *dest,
                       const long *table, long first, long *answers) {
  int p = ctx->mpi.size;
  int *counts = malloc(sizeof(int) * 2 * (size_t)p);
  long *fill = calloc((size_t)p + 1, sizeof(long));
  void *grouped = NULL, *questions = NULL, *back = NULL;
  long nq = 0, nback = 0;
  int rc = status;
  if (rc == OP2_OK && (!counts || !fill))
    rc = op2_error(OP2_ERR_MEM, "partitioning: out of memory");
  if (rc == OP2_OK) rc = op2_group_by_rank(p, n, keys, dest, sizeof(long), &grouped, counts);
  rc = op2_alltoallv(ctx, rc, grouped, counts, sizeof(long), &questions, counts + p, &nq);
  for (long k = 0; rc == OP2_OK && k < nq; k++)
    ((long *)questions)[k] = table[((long *)questions)[k] - first];
  rc = op2_alltoallv(ctx, rc, questions, counts + p, sizeof(long), &back, counts, &nback);
  if (rc == OP2_OK) {
    for (int q = 0; q < p; q++) fill[q + 1] = fill[q] + counts[q];
    for (long i = 0; i < n; i++) answers[i] = ((long *)back)[fill[dest[i]]++];
  }
  free(counts), free(fill), free(grouped), free(questions), free(back);
  return rc;
}
