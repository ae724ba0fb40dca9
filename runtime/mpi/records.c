/* SPDX-License-Identifier: BSD-3-Clause */
/* Elements travel between ranks as fixed-size records: the element's global index, its row of
 * every dat on the set, then its row of every map from the set (target indices: the user's, as
 * ints, or global ids, 64-bit, as the map holds them until the halo build). */
#include <stdlib.h>
#include <string.h>

#include "runtime/mpi/op2_mpi.h"
#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/mpi_state.h"
#include "runtime/mesh.h"

size_t op2_record_bytes(const op2_context *ctx, op_set set) {
  size_t bytes = sizeof(long);
  for (int i = 0; i < ctx->dats.count; i++) {
    op_dat d = ctx->dats.items[i];
    if (d->set == set) bytes += d->elem_bytes;
  }
  for (int i = 0; i < ctx->maps.count; i++) {
    op_map m = ctx->maps.items[i];
    if (m->from == set) bytes += op2_map_row_bytes(m);
  }
  return (bytes + 7) / 8 * 8;
}

void op2_record_pack(const op2_context *ctx, op_set set, int e, long global, char *rec) {
  memcpy(rec, &global, sizeof global);
  char *p = rec + sizeof global;
  for (int i = 0; i < ctx->dats.count; i++) {
    op_dat d = ctx->dats.items[i];
    if (d->set != set) continue;
    memcpy(p, d->data + (size_t)e * d->elem_bytes, d->elem_bytes);
    p += d->elem_bytes;
  }
  for (int i = 0; i < ctx->maps.count; i++) {
    op_map m = ctx->maps.items[i];
    if (m->from != set) continue;
    size_t row = op2_map_row_bytes(m);
    memcpy(p, *op2_map_rows(m) + (size_t)e * row, row);
    p += row;
  }
}

void op2_record_unpack(const op2_context *ctx, op_set set, const char *rec, int e, char **dat_data,
                       char **map_rows) {
  const char *p = rec + sizeof(long);
  for (int i = 0; i < ctx->dats.count; i++) {
    op_dat d = ctx->dats.items[i];
    if (d->set != set) continue;
    if (dat_data) memcpy(dat_data[i] + (size_t)e * d->elem_bytes, p, d->elem_bytes);
    p += d->elem_bytes;
  }
  for (int i = 0; map_rows && i < ctx->maps.count; i++) {
    op_map m = ctx->maps.items[i];
    if (m->from != set) continue;
    size_t row = op2_map_row_bytes(m);
    memcpy(map_rows[i] + (size_t)e * row, p, row);
    p += row;
  }
}

long op2_record_global(const char *rec) {
  long g;
  memcpy(&g, rec, sizeof g);
  return g;
}

/* Sends the elements listed (local index, global index, destination) as records; returns the
 * received records grouped by source rank (recv_counts per rank). Collective: every rank calls it
 * with its status so far, and nothing moves unless all succeeded. The records are packed straight
 * into their destination's place in the send buffer: one buffer of the leaving rows, not a packed
 * copy and a grouped one (a set's leaving rows were held three times with the received ones). */
int op2_ship(op2_context *ctx, int status, op_set set, long n, const int *local, const long *global,
             const int *dest, char **recv, int *recv_counts, long *nrecv) {
  size_t rb = op2_record_bytes(ctx, set);
  int p = ctx->mpi.size;
  char *grouped = status == OP2_OK ? malloc(rb * ((size_t)n + 1)) : NULL;
  int *counts = calloc((size_t)p, sizeof(int));
  long *fill = calloc((size_t)p + 1, sizeof(long));
  int rc = status != OP2_OK ? status
           : grouped && counts && fill
               ? OP2_OK
               : op2_error(OP2_ERR_MEM, "moving set '%s': out of memory", set->name);
  for (long i = 0; rc == OP2_OK && i < n; i++) counts[dest[i]]++;
  for (int q = 0; rc == OP2_OK && q < p; q++) fill[q + 1] = fill[q] + counts[q];
  for (long i = 0; rc == OP2_OK && i < n; i++)
    op2_record_pack(ctx, set, local[i], global[i], grouped + (size_t)fill[dest[i]]++ * rb);
  rc = op2_alltoallv(ctx, rc, grouped, counts, rb, (void **)recv, recv_counts, nrecv);
  free(grouped), free(counts), free(fill);
  return rc;
}
