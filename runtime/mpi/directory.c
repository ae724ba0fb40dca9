/* SPDX-License-Identifier: BSD-3-Clause */
/* A distributed directory: where (rank, local index) each global element of a set lives. Entry g
 * is kept by the rank of g's uniform block, so any rank can ask about any element with one
 * all-to-all, without anyone holding the whole mesh. Where every rank holds one run of
 * consecutive global indices in local order (the declared blocks kept, as for Airfoil), each
 * rank learns every run instead and answers by arithmetic, with no messages (the all-to-alls were
 * most of the directories' time, and the directories a large part of the halo build's). */
#include <stdlib.h>
#include <string.h>

#include "runtime/mpi/op2_mpi.h"
#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/mpi_state.h"

static int block_rank(long g, long global, int p) {
  /* the r with op2_block_begin(global, r, p) <= g < op2_block_begin(global, r+1, p), g counted
   * from the set's first global id */
  int r = (int)(((long long)g * p) / (global > 0 ? global : 1));
  while (r + 1 < p && op2_block_begin(global, r + 1, p) <= g) r++;
  while (r > 0 && op2_block_begin(global, r, p) > g) r--;
  return r;
}

typedef struct entry {
  long global;
  int rank, local;
} entry;

typedef struct run {
  long first, count, in_order;
} run;

/* Every rank's run of global indices, when each rank's are consecutive and in local order;
 * collective, and the same answer on every rank (*found 0: build the directory by messages). */
static int learn_runs(op2_context *ctx, int n, const long *globals, op2_directory *dir,
                      int *found) {
  int p = ctx->mpi.size;
  run mine = {n ? globals[0] : 0, n, 1};
  for (int i = 1; i < n && mine.in_order; i++) mine.in_order = globals[i] == globals[0] + i;
  run *to_all = malloc(sizeof(run) * (size_t)p);
  int *counts = malloc(sizeof(int) * 2 * (size_t)p);
  int rc = to_all && counts ? OP2_OK : op2_error(OP2_ERR_MEM, "directory: out of memory");
  for (int q = 0; rc == OP2_OK && q < p; q++) to_all[q] = mine, counts[q] = 1;
  void *recv;
  long nrecv;
  rc = op2_alltoallv(ctx, rc, to_all, counts, sizeof(run), &recv, counts + p, &nrecv);
  *found = rc == OP2_OK && nrecv == p;
  for (int q = 0; *found && q < p; q++) *found = ((const run *)recv)[q].in_order != 0;
  if (*found) {
    dir->run_first = malloc(sizeof(long) * (size_t)p);
    dir->run_count = malloc(sizeof(long) * (size_t)p);
    if (!dir->run_first || !dir->run_count) { /* this rank alone: it fails, the others learn */
      free(dir->run_first), free(dir->run_count);
      dir->run_first = dir->run_count = NULL;
      rc = op2_error(OP2_ERR_MEM, "directory: out of memory");
    }
    for (int q = 0; rc == OP2_OK && q < p; q++)
      dir->run_first[q] = ((const run *)recv)[q].first,
      dir->run_count[q] = ((const run *)recv)[q].count;
  }
  free(recv), free(to_all), free(counts); /* recv is NULL when the exchange failed */
  return rc;
}

/* Rank and local index of global element g from the runs; -1, -1 when no rank holds it. */
static void from_runs(const op2_directory *dir, int p, long g, int *rank, int *local) {
  *rank = *local = -1;
  for (int q = 0; q < p; q++) /* p is the number of ranks: a scan costs less than a sort */
    if (g >= dir->run_first[q] && g - dir->run_first[q] < dir->run_count[q]) {
      *rank = q, *local = (int)(g - dir->run_first[q]);
      return;
    }
}

int op2_dir_build(op2_context *ctx, long global, int n, const long *globals, op2_directory *dir) {
  int p = ctx->mpi.size, me = ctx->mpi.rank;
  memset(dir, 0, sizeof *dir);
  dir->global = global;
  int runs;
  OP2_CALL(learn_runs(ctx, n, globals, dir, &runs));
  if (runs) return OP2_OK;
  dir->base = op2_gid_base(ctx); /* the set's ids are [base, base + global) */
  dir->first = dir->base + op2_block_begin(global, me, p);
  dir->count = dir->base + op2_block_begin(global, me + 1, p) - dir->first;
  dir->where = malloc(sizeof(int) * 2 * ((size_t)dir->count + 1));
  entry *items = malloc(sizeof(entry) * ((size_t)n + 1));
  int *dest = malloc(sizeof(int) * ((size_t)n + 1));
  int *counts = malloc(sizeof(int) * 2 * (size_t)p);
  int rc = dir->where && items && dest && counts
               ? OP2_OK
               : op2_error(OP2_ERR_MEM, "directory: out of memory");
  for (long i = 0; rc == OP2_OK && i < 2 * dir->count; i++) dir->where[i] = -1;
  for (int i = 0; rc == OP2_OK && i < n; i++) {
    items[i] = (entry){globals[i], me, i};
    dest[i] = block_rank(globals[i] - dir->base, global, p);
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
  if (dir->run_first) { /* every rank has the runs: nobody sends anything */
    for (long i = 0; i < n; i++) {
      int rank, local;
      from_runs(dir, p, globals[i], &rank, &local);
      if (rank_out) rank_out[i] = rank;
      if (local_out) local_out[i] = local;
    }
    return OP2_OK;
  }
  int *dest = malloc(sizeof(int) * ((size_t)n + 1));
  long *order = malloc(sizeof(long) * ((size_t)n + 1));
  int *counts = malloc(sizeof(int) * 2 * (size_t)p);
  long *fill = calloc((size_t)p + 1, sizeof(long));
  int rc =
      dest && order && counts && fill ? OP2_OK : op2_error(OP2_ERR_MEM, "directory: out of memory");
  for (long i = 0; rc == OP2_OK && i < n; i++)
    dest[i] = block_rank(globals[i] - dir->base, dir->global, p);
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
  free(dir->where), free(dir->run_first), free(dir->run_count);
  memset(dir, 0, sizeof *dir);
}
