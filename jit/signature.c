/* SPDX-License-Identifier: BSD-3-Clause */
/* The loop signature in words: everything that shapes the generated code, and nothing that does
 * not (no dat names, no set sizes), so equal shapes share one kernel. It heads every generated
 * file and is copied into the cache manifest. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/c_lexis.h"
#include "jit_internal.h"

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
  char *used = calloc((size_t)count + 1, 1);
  op2_const **list = calloc((size_t)count + 1, sizeof *list);
  if (!used || !list) {
    free(used), free(list);
    return op2_jit_fail(jit, OP2_ERR_MEM, "out of memory scanning kernel for constants");
  }
  const char *p = src;
  char prev = ' ', before_prev = ' ';
  while (*p) {
    const char *q = op2_c_skip_literal(p);
    if (q != p) {
      p = q;
      continue;
    }
    if (isalpha((unsigned char)*p) || *p == '_') {
      const char *start = p;
      while (isalnum((unsigned char)*p) || *p == '_') p++;
      size_t len = (size_t)(p - start);
      /* a struct member (after . or ->) is not a constant; after a plain > it may be */
      if (prev != '.' && !(prev == '>' && before_prev == '-'))
        for (int c = 0; c < count; c++) {
          const op2_const *k = loop->consts[c];
          if (strlen(k->name) == len && strncmp(k->name, start, len) == 0) used[c] = 1;
        }
      before_prev = prev, prev = 'a';
    } else if (isdigit((unsigned char)*p)) {
      while (isalnum((unsigned char)*p) || *p == '.' || *p == '_') p++;
      before_prev = prev, prev = '0';
    } else {
      if (!isspace((unsigned char)*p)) before_prev = prev, prev = *p;
      p++;
    }
  }
  *n = 0;
  for (int c = 0; c < count; c++)
    if (used[c]) list[(*n)++] = loop->consts[c];
  free(used);
  *out = list;
  return OP2_OK;
}
