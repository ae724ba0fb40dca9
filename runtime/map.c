/* Maps: fixed-arity connectivity between two sets, range-checked once when declared so loops
 * never index out of bounds. */
#include <stdlib.h>
#include <string.h>

#include "op2_impl.h"
#include "distributed.h"

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

static op_map declare_map(op_set from, op_set to, int dim, const int *data, const char *name) {
  op2_context *ctx = op2_ctx();
  if (op2_require_init("op_decl_map") != OP2_OK) return NULL;
  const char *label = name ? name : "(unnamed)";
  if (!from || !to) {
    op2_error(OP2_ERR_ARG, "op_decl_map '%s': %s set is NULL", label, from ? "to" : "from");
    return NULL;
  }
  if (dim < 1) {
    op2_error(OP2_ERR_ARG, "op_decl_map '%s': dim %d must be at least 1", label, dim);
    return NULL;
  }
  if (from->halo || to->halo) {
    op2_error(OP2_ERR_STATE,
              "op_decl_map '%s': set '%s' is already distributed over the MPI ranks "
              "(declare everything before op_partition or the first loop)",
              label, from->halo ? from->name : to->name);
    return NULL;
  }
  if (!data && from->size > 0) {
    op2_error(OP2_ERR_ARG, "op_decl_map '%s': data is NULL for %d elements", label, from->size);
    return NULL;
  }
  if (ctx->mpi_prepared && ctx->mpi_replicated && data) /* whole mesh given: this rank's rows */
    data += (size_t)from->decl_first * (size_t)dim;
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

/* Collective under MPI: a rank whose declaration failed makes it fail on every rank (the others
 * drop the map they made), so the ranks' lists of maps stay alike. */
op_map op_decl_map(op_set from, op_set to, int dim, const int *data, const char *name) {
  op2_context *ctx = op2_ctx();
  if (op2_require_init("op_decl_map") != OP2_OK) return NULL;
  op2_mpi_decl_begin(ctx, "op_decl_map", name);
  op_map map = declare_map(from, to, dim, data, name);
  if (op2_mpi_decl_end(ctx, map ? OP2_OK : OP2_ERR_ARG) != OP2_OK && map) {
    ctx->maps.count--;
    free(map->values), free(map->name), free(map);
    map = NULL;
  }
  return map;
}
