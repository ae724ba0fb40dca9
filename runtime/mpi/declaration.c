/* SPDX-License-Identifier: BSD-3-Clause */
/* The distribution's first step: how the program declared. Each rank its block (OP2's usual
 * way), or, detected, every rank the whole mesh (a program written for one process, started
 * under mpirun), then cut down to blocks, so that from here on every set is "each rank its block,
 * global index decl_first + e". */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "runtime/mpi/distribute.h"
#include "runtime/error.h"
#include "runtime/options.h"

/* True when every rank declared identical sets, maps and dats: a program written for one process,
 * started under mpirun. Each rank then keeps its block of everything. */
static int declared_everywhere(op2_context *ctx, int *everywhere) {
  int n = ctx->sets.count + ctx->maps.count + ctx->dats.count;
  unsigned long long *h = malloc(sizeof(*h) * 2 * ((size_t)n + 1));
  *everywhere = 0;
  int agreed = op2_mpi_agree(
      ctx, h ? OP2_OK : op2_error(OP2_ERR_MEM, "distribution: out of memory"), "distribution");
  if (agreed != OP2_OK) { /* another rank failed, or is in another call: h is ours to free */
    free(h);
    return agreed;
  }
  int k = 0;
  for (int i = 0; i < ctx->sets.count; i++)
    h[k++] = (unsigned long long)((op_set)ctx->sets.items[i])->size;
  for (int i = 0; i < ctx->maps.count; i++) {
    op_map m = ctx->maps.items[i];
    h[k++] = XXH3_64bits(*op2_map_rows(m), op2_map_row_bytes(m) * (size_t)m->from->size);
  }
  for (int i = 0; i < ctx->dats.count; i++) {
    op_dat d = ctx->dats.items[i];
    h[k++] = XXH3_64bits(d->data, d->elem_bytes * (size_t)d->set->size);
  }
  int rc = OP2_MPI(MPI_Allreduce(h, h + n, n, MPI_UNSIGNED_LONG_LONG, MPI_BAND, op2_comm(ctx)));
  int same = 1;
  for (int i = 0; i < n; i++) same &= h[i] == h[n + i];
  /* AND equals every value only if all agree... confirm with OR as well */
  if (rc == OP2_OK)
    rc = OP2_MPI(MPI_Allreduce(h, h + n, n, MPI_UNSIGNED_LONG_LONG, MPI_BOR, op2_comm(ctx)));
  for (int i = 0; i < n; i++) same &= h[i] == h[n + i];
  free(h);
  int all = same;
  if (rc == OP2_OK) rc = OP2_MPI(MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_LAND, op2_comm(ctx)));
  *everywhere = all && ctx->sets.count > 0;
  return rc;
}

/* The whole mesh declared on every rank, cut down to this rank's block of every set (its rows
 * of dats and maps moved to the front), the map values checked against the global sizes. */
static int slice_to_blocks(op2_context *ctx) {
  int p = ctx->mpi.size, r = ctx->mpi.rank;
  for (int s = 0; s < ctx->sets.count; s++) {
    op_set set = ctx->sets.items[s];
    long first = op2_block_begin(set->size, r, p),
         count = op2_block_begin(set->size, r + 1, p) - first;
    for (int i = 0; i < ctx->dats.count; i++) {
      op_dat d = ctx->dats.items[i];
      if (d->set != set) continue;
      memmove(d->data, d->data + (size_t)first * d->elem_bytes, (size_t)count * d->elem_bytes);
    }
    for (int i = 0; i < ctx->maps.count; i++) {
      op_map m = ctx->maps.items[i];
      if (m->from != set) continue;
      char *rows = *op2_map_rows(m);
      size_t row = op2_map_row_bytes(m);
      memmove(rows, rows + (size_t)first * row, row * (size_t)count);
    }
    set->global_size = set->size;
    set->decl_first = op2_gid_base(ctx) + first;
    set->size = set->decl_count = set->core_size = (int)count;
  }
  for (int i = 0; i < ctx->maps.count; i++) { /* now the declared sizes are the global ones */
    op_map m = ctx->maps.items[i];
    for (size_t k = 0; k < (size_t)m->from->size * (size_t)m->dim; k++) {
      idx_g_t v = op2_map_gid(ctx, m, k) - op2_gid_base(ctx); /* the user's index */
      if (v >= m->to->global_size)
        return op2_error(OP2_ERR_ARG, "op_decl_map '%s': value %lld is outside set '%s' (size %ld)",
                         m->name, m->gvalues ? m->gvalues[k] : v, m->to->name, m->to->global_size);
    }
  }
  return OP2_OK;
}

/* Settles how the program declared and brings a whole-mesh declaration down to blocks, so every
 * set is "each rank its block, global index decl_first + e" from here on. Collective, once. */
int op2_mpi_prepare(op2_context *ctx) {
  if (ctx->mpi_lost) /* every rank set it, after the same agreed failure */
    return op2_error(OP2_ERR_STATE,
                     "distribution: the mesh's distribution failed earlier, after elements had "
                     "begun to move between ranks (the first error said why): this rank's sets, "
                     "maps and dats are incomplete, so no loop or fetch can use them");
  if (ctx->mpi_prepared) return OP2_OK;
  int replicated = ctx->opt.mpi_decl == OP2_DECL_REPLICATED;
  if (ctx->opt.mpi_decl == OP2_DECL_AUTO) OP2_CALL(declared_everywhere(ctx, &replicated));
  for (int s = 0; s < ctx->sets.count; s++) /* as declared: blocks, or the whole mesh */
    op2_set_held_rows(ctx->sets.items[s], ((op_set)ctx->sets.items[s])->size);
  if (replicated) OP2_CALL(op2_mpi_agree(ctx, slice_to_blocks(ctx), "distribution"));
  ctx->mpi_replicated = replicated;
  ctx->mpi_prepared = true;
  return OP2_OK;
}
