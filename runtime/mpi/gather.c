/* SPDX-License-Identifier: BSD-3-Clause */
/* Data out under MPI: every value goes back to the position the user declared it at. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/mpi/op2_mpi.h"
#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/options.h"
#include "runtime/mpi_state.h"
#include "runtime/mesh.h"
#include "runtime/backend.h"

typedef struct row_head {
  long global;
} row_head;

/* Moves owned rows to the ranks that want them. With dest_of, each row goes to dest_of(global)
 * (whose wanted range holds it); without, each rank wants its own range [first, first+count)
 * (ranges may differ and overlap) and a row goes to every rank whose range holds it. Only wanted
 * rows travel, so a small range costs little. On return `out` holds this rank's range.
 * Collective: every rank ends it, and learns whether every rank succeeded. */
static int redistribute(op2_context *ctx, op_dat dat, long first, long count,
                        int (*dest_of)(const op2_context *, op_set, long), void *out) {
  op_set set = dat->set;
  int p = ctx->mpi.size;
  size_t rec = sizeof(long) + dat->elem_bytes;
  long n = set->size, *ranges = malloc(sizeof(long) * 2 * (size_t)p);
  int *counts = malloc(sizeof(int) * 2 * (size_t)p);
  int rc = ranges && counts ? OP2_OK
                            : op2_error(OP2_ERR_MEM, "fetching dat '%s': out of memory", dat->name);
  if (!dest_of) { /* every rank's wanted range, so that only wanted rows are sent */
    rc = op2_mpi_agree(ctx, rc, "a fetch of dat values");
    long mine[2] = {first, count};
    if (rc == OP2_OK)
      rc = OP2_MPI(MPI_Allgather(mine, 2, MPI_LONG, ranges, 2, MPI_LONG, op2_comm(ctx)));
  }
  long m = 0; /* rows to send: each row once per rank that wants it */
  for (long e = 0; rc == OP2_OK && e < n; e++) {
    long g = set->orig ? set->orig[e] : set->decl_first + e;
    for (int q = 0; !dest_of && q < p; q++)
      m += g >= ranges[2 * q] && g < ranges[2 * q] + ranges[2 * q + 1];
  }
  if (dest_of) m = n;
  char *items = rc == OP2_OK ? malloc(rec * ((size_t)m + 1)) : NULL;
  int *dest = rc == OP2_OK ? malloc(sizeof(int) * ((size_t)m + 1)) : NULL;
  if (rc == OP2_OK && (!items || !dest))
    rc = op2_error(OP2_ERR_MEM, "fetching dat '%s': out of memory", dat->name);
  m = 0;
  for (long e = 0; rc == OP2_OK && e < n; e++) {
    /* before distribution element e is the declared decl_first + e */
    long g = set->orig ? set->orig[e] : set->decl_first + e;
    for (int q = 0; q < (dest_of ? 1 : p); q++) {
      if (!dest_of && !(g >= ranges[2 * q] && g < ranges[2 * q] + ranges[2 * q + 1])) continue;
      memcpy(items + (size_t)m * rec, &g, sizeof g);
      memcpy(items + (size_t)m * rec + sizeof g, dat->data + (size_t)e * dat->elem_bytes,
             dat->elem_bytes);
      dest[m++] = dest_of ? dest_of(ctx, set, g) : q;
    }
  }
  void *grouped = NULL, *recv = NULL;
  long nrecv = 0;
  if (rc == OP2_OK) rc = op2_group_by_rank(p, m, items, dest, rec, &grouped, counts);
  rc = op2_alltoallv(ctx, rc, grouped, counts, rec, &recv, counts + p, &nrecv);
  if (rc == OP2_OK) ctx->mpi.fetch_bytes_received += nrecv * (long)rec;
  for (long k = 0; rc == OP2_OK && k < nrecv; k++) {
    long g;
    memcpy(&g, (char *)recv + (size_t)k * rec, sizeof g);
    if (g < first || g >= first + count) continue;
    memcpy((char *)out + (size_t)(g - first) * dat->elem_bytes,
           (char *)recv + (size_t)k * rec + sizeof g, dat->elem_bytes);
  }
  free(grouped), free(recv), free(items), free(dest), free(counts), free(ranges);
  return rc;
}

/* The rank that declared global index g: declared blocks are contiguous, in rank order. */
static int declarer(const op2_context *ctx, op_set set, long g) {
  int lo = 0, hi = ctx->mpi.size - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (set->decl_firsts[mid] <= g)
      lo = mid;
    else
      hi = mid - 1;
  }
  while (lo + 1 < ctx->mpi.size && set->decl_firsts[lo + 1] <= g) lo++;
  return lo;
}

