/* A distributed directory: where (rank, local index) each global element of a set lives. Entry g
 * is kept by the rank of g's uniform block, so any rank can ask about any element with one
 * all-to-all, without anyone holding the whole mesh. */
#include <stdlib.h>
#include <string.h>

#include "op2_mpi.h"

static int block_rank(long g, long global, int p) {
  /* the r with op2_block_begin(global, r, p) <= g < op2_block_begin(global, r+1, p) */
  int r = (int)(((long long)g * p) / (global > 0 ? global : 1));
  while (r + 1 < p && op2_block_begin(global, r + 1, p) <= g) r++;
  while (r > 0 && op2_block_begin(global, r, p) > g) r--;
  return r;
}

typedef struct entry {
  long global;
  int rank, local;
} entry;

int op2_dir_build(op2_context *ctx, long global, int n, const long *globals, op2_directory *dir) {
  int p = ctx->mpi.size, me = ctx->mpi.rank;
  dir->global = global;
  dir->first = op2_block_begin(global, me, p);
  dir->count = (int)(op2_block_begin(global, me + 1, p) - dir->first);
  dir->where = malloc(sizeof(int) * 2 * ((size_t)dir->count + 1));
  entry *items = malloc(sizeof(entry) * ((size_t)n + 1));
  int *dest = malloc(sizeof(int) * ((size_t)n + 1));
  int *counts = malloc(sizeof(int) * 2 * (size_t)p);
  int rc = dir->where && items && dest && counts
               ? OP2_OK
               : op2_error(OP2_ERR_MEM, "directory: out of memory");
  for (int i = 0; rc == OP2_OK && i < 2 * dir->count; i++) dir->where[i] = -1;
  for (int i = 0; rc == OP2_OK && i < n; i++) {
    items[i] = (entry){globals[i], me, i};
    dest[i] = block_rank(globals[i], global, p);
  }
  void *grouped = NULL, *recv;
  long nrecv;
  if (rc == OP2_OK) rc = op2_group_by_rank(p, n, items, dest, sizeof(entry), &grouped, counts);
  rc = op2_alltoallv(ctx, rc, grouped, counts, sizeof(entry), &recv, counts + p, &nrecv);
  if (rc == OP2_OK) {
    const entry *in = recv;
    for (long i = 0; i < nrecv; i++) {
      long k = in[i].global - dir->first;
      dir->where[2 * k] = in[i].rank;
      dir->where[2 * k + 1] = in[i].local;
    }
    free(recv);
  }
  free(grouped), free(items), free(dest), free(counts);
  return rc;
}

int op2_dir_query(op2_context *ctx, const op2_directory *dir, long n, const long *globals,
                  int *rank_out, int *local_out) {
  int p = ctx->mpi.size;
  int *dest = malloc(sizeof(int) * ((size_t)n + 1));
  long *order = malloc(sizeof(long) * ((size_t)n + 1));
  int *counts = malloc(sizeof(int) * 2 * (size_t)p);
  long *fill = calloc((size_t)p + 1, sizeof(long));
  int rc =
      dest && order && counts && fill ? OP2_OK : op2_error(OP2_ERR_MEM, "directory: out of memory");
  for (long i = 0; rc == OP2_OK && i < n; i++) dest[i] = block_rank(globals[i], dir->global, p);
  void *grouped = NULL, *questions, *answers_back;
  long nq, nback;
  if (rc == OP2_OK) rc = op2_group_by_rank(p, n, globals, dest, sizeof(long), &grouped, counts);
  rc = op2_alltoallv(ctx, rc, grouped, counts, sizeof(long), &questions, counts + p, &nq);
  int *answers = NULL;
  int asked = rc == OP2_OK; /* every rank asked: every rank answers */
  if (asked) {
    answers = malloc(sizeof(int) * 2 * ((size_t)nq + 1));
    if (!answers) rc = op2_error(OP2_ERR_MEM, "directory: out of memory");
    for (long i = 0; rc == OP2_OK && i < nq; i++) {
      long k = ((const long *)questions)[i] - dir->first;
      answers[2 * i] = dir->where[2 * k];
      answers[2 * i + 1] = dir->where[2 * k + 1];
    }
    free(questions);
  }
  /* answers go back in the order the questions came, so counts swap roles */
  if (asked)
    rc =
        op2_alltoallv(ctx, rc, answers, counts + p, 2 * sizeof(int), &answers_back, counts, &nback);
  if (rc == OP2_OK) {
    const int *a = answers_back;
    for (int q = 0; q < p; q++) fill[q + 1] = fill[q] + counts[q];
    for (long i = 0; i < n; i++) { /* the same stable grouping as op2_group_by_rank */
      long at = fill[dest[i]]++;
      if (rank_out) rank_out[i] = a[2 * at];
      if (local_out) local_out[i] = a[2 * at + 1];
    }
    free(answers_back);
  }
  free(grouped), free(answers), free(dest), free(order), free(counts), free(fill);
  return rc;
}

void op2_dir_free(op2_directory *dir) {
  free(dir->where);
  memset(dir, 0, sizeof *dir);
}
