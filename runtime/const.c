/* Global constants. Kernels see them as literals baked into the generated source, so a changed
 * value bumps the context's generation and the next loop call regenerates its kernel. */
#include <stdlib.h>
#include <string.h>

#include "op2_impl.h"

op2_const *op2_const_find(const char *name) {
  op2_context *ctx = op2_ctx();
  for (int i = 0; i < ctx->consts.count; i++) {
    op2_const *c = ctx->consts.items[i];
    if (strcmp(c->name, name) == 0) return c;
  }
  return NULL;
}

void op_decl_const(int dim, const char *type, const void *data, const char *name) {
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
      memcpy(c->data, data, bytes);
      ctx->const_generation++;
    }
    return;
  }
  c = calloc(1, sizeof *c);
  if (c) {
    c->name = strdup(name);
    c->data = malloc(bytes);
  }
  if (!c || !c->name || !c->data) {
    if (c) free(c->name), free(c->data);
    free(c);
    op2_error(OP2_ERR_MEM, "op_decl_const '%s': out of memory", name);
    return;
  }
  memcpy(c->data, data, bytes);
  c->type = t;
  c->dim = dim;
  if (op2_list_push(&ctx->consts, c) != OP2_OK) {
    free(c->name), free(c->data), free(c);
    return;
  }
  ctx->const_generation++;
}
