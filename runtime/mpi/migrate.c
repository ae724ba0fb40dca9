/* SPDX-License-Identifier: BSD-3-Clause */
/* The distribution's fourth step: every element moved to its owner (owners.c), a set at a time
 * and, within a set, one array (a dat's rows or a map's) at a time. Collective. */
#include <stdlib.h>
#include <string.h>

#include "runtime/mpi/distribute.h"
#include "runtime/error.h"
#include "runtime/alloc.h"

/* One array of the set (a dat's rows or a map's), moved: its leaving rows packed in destination
 * order (slot[]), exchanged, and the array rearranged in the new order (by[]: a received row's
 * index, or -1 - an index into stay[]), so the set's other arrays are never copied at the same
 * time. Collective: every rank calls it for the same arrays, with its status so far. */
static int move_array(op2_context *ctx, int status, op_set set, char **data, size_t row,
                      long nleave, const int *leave, const int *slot, const int *counts,
                      const int *stay, long n, const op2_pair *by, int keep) {
  int p = ctx->mpi.size;
  int *recv_counts = malloc(sizeof(int) * (size_t)p);
  char *send = status == OP2_OK ? malloc(row * (size_t)nleave + 1) : NULL, *recv = NULL;
  int rc = status != OP2_OK ? status
           : send && recv_counts
               ? OP2_OK
               : op2_error(OP2_ERR_MEM, "moving set '%s': out of memory", set->name);
  for (long i = 0; rc == OP2_OK && i < nleave; i++)
    memcpy(send + (size_t)slot[i] * row, *data + (size_t)leave[i] * row, row);
  long nrecv = 0;
  rc = op2_alltoallv(ctx, rc, send, counts, row, (void **)&recv, recv_counts, &nrecv);
  free(send);
  if (rc == OP2_OK && !keep && ctx->mpi_replicated) { /* whole-mesh arrays: cut down to size */
    size_t bytes = (size_t)n * row + 1;
    char *fresh = op2_aligned_alloc_room(bytes, op2_halo_room(ctx, bytes));
    if (!fresh) rc = op2_error(OP2_ERR_MEM, "moving set '%s': out of memory", set->name);
    for (long e = 0; fresh && e < n; e++)
      memcpy(fresh + (size_t)e * row,
             by[e].b >= 0 ? recv + (size_t)by[e].b * row : *data + (size_t)stay[-1 - by[e].b] * row,
             row);
    if (fresh) free(*data), *data = fresh;
  } else if (rc == OP2_OK && !keep) {
    /* In place, without a second copy of the array: the rows that stay move to the front
     * (stay[s] >= s), the array grows into its halo room (or is copied once where that is too
     * small), then from the back every row goes to its new place e: a staying row's s <= e, and
     * the staying rows not yet placed all lie below e, so nothing is overwritten before read. */
    long nstay = 0;
    for (long e = 0; e < n; e++) nstay += by[e].b < 0;
    for (long k = 0; k < nstay; k++)
      if (stay[k] != k) memcpy(*data + (size_t)k * row, *data + (size_t)stay[k] * row, row);
    char *grown = op2_aligned_grow(*data, (size_t)nstay * row, (size_t)n * row + 1);
    if (!grown) rc = op2_error(OP2_ERR_MEM, "moving set '%s': out of memory", set->name);
    for (long e = n - 1; grown && e >= 0; e--) {
      long k = -1 - by[e].b;
      if (by[e].b >= 0)
        memcpy(grown + (size_t)e * row, recv + (size_t)by[e].b * row, row);
      else if (k != e)
        memmove(grown + (size_t)e * row, grown + (size_t)k * row, row);
    }
    if (grown) *data = grown;
  }
  free(recv), free(recv_counts);
  return rc;
}

/* Collective: every rank calls it with its status so far. Only the elements that leave travel:
 * first their global indices, which give the new order (increasing global index; with declared
 * blocks, rows from lower ranks, those that stay, then rows from higher ranks are in order
 * already, otherwise (global, where) pairs are sorted, never the rows), then one array of the set
 * at a time, so that a rank holds at most the mesh and one array's leaving and received rows,
 * never two copies of every array of the set (the records of every dat and map row took more memory
 * than the rest of the distribution). */
