/* SPDX-License-Identifier: BSD-3-Clause */
/* Dats: the library's own copy of per-element data. */
#include <stdlib.h>
#include <string.h>

#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/alloc.h"
#include "runtime/mesh.h"
#include "runtime/distributed.h"
#include "runtime/chain.h"

/* A dat with the user's values (`data`, NULL: zeros). A temporary (zeros, `temp`) may come after
 * the mesh was distributed: it then has the set's local rows, halos included, all zero, which is
 * what a halo exchange would bring. */
static op_dat declare_dat(op_set set, int dim, const char *type, const void *data, const char *name,
                          bool temp) {
  op2_context *ctx = op2_ctx(); /* op2_decl_dat checked that op_init ran */
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
  if (set->halo && !temp) {
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
  size_t rows = (size_t)set->size + (size_t)set->exec_size + (size_t)set->nonexec_size;
  size_t bytes = rows * elem_bytes;
  op_dat dat = calloc(1, sizeof *dat);
  if (dat) {
    /* once distributed the halo rows are there already: no room to grow into */
    dat->data = set->halo ? op2_aligned_alloc(bytes)
                          : op2_aligned_alloc_room(bytes, op2_halo_room(ctx, bytes));
    dat->name = dat->decl_name = strdup(label);
    dat->type_name = strdup(type);
  }
  if (!dat || !dat->data || !dat->name || !dat->type_name) {
    if (dat) free(dat->data), free(dat->decl_name), free(dat->type_name);
    free(dat);
    op2_error(OP2_ERR_MEM, "op_decl_dat '%s': out of memory for %zu bytes", label, bytes);
    return NULL;
  }
  if (temp) data = NULL;
  if (data && ctx->mpi_prepared && ctx->mpi_replicated) /* whole mesh given: this rank's rows */
    data = (const char *)data + (size_t)(set->decl_first - op2_gid_base(ctx)) * elem_bytes;
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
  dat->elem_size = (int)elem_bytes;
  dat->temp = temp;
  dat->index = ctx->dats.count;
  if (op2_list_push(&ctx->dats, dat) != OP2_OK) {
    free(dat->data), free(dat->decl_name), free(dat->type_name), free(dat);
    return NULL;
  }
  return dat;
}

/* Collective under MPI: a rank whose declaration failed makes it fail on every rank (the others
 * drop the dat they made), so the ranks' lists of dats stay alike. Temporaries too: every rank
 * declares them at the same point of the program. */
op_dat op2_decl_dat(op_set set, int dim, const char *type, const void *data, const char *name,
                    bool temp) {
  op2_context *ctx = op2_ctx();
  const char *call = temp ? "op_decl_dat_temp" : "op_decl_dat";
  if (op2_require_init(call) != OP2_OK) return NULL;
  op2_chain_flush(ctx, call); /* lazy execution: queued loops first */
  op2_mpi_decl_begin(ctx, call, name);
  op_dat dat = declare_dat(set, dim, type, data, name, temp);
  if (op2_mpi_decl_end(ctx, dat ? OP2_OK : OP2_ERR_ARG) != OP2_OK && dat) {
    ctx->dats.count--;
    free(dat->data), free(dat->decl_name), free(dat->type_name), free(dat);
    dat = NULL;
  }
  return dat;
}

op_dat op_decl_dat(op_set set, int dim, const char *type, const void *data, const char *name) {
  return op2_decl_dat(set, dim, type, data, name, false);
}
