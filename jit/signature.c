/* SPDX-License-Identifier: BSD-3-Clause */
/* The loop signature in words: everything that shapes the generated code, and nothing that does
 * not (no dat names, no set sizes), so equal shapes share one kernel. It heads every generated
 * file and is copied into the cache manifest. */
#include <stdlib.h>
#include <string.h>

#include "jit_internal.h"
#include "kernel_facts.h"

static const char *access_name(op_access acc) {
  static const char *names[] = {"OP_READ", "OP_WRITE", "OP_RW", "OP_INC", "OP_MIN", "OP_MAX"};
  return names[acc];
}

int op2_signature_describe(op2_jit *jit, const op2_loop_desc *loop, const char *target,
                           op2_buf *out) {
  op2_buf_printf(out, "loop %s, target %s, codegen %d\n", loop->name, target, OP2_CODEGEN_VERSION);
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    op2_buf_printf(out, "arg %d: ", i);
    if (d->opt_off) {
      op2_buf_printf(out, "optional dat, switched off\n");
      continue;
    }
    switch (d->kind) {
      case OP2_ARG_GBL:
        if ((int)d->acc == OP2_ACC_INFO)
          op2_buf_printf(out, "global %s[%d] info of arg %d\n", op2_type_name(d->type), d->dim,
                         d->info_of);
        else
          op2_buf_printf(out, "global %s[%d] %s\n", op2_type_name(d->type), d->dim,
                         access_name(d->acc));
        break;
      case OP2_ARG_IDX:
        if (d->map_arity)
          op2_buf_printf(out, "index through map %d (arity %d) column %d\n", d->map_group,
                         d->map_arity, d->idx);
        else
          op2_buf_printf(out, "element index\n");
        break;
      default:
        op2_buf_printf(out, "dat %d %s[%d] %s ", d->dat_group, op2_type_name(d->type), d->dim,
                       access_name(d->acc));
        if (!d->map_arity)
          op2_buf_printf(out, "direct\n");
        else if (d->idx >= 0)
          op2_buf_printf(out, "through map %d (arity %d) column %d\n", d->map_group, d->map_arity,
                         d->idx);
        else
          op2_buf_printf(out, "through map %d (arity %d) columns 0..%d as a vector\n", d->map_group,
                         d->map_arity, -d->idx - 1);
    }
  }
  return out->failed
             ? op2_jit_fail(jit, OP2_ERR_MEM, "out of memory describing loop '%s'", loop->name)
             : OP2_OK;
}

int op2_constants_used(op2_jit *jit, const op2_loop_desc *loop, const char *src, op2_const ***out,
                       int *n) {
  int count = loop ? loop->nconsts : 0;
  *n = 0;
  *out = calloc((size_t)count + 1, sizeof **out);
  if (!*out) return op2_jit_fail(jit, OP2_ERR_MEM, "out of memory scanning kernel for constants");
  const op2_kernel_facts *facts = count ? op2_kernel_facts_of(jit, src, loop->name) : NULL;
  if (count && !facts) {
    free(*out), *out = NULL;
    return OP2_ERR_MEM;
  }
  for (int c = 0; c < count; c++)
    if (op2_kernel_facts_names(facts, loop->consts[c]->name)) (*out)[(*n)++] = loop->consts[c];
  return OP2_OK;
}
