/* SPDX-License-Identifier: BSD-3-Clause */
/* Maps: fixed-arity connectivity between two sets, range-checked when declared, and again when
 * first used if the program wrote them since (map_values.c), so loops never index out of
 * bounds. */
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
    if (data[i] < 0 || data[i] >= to->global_size)
      return op2_error(OP2_ERR_ARG,
                       "op_decl_map '%s': value %d at element %zu, column %zu is outside set "
                       "'%s' (size %d)",
                       label, data[i], i / (size_t)dim, i % (size_t)dim, to->name,
                       (int)to->global_size);
  }
  return OP2_OK;
}

/* What every map declaration checks before it looks at the values; `*rows` is then this rank's
 * first row in `data` (the whole mesh given on every rank: its block). */
static int check_decl(op2_context *ctx, const char *label, op_set from, op_set to, int dim,
                      const void *data, size_t *rows) {
  if (!from || !to)
    return op2_error(OP2_ERR_ARG, "op_decl_map '%s': %s set is NULL", label, from ? "to" : "from");
  if (dim < 1)
    return op2_error(OP2_ERR_ARG, "op_decl_map '%s': dim %d must be at least 1", label, dim);
  if (from->halo || to->halo)
    return op2_error(OP2_ERR_STATE,
                     "op_decl_map '%s': set '%s' is already distributed over the MPI ranks "
                     "(declare everything before op_partition or the first loop)",
                     label, from->halo ? from->name : to->name);
  if (!data && from->size != 0)
    return op2_error(OP2_ERR_ARG, "op_decl_map '%s': data is NULL for %d elements", label,
                     from->size);
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
  op2_map_seal(map); /* the values as checked: the program may still write them (map_values.c) */
  if (op2_list_push(&ctx->maps, map) != OP2_OK) {
    free(map->values), free(map->name), free(map);
    return NULL;
  }
  return map;
}

/* Values as the program gives them, `base` 0 or 1 (OP_MAPS_BASE_INDEX), into 0-based ints. */
static int *zero_based(const char *label, const int *data, size_t n, int base) {
  int *out = malloc(sizeof(int) * (n ? n : 1));
  if (!out) return op2_error(OP2_ERR_MEM, "op_decl_map '%s': out of memory", label), NULL;
  for (size_t i = 0; i < n; i++) {
    if (data[i] == INT_MIN && base) {
      op2_error(OP2_ERR_ARG, "op_decl_map '%s': value %d at entry %zu is below the base index 1",
                label, data[i], i);
      free(out);
      return NULL;
    }
    out[i] = data[i] - base;
  }
  return out;
}

/* 64-bit values into the user's 0-based indices of `to` (`shift` taken off each: the base index,
 * and OP2_TEST_ID_BASE for op_decl_map_long), each checked in 64 bits against the global size:
 * a value no int holds is named as the program gave it. NULL (after the error) otherwise. */
static idx_g_t *long_indices(const char *fn, const char *label, op_set to, int dim,
                             const idx_g_t *data, size_t n, idx_g_t shift) {
  idx_g_t *out = malloc(sizeof(idx_g_t) * (n ? n : 1));
  if (!out) return op2_error(OP2_ERR_MEM, "%s '%s': out of memory", fn, label), NULL;
  for (size_t i = 0; i < n; i++) {
    idx_g_t u = data[i] >= shift ? data[i] - shift : -1; /* no overflow below the shift */
    if (u < 0 || u >= to->global_size) {
      op2_error(
          OP2_ERR_ARG,
          "%s '%s': value %lld at row %zu, column %zu is outside set '%s' (values %lld..%lld)", fn,
          label, data[i], i / (size_t)dim, i % (size_t)dim, to->name, shift,
          shift + to->global_size - 1);
      free(out);
      return NULL;
    }
    out[i] = u;
  }
  return out;
}

/* Under MPI, the map from this rank's rows of 64-bit user indices: kept as global ids (gvalues)
 * until the halo build. */
