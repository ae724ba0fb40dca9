/* C code generation for the CPU backends. The output is: the signature as a comment, the prelude
 * template, the constants as literals, the user's kernel under #line (so compiler messages give
 * the user's own line numbers), a block of #defines describing the arguments, and the loop
 * template, which uses those #defines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit.h"

static void emit_value(op2_buf *b, op2_type t, const void *data, int k) {
  switch (t) {
    case OP2_TYPE_DOUBLE: {
      double v = ((const double *)data)[k];
      op2_buf_printf(b, "%a /* %.17g */", v, v);
      break;
    }
    case OP2_TYPE_FLOAT: {
      float v = ((const float *)data)[k];
      op2_buf_printf(b, "%af /* %.9g */", (double)v, (double)v);
      break;
    }
    case OP2_TYPE_INT:
      op2_buf_printf(b, "%d", ((const int *)data)[k]);
      break;
    default:
      op2_buf_printf(b, "%lldLL", ((const long long *)data)[k]);
      break;
  }
}

/* The constants a kernel uses, as exact literals. Arrays get `array_qualifier` (CUDA puts them
 * in constant memory); scalars fold into the code. Shared by the C and CUDA generators. */
void op2_emit_constants(op2_buf *b, op2_const **used, int n, const char *array_qualifier) {
  if (n)
    op2_buf_printf(b,
                   "\n/* Constants the kernel uses, baked in: a new value is a new kernel. */\n");
  for (int i = 0; i < n; i++) {
    const op2_const *c = used[i];
    if (c->dim == 1) {
      op2_buf_printf(b, "static const %s %s = ", op2_type_name(c->type), c->name);
      emit_value(b, c->type, c->data, 0);
    } else {
      op2_buf_printf(b, "static %sconst %s %s[%d] = {", array_qualifier, op2_type_name(c->type),
                     c->name, c->dim);
      for (int k = 0; k < c->dim; k++) {
        op2_buf_printf(b, "%s\n    ", k ? "," : "");
        emit_value(b, c->type, c->data, k);
      }
      op2_buf_printf(b, "}");
    }
    op2_buf_printf(b, ";\n");
  }
}

/* The head of every generated file: #line naming it as the cache stores it, then the signature and
 * the constants in words. Shared by the C and CUDA generators. */
void op2_emit_header(op2_buf *b, const char *name, const char *ext, const char *what,
                     const char *signature, op2_const **used, int nused) {
  op2_buf_printf(b, "#line 2 \"%s.%s\"\n/* op2jit generated %s. Signature:\n", name, ext, what);
  for (const char *p = signature; p && *p;) {
    const char *e = strchr(p, '\n');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    op2_buf_printf(b, " *   %.*s\n", (int)len, p);
    p += len + (e != NULL);
  }
  for (int i = 0; i < nused; i++)
    op2_buf_printf(b, " *   constant %s %s[%d]\n", used[i]->name, op2_type_name(used[i]->type),
                   used[i]->dim);
}

int op2_first_arg_of_dat_group(const op2_loop *loop, int group) {
  for (int i = 0; i < loop->nargs; i++)
    if (loop->desc[i].dat_group == group && !loop->desc[i].opt_off) return i;
  return -1;
}

int op2_first_arg_of_map_group(const op2_loop *loop, int group) {
  for (int i = 0; i < loop->nargs; i++)
    if (loop->desc[i].map_group == group) return i;
  return -1;
}

/* Which (map group, column) indices some argument needs, as a flag per group*arity+column. */
static void mark_needed_indices(const op2_loop *loop, int max_arity, char *need) {
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (d->opt_off || !d->map_arity) continue;
    int lo = d->idx < 0 ? 0 : d->idx, hi = d->idx < 0 ? -d->idx : d->idx + 1;
    for (int c = lo; c < hi; c++) need[d->map_group * max_arity + c] = 1;
  }
}