int op2_migrate_set(op2_context *ctx, int status, op_set set, const int *owner) {
  int p = ctx->mpi.size, me = ctx->mpi.rank;
  long n = set->size, nleave = 0, nstay = 0;
  int *stay = malloc(sizeof(int) * ((size_t)n + 1)), *leave = malloc(sizeof(int) * ((size_t)n + 1));
  int *slot = malloc(sizeof(int) * ((size_t)n + 1));
  long *global = malloc(sizeof(long) * ((size_t)n + 1)),
       *fill = calloc((size_t)p + 1, sizeof(long));
  int *counts = calloc((size_t)p * 2, sizeof(int));
  int rc = status;
  if (rc == OP2_OK && (!stay || !leave || !slot || !global || !fill || !counts))
    rc = op2_error(OP2_ERR_MEM, "distribution: out of memory");
  for (long e = 0; rc == OP2_OK && e < n; e++) {
    if (owner[e] == me)
      stay[nstay++] = (int)e;
    else
      leave[nleave++] = (int)e, counts[owner[e]]++;
  }
  for (int q = 0; rc == OP2_OK && q < p; q++) fill[q + 1] = fill[q] + counts[q];
  for (long i = 0; rc == OP2_OK && i < nleave; i++) {
    slot[i] = (int)fill[owner[leave[i]]]++;
    global[slot[i]] = set->decl_first + leave[i];
  }
  op2_set_held_rows(set, nleave);
  long *recv = NULL, nrecv = 0;
  int *recv_counts = counts + p;
  rc = op2_alltoallv(ctx, rc, global, counts, sizeof(long), (void **)&recv, recv_counts, &nrecv);
  long below = 0;
  for (int q = 0; rc == OP2_OK && q < me; q++) below += recv_counts[q];
  long nnew = nstay + nrecv, k = 0;
  op2_set_held_rows(set, nrecv);
  op2_set_held_rows(set, nnew);
  /* Nothing moved here: the arrays stay (unless they are whole-mesh arrays, to be cut down) */
  int keep = nrecv == 0 && nstay == n && !ctx->mpi_replicated;
  op2_pair *by = rc == OP2_OK ? malloc(sizeof(op2_pair) * ((size_t)nnew + 1)) : NULL;
  idx_g_t *orig = rc == OP2_OK ? malloc(sizeof(idx_g_t) * ((size_t)nnew + 1)) : NULL;
  if (rc == OP2_OK && (!by || !orig)) rc = op2_error(OP2_ERR_MEM, "distribution: out of memory");
  if (rc == OP2_OK) {
    for (long r = 0; r < below; r++) by[k++] = (op2_pair){recv[r], r};
    for (long e = 0; e < nstay; e++) by[k++] = (op2_pair){set->decl_first + stay[e], -1 - e};
    for (long r = below; r < nrecv; r++) by[k++] = (op2_pair){recv[r], r};
    int sorted = 1;
    for (long e = 1; sorted && e < nnew; e++) sorted = by[e - 1].a < by[e].a;
    if (!sorted) qsort(by, (size_t)nnew, sizeof(op2_pair), op2_pair_cmp);
    for (long e = 0; e < nnew; e++) orig[e] = by[e].a;
  }
  free(recv), free(global);
  for (int i = 0; i < ctx->dats.count; i++) { /* every rank: the same arrays, in list order */
    op_dat d = ctx->dats.items[i];
    if (d->set == set)
      rc = move_array(ctx, rc, set, &d->data, d->elem_bytes, nleave, leave, slot, counts, stay,
                      nnew, by, keep);
  }
  for (int i = 0; i < ctx->maps.count; i++) {
    op_map m = ctx->maps.items[i];
    if (m->from == set)
      rc = move_array(ctx, rc, set, op2_map_rows(m), op2_map_row_bytes(m), nleave, leave, slot,
                      counts, stay, nnew, by, keep);
  }
  if (rc == OP2_OK) {
    free(set->orig);
    set->orig = orig, orig = NULL;
    set->size = set->core_size = (int)nnew;
  }
  free(orig), free(by), free(stay), free(leave), free(slot), free(fill), free(counts);
  return rc;
}