static op_map declare_global(op2_context *ctx, const char *label, op_set from, op_set to, int dim,
                             const idx_g_t *index) {
  size_t n = (size_t)from->size * (size_t)dim, bytes = n * sizeof(idx_g_t);
  op_map map = calloc(1, sizeof *map);
  if (map) {
    map->gvalues = op2_aligned_alloc_room(bytes + 1, op2_halo_room(ctx, bytes));
    map->name = strdup(label);
  }
  if (!map || !map->gvalues || !map->name) {
    if (map) free(map->gvalues), free(map->name);
    free(map);
    op2_error(OP2_ERR_MEM, "op_decl_map '%s': out of memory for %zu bytes", label, bytes);
    return NULL;
  }
  for (size_t k = 0; k < n; k++) map->gvalues[k] = op2_gid_base(ctx) + index[k];
  map->from = from;
  map->to = to;
  map->dim = dim;
  map->index = ctx->maps.count;
  if (op2_list_push(&ctx->maps, map) != OP2_OK) {
    free(map->gvalues), free(map->name), free(map);
    return NULL;
  }
  return map;
}

/* `shift` (64-bit values only): what makes a value the user's 0-based index (see long_indices). */
static op_map map_from(op2_context *ctx, const char *fn, op_set from, op_set to, int dim,
                       const void *data, size_t width, idx_g_t shift, const char *name) {
  const char *label = name ? name : "(unnamed)";
  size_t first;
  if (check_decl(ctx, label, from, to, dim, data, &first) != OP2_OK) return NULL;
  size_t n = (size_t)from->size * (size_t)dim;
  const char *rows = data ? (const char *)data + first * (size_t)dim * width : NULL;
  int base = ctx->opt.maps_base_index;
  if (base == 0 && width == sizeof(int))
    return declare(ctx, label, from, to, dim, (const int *)rows);
  if (width == sizeof(int)) {
    int *values = zero_based(label, (const int *)rows, rows ? n : 0, base);
    op_map map = values ? declare(ctx, label, from, to, dim, values) : NULL;
    free(values);
    return map;
  }
  idx_g_t *index = long_indices(fn, label, to, dim, (const idx_g_t *)rows, rows ? n : 0, shift);
  if (!index) return NULL;
  op_map map = NULL;
  if (ctx->mpi.size > 1) {
    map = declare_global(ctx, label, from, to, dim, index);
  } else { /* one process: the indices are local, and each is below to's size (an int) */
    int *values = malloc(sizeof(int) * (n ? n : 1));
    if (!values) op2_error(OP2_ERR_MEM, "%s '%s': out of memory", fn, label);
    for (size_t k = 0; values && k < n; k++) values[k] = (int)index[k];
    map = values ? declare(ctx, label, from, to, dim, values) : NULL;
    free(values);
  }
  free(index);
  return map;
}

/* Collective under MPI: a rank whose declaration failed makes it fail on every rank (the others
 * drop the map they made), so the ranks' lists of maps stay alike. */
static op_map decl_map(const char *fn, op_set from, op_set to, int dim, const void *data,
                       size_t width, idx_g_t shift, const char *name) {
  op2_context *ctx = op2_ctx();
  if (op2_require_init(fn) != OP2_OK) return NULL;
  op2_chain_flush(ctx, fn); /* lazy execution: queued loops first */
  op2_mpi_decl_begin(ctx, fn, name);
  op_map map = map_from(ctx, fn, from, to, dim, data, width, shift, name);
  if (op2_mpi_decl_end(ctx, map ? OP2_OK : OP2_ERR_ARG) != OP2_OK && map) {
    ctx->maps.count--;
    free(map->values), free(map->gvalues), free(map->name), free(map);
    map = NULL;
  }
  return map;
}

op_map op_decl_map(op_set from, op_set to, int dim, const int *data, const char *name) {
  return decl_map("op_decl_map", from, to, dim, data, sizeof(int), 0, name);
}

/* The values are global ids: from OP2_TEST_ID_BASE's base under that testing aid (in any process
 * count, so one program gives the same values everywhere), from 1 with OP_MAPS_BASE_INDEX=1. */
op_map op_decl_map_long(op_set from, op_set to, int dim, const idx_g_t *data, const char *name) {
  const op2_options *opt = &op2_ctx()->opt;
  return decl_map("op_decl_map_long", from, to, dim, data, sizeof(idx_g_t),
                  opt->test_id_base + opt->maps_base_index, name);
}

op_map op2_decl_map_indices(op_set from, op_set to, int dim, const idx_g_t *data,
                            const char *name) {
  return decl_map("op_decl_map_long", from, to, dim, data, sizeof(idx_g_t),
                  op2_ctx()->opt.maps_base_index, name);
}