static void emit_arg_macros(op2_buf *b, const op2_loop *loop) {
  int ngroups = 0, max_arity = 1;
  for (int i = 0; i < loop->nargs; i++) {
    if (loop->desc[i].map_group + 1 > ngroups) ngroups = loop->desc[i].map_group + 1;
    if (loop->desc[i].map_arity > max_arity) max_arity = loop->desc[i].map_arity;
  }
  char *need = calloc((size_t)(ngroups ? ngroups : 1) * (size_t)max_arity, 1);
  if (!need) {
    b->failed = 1;
    return;
  }
  mark_needed_indices(loop, max_arity, need);

  /* One restrict base pointer per dat (not per argument): arguments on the same dat derive from
   * the same pointer, so the promise "no other pointer reaches this data" stays true. */
  op2_buf_printf(b, "\n#define OP2_KERNEL %s\n\n#define OP2_DECLARE", loop->name);
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (d->opt_off) continue;
    const char *t = op2_type_name(d->type);
    if (d->kind == OP2_ARG_IDX) {
      op2_buf_printf(b, " \\\n  const int *const op2_orig%d = (const int *)op2_args[%d];", i, i);
    } else if (d->kind == OP2_ARG_GBL) {
      op2_buf_printf(b, " \\\n  %s *restrict const op2_arg%d = (%s *)op2_args[%d];", t, i, t, i);
      /* A reduction accumulates in a local copy the compiler can keep in registers. */
      if (d->acc != OP_READ)
        op2_buf_printf(b,
                       " \\\n  %s op2_red%d[%d]; \\\n  for (int op2_k = 0; op2_k < %d; op2_k++) "
                       "op2_red%d[op2_k] = op2_arg%d[op2_k];",
                       t, i, d->dim, d->dim, i, i);
    } else if (op2_first_arg_of_dat_group(loop, d->dat_group) == i) {
      op2_buf_printf(b, " \\\n  %s *restrict const op2_dat%d = (%s *)op2_args[%d];", t,
                     d->dat_group, t, i);
    }
  }
  for (int g = 0; g < ngroups; g++)
    op2_buf_printf(b, " \\\n  const int *restrict const op2_map%d = op2_maps[%d];", g,
                   op2_first_arg_of_map_group(loop, g));
  op2_buf_printf(b, "\n\n#define OP2_ELEMENT");
  for (int g = 0; g < ngroups; g++) {
    int arity = loop->desc[op2_first_arg_of_map_group(loop, g)].map_arity;
    for (int c = 0; c < arity; c++)
      if (need[g * max_arity + c])
        op2_buf_printf(b, " \\\n    const int op2_i%d_%d = op2_map%d[%d * op2_n + %d];", g, c, g,
                       arity, c);
  }
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (d->opt_off) continue;
    if (d->kind == OP2_ARG_DAT && d->map_arity && d->idx < 0) {
      op2_buf_printf(b, " \\\n    %s%s *op2_vec%d[%d] = {", d->acc == OP_READ ? "const " : "",
                     op2_type_name(d->type), i, -d->idx);
      for (int c = 0; c < -d->idx; c++)
        op2_buf_printf(b, "%sop2_dat%d + %d * op2_i%d_%d", c ? ", " : "", d->dat_group, d->dim,
                       d->map_group, c);
      op2_buf_printf(b, "};");
    } else if (d->kind == OP2_ARG_IDX) {
      /* Indices the user sees are the ones declared: through the set's original-index table
       * when the library has reordered the set. */
      char local[64];
      if (d->map_arity)
        snprintf(local, sizeof local, "op2_i%d_%d", d->map_group, d->idx);
      else
        snprintf(local, sizeof local, "op2_n");
      op2_buf_printf(b, " \\\n    int op2_idx%d = op2_orig%d ? op2_orig%d[%s] : %s;", i, i, i,
                     local, local);
    }
  }

  op2_buf_printf(b, "\n\n#define OP2_CALL_ARGS");
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    const char *sep = i + 1 < loop->nargs ? "," : "";
    if (d->opt_off && d->idx < -1) /* a vector: the kernel takes (const) T ** */
      op2_buf_printf(b, " \\\n    (%s%s **)0%s", d->acc == OP_READ ? "const " : "",
                     op2_type_name(d->type), sep);
    else if (d->opt_off)
      op2_buf_printf(b, " \\\n    (%s *)0%s", op2_type_name(d->type), sep);
    else if (d->kind == OP2_ARG_GBL)
      op2_buf_printf(b, " \\\n    op2_%s%d%s", d->acc == OP_READ ? "arg" : "red", i, sep);
    else if (d->kind == OP2_ARG_IDX)
      op2_buf_printf(b, " \\\n    &op2_idx%d%s", i, sep);
    else if (!d->map_arity)
      op2_buf_printf(b, " \\\n    op2_dat%d + %d * op2_n%s", d->dat_group, d->dim, sep);
    else if (d->idx >= 0)
      op2_buf_printf(b, " \\\n    op2_dat%d + %d * op2_i%d_%d%s", d->dat_group, d->dim,
                     d->map_group, d->idx, sep);
    else
      op2_buf_printf(b, " \\\n    op2_vec%d%s", i, sep);
  }
  op2_buf_printf(b, "\n\n#define OP2_FINISH");
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (d->kind == OP2_ARG_GBL && d->acc != OP_READ)
      op2_buf_printf(b,
                     " \\\n  for (int op2_k = 0; op2_k < %d; op2_k++) op2_arg%d[op2_k] = "
                     "op2_red%d[op2_k];",
                     d->dim, i, i);
  }
  op2_buf_printf(b, "\n\n");
  free(need);
}

