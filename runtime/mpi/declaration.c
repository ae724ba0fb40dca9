/* SPDX-License-Identifier: BSD-3-Clause */
/* The distribution's first step: how the program declared. Each rank its block (OP2's usual
 * way), or, detected, every rank the whole mesh (a program written for one process, started
 * under mpirun), then cut down to blocks, so that from here on every set is "each rank its block,
 * global index decl_first + e". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "runtime/mpi/distribute.h"
#include "runtime/error.h"
#include "runtime/options.h"

/* True when every rank declared the whole mesh: a program written for one process, started under
 * mpirun. Each rank then keeps its block of everything. What decides is the mesh's shape: every
 * set of the same size and every map of the same values on every rank (a block declaration's map
 * values are global indices of its own block's neighbours, which no two ranks share). Dats need
 * not agree where a map does: a program that leaves components no kernel reads uninitialised
 * (OP2-Common's jac2 mallocs its arrays and sets only the first component) has garbage that
 * differs from rank to rank; each element then takes the values of the rank whose block of the
 * declaration holds it, and the dats that differed are named at OP2_DIAGS>=1. Without a map
 * entry the sets' sizes alone cannot tell a whole mesh from equal blocks: the dats must agree. */
static int declared_everywhere(op2_context *ctx, int *everywhere) {
  int nsets = ctx->sets.count, nmaps = ctx->maps.count, n = nsets + nmaps + ctx->dats.count;
  unsigned long long *h = malloc(sizeof(*h) * 2 * ((size_t)n + 1));
  *everywhere = 0;
  int agreed = op2_mpi_agree(
      ctx, h ? OP2_OK : op2_error(OP2_ERR_MEM, "distribution: out of memory"), "distribution");
  if (agreed != OP2_OK) { /* another rank failed, or is in another call: h is ours to free */
    free(h);
    return agreed;
  }
  int k = 0, map_entries = 0;
  for (int i = 0; i < nsets; i++) h[k++] = (unsigned long long)((op_set)ctx->sets.items[i])->size;
  for (int i = 0; i < nmaps; i++) {
    op_map m = ctx->maps.items[i];
    h[k++] = XXH3_64bits(*op2_map_rows(m), op2_map_row_bytes(m) * (size_t)m->from->size);
    map_entries |= m->from->size > 0 && m->dim > 0;
  }
  for (int i = 0; i < ctx->dats.count; i++) {
    op_dat d = ctx->dats.items[i];
    h[k++] = XXH3_64bits(d->data, d->elem_bytes * (size_t)d->set->size);
  }
  /* every rank's value is the same exactly when the AND and the OR over ranks both equal it */
  unsigned long long *all = h + n;
  unsigned char *differs = calloc((size_t)n + 1, 1);
  int rc = differs ? OP2_OK : op2_error(OP2_ERR_MEM, "distribution: out of memory");
  rc = op2_mpi_agree(ctx, rc, "distribution");
  if (rc == OP2_OK)
    rc = OP2_MPI(MPI_Allreduce(h, all, n, MPI_UNSIGNED_LONG_LONG, MPI_BAND, op2_comm(ctx)));
  for (int i = 0; rc == OP2_OK && i < n; i++) differs[i] = h[i] != all[i];
  if (rc == OP2_OK)
    rc = OP2_MPI(MPI_Allreduce(h, all, n, MPI_UNSIGNED_LONG_LONG, MPI_BOR, op2_comm(ctx)));
  for (int i = 0; rc == OP2_OK && i < n; i++) differs[i] |= h[i] != all[i];
  int mine[2] = {1, 1}; /* sets and maps the same; dats the same */
  for (int i = 0; rc == OP2_OK && i < n; i++) mine[i >= nsets + nmaps] &= !differs[i];
  int same[2] = {mine[0], mine[1]};
  if (rc == OP2_OK) rc = OP2_MPI(MPI_Allreduce(mine, same, 2, MPI_INT, MPI_LAND, op2_comm(ctx)));
  /* with the sets and maps the same everywhere, map_entries is the same on every rank */
  *everywhere = rc == OP2_OK && nsets > 0 && same[0] && (same[1] || map_entries);
  if (*everywhere && !same[1]) { /* a dat differs on some rank: which, by every rank's view */
    unsigned char *any = calloc((size_t)n + 1, 1);
    if (!any) rc = op2_error(OP2_ERR_MEM, "distribution: out of memory");
    rc = op2_mpi_agree(ctx, rc, "distribution");
    if (rc == OP2_OK)
      rc = OP2_MPI(MPI_Allreduce(differs, any, n, MPI_UNSIGNED_CHAR, MPI_BOR, op2_comm(ctx)));
    char names[512] = "";
    int count = 0;
    for (int i = nsets + nmaps; rc == OP2_OK && i < n; i++) {
      if (!any[i]) continue;
      size_t len = strlen(names);
      if (count++ < 8 && len < sizeof names)
        snprintf(names + len, sizeof names - len, "%s'%.40s'", count > 1 ? ", " : "",
                 ((op_dat)ctx->dats.items[i - nsets - nmaps])->name);
    }
    if (count)
      op2_diag(1,
               "warning: every rank declared the same sets and maps (the whole mesh), but %s %s%s "
               "%s different values on different ranks (memory left uninitialised?): each "
               "element keeps the values of the rank whose block of the declaration holds it",
               count > 1 ? "dats" : "dat", names, count > 8 ? ", ..." : "",
               count > 1 ? "hold" : "holds");
    free(any);
  }
  free(differs);
  free(h);
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
  if (replicated) { /* the maps' rows are cut to blocks: checked first, as the program left them */
    int rc = op2_maps_check_all(ctx, "the distribution of the mesh", false);
    OP2_CALL(op2_mpi_agree(ctx, rc == OP2_OK ? slice_to_blocks(ctx) : rc, "distribution"));
    op2_maps_seal_all(ctx);
  }
  ctx->mpi_replicated = replicated;
  ctx->mpi_prepared = true;
  return OP2_OK;
}
