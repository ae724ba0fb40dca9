/* SPDX-License-Identifier: BSD-3-Clause */
/* Maps: fixed-arity connectivity between two sets, range-checked once when declared so loops
 * never index out of bounds. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/alloc.h"
#include "runtime/options.h"
#include "runtime/mesh.h"
#include "runtime/distributed.h"
#include "runtime/chain.h"

/* Under MPI values are global indices: checked against the global size here, and against the
 * declared size again if the program turns out to have declared the whole mesh on every rank. */
static int check_values(const char *label, op_set from, op_set to, int dim, const int *data) {
  size_t n = (size_t)from->size * (size_t)dim;
  for (size_t i = 0; i < n; i++) {
    OP2_CHECK(data[i] >= 0 && data[i] < to->global_size, OP2_ERR_ARG,
              "op_decl_map '%s': value %d at element %zu, column %zu is outside set "
              "'%s' (size %d)",
              label, data[i], i / (size_t)dim, i % (size_t)dim, to->name, (int)to->global_size);
  }
  return OP2_OK;
}

/* What every map declaration checks before it looks at the values; `*rows` is then this rank's
 * first row in `data` (the whole mesh given on every rank: its block). */
static int check_decl(op2_context *ctx, const char *label, op_set from, op_set to, int dim,
                      const void *data, size_t *rows) {
  OP2_CHECK(from && to, OP2_ERR_ARG, "op_decl_map '%s': %s set is NULL", label,
            from ? "to" : "from");
  OP2_CHECK(dim >= 1, OP2_ERR_ARG, "op_decl_map '%s': dim %d must be at least 1", label, dim);
  OP2_CHECK(!from->halo && !to->halo, OP2_ERR_STATE,
            "op_decl_map '%s': set '%s' is already distributed over the MPI ranks "
            "(declare everything before op_partition or the first loop)",
            label, from->halo ? from->name : to->name);
  OP2_CHECK(data || from->size == 0, OP2_ERR_ARG, "op_decl_map '%s': data is NULL for %d elements",
            label, from->size);
  *rows = ctx->mpi_prepared && ctx->mpi_replicated && data
              ? (size_t)(from->decl_first - op2_gid_base(ctx))
              : 0;
  return OP2_OK;
}

/* The map from this rank's rows of 0-based int values. */
static op_map declare(op2_context *ctx, const char *label, op_set from, op_set to, int dim,
                      const int *data) {
  if (from->size > 0 && check_values(label, from, to, dim, data) != OP2_OK) return NULL;
  size_t bytes = (size_t)from->size * (size_t)dim * sizeof(int);
  op_map map = calloc(1, sizeof *map);
  if (map) {
    map->values = op2_aligned_alloc_room(bytes, op2_halo_room(ctx, bytes));
    map->name = strdup(label);
  }
  if (!map || !map->values || !map->name) {
    if (map) free(map->values), free(map->name);
    free(map);
    op2_error(OP2_ERR_MEM, "op_decl_map '%s': out of memory for %zu bytes", label, bytes);
    return NULL;
  }
  if (bytes) memcpy(map->values, data, bytes);
  if (from->orig) /* reordered sets: rows in the library's order, values too */
    for (int e = 0; e < from->size; e++)
      memcpy(map->values + (size_t)e * dim, data + (size_t)from->orig[e] * dim,
             sizeof(int) * (size_t)dim);
  if (to->rank)
    for (size_t k = 0; k < (size_t)from->size * (size_t)dim; k++)
      map->values[k] = to->rank[map->values[k]];
  map->from = from;
  map->to = to;
  map->dim = dim;
  map->index = ctx->maps.count;
  if (op2_list_push(&ctx->maps, map) != OP2_OK) {
    free(map->values), free(map->name), free(map);
    return NULL;
  }
  return map;
}

/* Values as the program gives them, `base` 0 or 1 (OP_MAPS_BASE_INDEX), of `width` bytes (int or
 * idx_g_t), into 0-based ints; NULL (after the error) when one does not fit an int. */
static int *zero_based(const char *label, const void *data, size_t n, int base, size_t width) {
  int *out = malloc(sizeof(int) * (n ? n : 1));
  if (!out) return op2_error(OP2_ERR_MEM, "op_decl_map '%s': out of memory", label), NULL;
  for (size_t i = 0; i < n; i++) {
    long long v = width == sizeof(int) ? ((const int *)data)[i] : ((const idx_g_t *)data)[i];
    v -= base;
    if (v < INT_MIN || v > INT_MAX) {
      op2_error(OP2_ERR_ARG, "op_decl_map '%s': value %lld at entry %zu does not fit an int", label,
                v + base, i);
      free(out);
      return NULL;
    }
    out[i] = (int)v;
  }
  return out;
}

static op_map map_from(op2_context *ctx, op_set from, op_set to, int dim, const void *data,
                       size_t width, const char *name) {
  const char *label = name ? name : "(unnamed)";
  size_t first;
  if (check_decl(ctx, label, from, to, dim, data, &first) != OP2_OK) return NULL;
  size_t n = (size_t)from->size * (size_t)dim;
  const char *rows = data ? (const char *)data + first * (size_t)dim * width : NULL;
  int base = ctx->opt.maps_base_index;
  if (base == 0 && width == sizeof(int))
    return declare(ctx, label, from, to, dim, (const int *)rows);
  int *values = zero_based(label, rows, rows ? n : 0, base, width);
  op_map map = values ? declare(ctx, label, from, to, dim, values) : NULL;
  free(values);
  return map;
}

/* Collective under MPI: a rank whose declaration failed makes it fail on every rank (the others
 * drop the map they made), so the ranks' lists of maps stay alike. */
static op_map decl_map(const char *fn, op_set from, op_set to, int dim, const void *data,
                       size_t width, const char *name) {
  op2_context *ctx = op2_ctx();
  if (op2_require_init(fn) != OP2_OK) return NULL;
  op2_chain_flush(ctx, fn); /* lazy execution: queued loops first */
  op2_mpi_decl_begin(ctx, fn, name);
  op_map map = map_from(ctx, from, to, dim, data, width, name);
  if (op2_mpi_decl_end(ctx, map ? OP2_OK : OP2_ERR_ARG) != OP2_OK && map) {
    ctx->maps.count--;
    free(map->values), free(map->name), free(map);
    map = NULL;
  }
  return map;
}

op_map op_decl_map(op_set from, op_set to, int dim, const int *data, const char *name) {
  return decl_map("op_decl_map", from, to, dim, data, sizeof(int), name);
}

op_map op_decl_map_long(op_set from, op_set to, int dim, const idx_g_t *data, const char *name) {
  return decl_map("op_decl_map_long", from, to, dim, data, sizeof(idx_g_t), name);
}