static int count_lines(const char *s, size_t len) {
  int n = 0;
  for (size_t i = 0; i < len; i++) n += s[i] == '\n';
  return n;
}

int op2_codegen_c(const op2_context *ctx, const op2_loop *loop, const char *kernel_src,
                  op2_generated *out) {
  memset(out, 0, sizeof *out);
  op2_const **used = NULL;
  int nused = 0;
  OP2_CALL(op2_signature_describe(loop, "c", &out->signature));
  OP2_CALL(op2_constants_used(ctx, kernel_src, &used, &nused));
  char *prelude = op2_template_load(ctx, "c/prelude.h");
  char *tmpl = prelude ? op2_template_load(ctx, "c/loop.c") : NULL;
  if (!prelude || !tmpl) {
    free(prelude), free(used);
    return OP2_ERR_JIT;
  }
  op2_buf *b = &out->source;
  /* Messages about the generated parts name the generated file, as the cache stores it. */
  op2_emit_header(b, loop->name, "c", "kernel", out->signature.data, used, nused);
  op2_buf_printf(b, " */\n");
  op2_buf_append(b, prelude, strlen(prelude));
  op2_emit_constants(b, used, nused, "");
  out->kernel_first_line = count_lines(b->data, b->len) + 3;
  op2_buf_printf(b, "\n/* The user's kernel, as given to op_par_loop. */\n#line 1 \"kernel:%s\"\n",
                 loop->name);
  size_t klen = strlen(kernel_src);
  op2_buf_append(b, kernel_src, klen);
  if (klen && kernel_src[klen - 1] != '\n') op2_buf_append(b, "\n", 1);
  op2_buf_printf(b, "#line %d \"%s.c\"\n", count_lines(b->data, b->len) + 2, loop->name);
  /* OP2's kernels are `inline`, which in C99 gives no external definition: compiled without
   * optimisation the call would not link. A non-inline declaration makes the kernel's one. */
  op2_buf_printf(b, "extern __typeof__(%s) %s;\n", loop->name, loop->name);
  emit_arg_macros(b, loop);
  op2_buf_append(b, tmpl, strlen(tmpl));
  free(prelude), free(tmpl), free(used);
  if (b->failed || out->signature.failed) {
    op2_buf_free(&out->source), op2_buf_free(&out->signature);
    return op2_error(OP2_ERR_MEM, "out of memory generating code for loop '%s'", loop->name);
  }
  return OP2_OK;
}
