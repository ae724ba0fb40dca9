/* Dats: the library's own copy of per-element data. */
#include <stdlib.h>
#include <string.h>

#include "op2_impl.h"
#include "distributed.h"

static op_dat declare_dat(op_set set, int dim, const char *type, const void *data,
                          const char *name) {
  op2_context *ctx = op2_ctx();
  if (op2_require_init("op_decl_dat") != OP2_OK) return NULL;
  const char *label = name ? name : "(unnamed)";
  op2_type t;
  if (!set) {
    op2_error(OP2_ERR_ARG, "op_decl_dat '%s': set is NULL", label);
    return NULL;
  }
  if (dim < 1) {
    op2_error(OP2_ERR_ARG, "op_decl_dat '%s': dim %d must be at least 1", label, dim);
    return NULL;
  }
  if (set->halo) {
    op2_error(OP2_ERR_STATE,
              "op_decl_dat '%s': set '%s' is already distributed over the MPI ranks "
              "(declare everything before op_partition or the first loop)",
              label, set->name);
    return NULL;
  }
  if (op2_type_parse(type, &t) != OP2_OK) {
    op2_error(OP2_ERR_ARG,
              "op_decl_dat '%s': unknown type '%s' (use double, float, int or long long)", label,
              type ? type : "(null)");
    return NULL;
  }
  size_t elem_bytes = (size_t)dim * op2_type_size(t);
  size_t bytes = (size_t)set->size * elem_bytes;
  op_dat dat = calloc(1, sizeof *dat);
  if (dat) {
    dat->data = op2_aligned_alloc_room(bytes, op2_halo_room(ctx, bytes));
    dat->name = strdup(label);
  }
  if (!dat || !dat->data || !dat->name) {
    if (dat) free(dat->data), free(dat->name);
    free(dat);
    op2_error(OP2_ERR_MEM, "op_decl_dat '%s': out of memory for %zu bytes", label, bytes);
    return NULL;
  }
  if (data && ctx->mpi_prepared && ctx->mpi_replicated) /* whole mesh given: this rank's rows */
    data = (const char *)data + (size_t)set->decl_first * elem_bytes;
  if (data && bytes && set->orig) /* the set was reordered: element e is the user's orig[e] */
    for (int e = 0; e < set->size; e++)
      memcpy(dat->data + (size_t)e * elem_bytes,
             (const char *)data + (size_t)set->orig[e] * elem_bytes, elem_bytes);
  else if (data && bytes)
    memcpy(dat->data, data, bytes);
  dat->set = set;
  dat->dim = dim;
  dat->type = t;
  dat->elem_bytes = elem_bytes;
  dat->index = ctx->dats.count;
  if (op2_list_push(&ctx->dats, dat) != OP2_OK) {
    free(dat->data), free(dat->name), free(dat);
    return NULL;
  }
  return dat;
}

/* Collective under MPI: a rank whose declaration failed makes it fail on every rank (the others
 * drop the dat they made), so the ranks' lists of dats stay alike. */
op_dat op_decl_dat(op_set set, int dim, const char *type, const void *data, const char *name) {
  op2_context *ctx = op2_ctx();
  if (op2_require_init("op_decl_dat") != OP2_OK) return NULL;
  op2_mpi_decl_begin(ctx, "op_decl_dat", name);
  op_dat dat = declare_dat(set, dim, type, data, name);
  if (op2_mpi_decl_end(ctx, dat ? OP2_OK : OP2_ERR_ARG) != OP2_OK && dat) {
    ctx->dats.count--;
    free(dat->data), free(dat->name), free(dat);
    dat = NULL;
  }
  return dat;
}