static int uniform_block(const op2_context *ctx, op_set set, long g) {
  g -= op2_gid_base(ctx); /* the blocks split the user's indices */
  int p = ctx->mpi.size, r = (int)((g * (long long)p) / (set->global_size ? set->global_size : 1));
  while (r + 1 < p && op2_block_begin(set->global_size, r + 1, p) <= g) r++;
  while (r > 0 && op2_block_begin(set->global_size, r, p) > g) r--;
  return r;
}

int op2_mpi_fetch(op2_context *ctx, op_dat dat, void *out, long first, long count, int mode) {
  if (ctx->opt.fault[0]) /* the same option on every rank: all agree, or none */
    OP2_CALL(op2_mpi_agree(
        ctx,
        op2_fault(ctx, "gather")
            ? op2_error(OP2_ERR_STATE, "gathering dat '%s': failure injected by OP2_FAULT",
                        dat->name)
            : OP2_OK,
        "a gather of dat values"));
  first += op2_gid_base(ctx); /* the user's index -> the global id */
  switch (mode) {
    case OP2_FETCH_DECLARED:
      return redistribute(ctx, dat, first, count, declarer, out);
    case OP2_FETCH_BLOCK:
      return redistribute(ctx, dat, first, count, uniform_block, out);
    default:
      return redistribute(ctx, dat, first, count, NULL, out);
  }
}

/* This rank's uniform block of the user's order: [first, first + count) of the set. */
static void my_block(const op2_context *ctx, op_set set, long *first, long *count) {
  *first = op2_block_begin(set->global_size, ctx->mpi.rank, ctx->mpi.size);
  *count = op2_block_begin(set->global_size, ctx->mpi.rank + 1, ctx->mpi.size) - *first;
}

int op2_dat_gather_block(op_dat dat, long *first, long *count, void **values) {
  op2_context *ctx = op2_ctx();
  OP2_CALL(op2_mpi_prepare(ctx));
  OP2_CALL(op2_dat_sync_host(ctx, dat));
  my_block(ctx, dat->set, first, count);
  *values = malloc((size_t)*count * dat->elem_bytes + 1);
  int rc =
      *values ? OP2_OK : op2_error(OP2_ERR_MEM, "gathering dat '%s': out of memory", dat->name);
  rc = op2_mpi_agree(ctx, rc, "a gather of dat values"); /* before the fetch's collectives */
  return rc == OP2_OK ? op2_mpi_fetch(ctx, dat, *values, *first, *count, OP2_FETCH_BLOCK) : rc;
}

int op2_map_gather_block(op_map map, long *first, long *count, int **values) {
  op2_context *ctx = op2_ctx();
  OP2_CALL(op2_mpi_prepare(ctx));
  op_set from = map->from;
  /* the owned rows with their values back in the user's global numbering, shipped like a dat */
  int *rows = malloc(sizeof(int) * ((size_t)from->size * map->dim + 1));
  int rc = rows ? OP2_OK : op2_error(OP2_ERR_MEM, "gathering map '%s': out of memory", map->name);
  rc = op2_mpi_agree(ctx, rc, "a gather of map values"); /* before the fetch's collectives */
  if (rc != OP2_OK) return free(rows), rc;
  for (size_t k = 0; rc == OP2_OK && k < (size_t)from->size * (size_t)map->dim; k++) {
    /* the user's index of the target (map values are the user's until the halo build) */
    idx_g_t g = map->gvalues    ? map->gvalues[k] - op2_gid_base(ctx)
                : map->to->orig ? map->to->orig[map->values[k]] - op2_gid_base(ctx)
                                : map->values[k];
    if (g > INT_MAX) /* OP2's map datasets (and this gather's rows) hold ints */
      rc = op2_error(OP2_ERR_ARG, "gathering map '%s': global index %lld does not fit an int",
                     map->name, (long long)g);
    rows[k] = (int)g;
  }
  rc = op2_mpi_agree(ctx, rc, "a gather of map values");
  if (rc != OP2_OK) return free(rows), rc;
  struct op2_dat as_dat = {.set = from,
                           .dim = map->dim,
                           .type = OP2_TYPE_INT,
                           .elem_bytes = sizeof(int) * (size_t)map->dim,
                           .data = (char *)rows,
                           .name = map->name};
  my_block(ctx, from, first, count);
  *values = malloc(as_dat.elem_bytes * (size_t)*count + 1);
  rc = *values ? OP2_OK : op2_error(OP2_ERR_MEM, "gathering map '%s': out of memory", map->name);
  rc = op2_mpi_agree(ctx, rc, "a gather of map values");
  if (rc == OP2_OK) rc = op2_mpi_fetch(ctx, &as_dat, *values, *first, *count, OP2_FETCH_BLOCK);
  free(rows);
  return rc;
}
