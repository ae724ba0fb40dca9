/* SPDX-License-Identifier: BSD-3-Clause */
/* Global constants. Kernels see a stable constant as literals baked into the generated source, so
 * a changed value bumps the context's generation and the next loop call regenerates its kernel.
 * Every value is baked exactly, NaN payloads and infinities included (jit/codegen.c). A constant
 * that keeps changing (to more than OP2_CONST_BAKED_VALUES values) becomes live: C kernels read
 * it through a pointer to its data (jit/jit_constants.c), CUDA kernels from a __constant__
 * variable the backend updates when the value changed (runtime/cuda/core.c), so later values
 * need no new kernel. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/alloc.h"
#include "runtime/mesh.h"
#include "runtime/distributed.h"
#include "runtime/chain.h"

static bool seen_before(const op2_const *c, size_t bytes) {
  for (int i = 0; i < c->nvalues; i++)
    if (memcmp((const char *)c->values + (size_t)i * bytes, c->data, bytes) == 0) return true;
  return false;
}

op2_const *op2_const_find(const char *name) {
  op2_context *ctx = op2_ctx();
  for (int i = 0; i < ctx->consts.count; i++) {
    op2_const *c = ctx->consts.items[i];
    if (strcmp(c->name, name) == 0) return c;
  }
  return NULL;
}

static void declare_const(int dim, const char *type, const void *data, const char *name) {
  op2_context *ctx = op2_ctx();
  if (op2_require_init("op_decl_const") != OP2_OK) return;
  op2_type t;
  if (!op2_is_identifier(name)) {
    op2_error(OP2_ERR_ARG, "op_decl_const: name '%s' is not a C identifier",
              name ? name : "(null)");
    return;
  }
  if (op2_is_reserved_name(name)) {
    op2_error(OP2_ERR_ARG,
              "op_decl_const '%s': the name is reserved (a C keyword, an op2_/OP2_ name or a "
              "prelude macro)",
              name);
    return;
  }
  if (dim < 1) {
    op2_error(OP2_ERR_ARG, "op_decl_const '%s': dim %d must be at least 1", name, dim);
    return;
  }
  if (op2_type_parse(type, &t) != OP2_OK) {
    op2_error(OP2_ERR_ARG,
              "op_decl_const '%s': unknown type '%s' (use double, float, int or long long)", name,
              type ? type : "(null)");
    return;
  }
  if (!data) {
    op2_error(OP2_ERR_ARG, "op_decl_const '%s': data is NULL", name);
    return;
  }
  size_t bytes = (size_t)dim * op2_type_size(t);
  op2_const *c = op2_const_find(name);
  if (c) {
    if (c->type != t || c->dim != dim) {
      op2_error(OP2_ERR_ARG, "op_decl_const '%s': redeclared as %s[%d], was declared as %s[%d]",
                name, op2_type_name(t), dim, op2_type_name(c->type), c->dim);
      return;
    }
    if (memcmp(c->data, data, bytes) != 0) {
      bool was_live = c->live;
      memcpy(c->data, data, bytes);
      if (!was_live && !seen_before(c, bytes)) {
        if (c->nvalues < OP2_CONST_BAKED_VALUES)
          memcpy((char *)c->values + (size_t)c->nvalues++ * bytes, data, bytes);
        else
          c->live = true;
      }
      if (c->live && !was_live) ctx->const_live_generation = ctx->const_generation + 1;
      /* kernels that read a live constant at run time stay valid */
      if (!was_live) ctx->const_generation++;
    }
    return;
  }
  c = calloc(1, sizeof *c);
  if (c) {
    c->name = strdup(name);
    c->data = malloc(bytes);
    c->values = malloc(OP2_CONST_BAKED_VALUES * bytes);
  }
  if (!c || !c->name || !c->data || !c->values) {
    if (c) free(c->name), free(c->data), free(c->values);
    free(c);
    op2_error(OP2_ERR_MEM, "op_decl_const '%s': out of memory", name);
    return;
  }
  memcpy(c->data, data, bytes);
  memcpy(c->values, data, bytes);
  c->nvalues = 1;
  c->type = t;
  c->dim = dim;
  if (op2_list_push(&ctx->consts, c) != OP2_OK) {
    free(c->name), free(c->data), free(c->values), free(c);
    return;
  }
  ctx->const_generation++;
}

/* Collective under MPI: a rank whose declaration failed makes it fail on every rank. The others
 * keep the value they took; kernels baking it differ then, and the next loop says so. */
void op_decl_const(int dim, const char *type, const void *data, const char *name) {
  op2_context *ctx = op2_ctx();
  if (op2_require_init("op_decl_const") != OP2_OK) return;
  op2_chain_before_const(ctx, dim, type, data, name); /* queued loops keep the value they saw */
  op2_mpi_decl_begin(ctx, "op_decl_const", name);
  unsigned long errors = ctx->errors_reported;
  declare_const(dim, type, data, name);
  op2_mpi_decl_end(ctx, ctx->errors_reported == errors ? OP2_OK : OP2_ERR_ARG);
}
