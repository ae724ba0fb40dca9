/* SPDX-License-Identifier: BSD-3-Clause */
/* A small, tolerant reader of a kernel's parameter list. It understands what kernels are written
 * with (base types, const/volatile/restrict, pointers, array declarators) and gives up on anything
 * else (macros, typedefs, function pointers): a check that cannot be made is skipped, never turned
 * into a refusal of a valid kernel. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/c_lexis.h"
#include "jit_internal.h"
#include "kernel_facts.h"
#include "kernel_params.h"

/* The start of the parameter list of the definition of `name`: just after its '(' with the
 * matching ')' at *close, followed by '{'. NULL when there is none. */
const char *op2_kernel_find_definition(const char *code, const char *name, const char **close) {
  size_t len = strlen(name);
  if (!len) return NULL; /* no name (a calling file's context): an empty one would match anywhere */
  for (const char *p = strstr(code, name); p; p = strstr(p + 1, name)) {
    if ((p > code && op2_ident_char(p[-1])) || op2_ident_char(p[len])) continue;
    const char *q = p + len;
    while (isspace((unsigned char)*q)) q++;
    if (*q != '(') continue;
    int depth = 0;
    const char *r = q;
    for (; *r; r++) {
      if (*r == '(') depth++;
      if (*r == ')' && --depth == 0) break;
    }
    if (!*r) return NULL;
    const char *after = r + 1;
    while (isspace((unsigned char)*after)) after++;
    if (*after != '{') continue; /* a call or a prototype */
    *close = r;
    return q + 1;
  }
  return NULL;
}

static int is_qualifier(const char *w) {
  static const char *const q[] = {"const",        "volatile", "restrict", "__restrict",
                                  "__restrict__", "register", NULL};
  for (int i = 0; q[i]; i++)
    if (strcmp(w, q[i]) == 0) return 1;
  return 0;
}

static int is_type_word(const char *w) {
  static const char *const t[] = {"double", "float",  "int",      "long", "short",
                                  "char",   "signed", "unsigned", "void", NULL};
  for (int i = 0; t[i]; i++)
    if (strcmp(w, t[i]) == 0) return 1;
  return 0;
}

/* One parameter's declaration, text [b, e). */
static int parse_param(const char *b, const char *e, op2_kernel_param *p, op2_jit_error *why) {
  memset(p, 0, sizeof *p);
  int seen_star = 0, const_before_star = 0;
  size_t blen = 0;
  for (const char *c = b; c < e;) {
    if (isspace((unsigned char)*c)) {
      c++;
    } else if (*c == '*') {
      if (p->depth == 0) p->pointee_const = const_before_star;
      p->depth++, seen_star = 1, c++;
    } else if (*c == '[') {
      while (c < e && *c != ']') c++;
      if (c < e) c++;
      if (p->depth == 0) p->pointee_const = const_before_star;
      p->depth++;
    } else if (op2_ident_char(*c)) {
      const char *w0 = c;
      while (c < e && op2_ident_char(*c)) c++;
      char w[64];
      snprintf(w, sizeof w, "%.*s", (int)(c - w0), w0);
      if (is_qualifier(w)) {
        if (!seen_star && strcmp(w, "const") == 0) const_before_star = 1;
      } else if (is_type_word(w) && !seen_star && !p->name[0]) {
        blen += (size_t)snprintf(p->base + blen, sizeof p->base - blen, "%s%s", blen ? " " : "", w);
        if (blen >= sizeof p->base) blen = sizeof p->base - 1;
      } else if (!p->name[0] && p->base[0]) {
        snprintf(p->name, sizeof p->name, "%s", w);
      } else {
        return op2_jit_error_set(why, OP2_ERR_ARG,
                                 "'%s' is not a type this check knows (macro or typedef?)", w);
      }
    } else {
      return op2_jit_error_set(why, OP2_ERR_ARG, "'%c' in a parameter declaration", *c);
    }
  }
  if (!p->base[0]) {
    return op2_jit_error_set(why, OP2_ERR_ARG, "a parameter without a type");
  }
  /* Spellings of the same type, as op2_type_name spells it. */
  if (strcmp(p->base, "long long int") == 0 || strcmp(p->base, "signed long long") == 0)
    snprintf(p->base, sizeof p->base, "long long");
  if (strcmp(p->base, "signed int") == 0 || strcmp(p->base, "signed") == 0)
    snprintf(p->base, sizeof p->base, "int");
  return 0;
}

int op2_kernel_params_parse_blank(const char *code, const char *name, op2_kernel_param *out,
                                  int *count, op2_jit_error *why) {
  *count = 0;
  const char *close = NULL;
  const char *open = op2_kernel_find_definition(code, name, &close);
  int rc = OP2_OK;
  if (!open) {
    rc = op2_jit_error_set(why, OP2_ERR_ARG, "no definition of '%s(...) {' found", name);
  }
  const char *b = open;
  while (rc == OP2_OK && b && b <= close) {
    const char *e = b;
    int depth = 0;
    while (e < close && !(*e == ',' && depth == 0)) {
      if (*e == '(' || *e == '[') depth++;
      if (*e == ')' || *e == ']') depth--;
      e++;
    }
    if (memchr(b, '(', (size_t)(e - b))) {
      rc = op2_jit_error_set(why, OP2_ERR_ARG,
                             "a parameter with parentheses (function pointer or macro)");
      break;
    }
    if (*count >= OP2_PARAMS_MAX) {
      rc = op2_jit_error_set(why, OP2_ERR_ARG, "more than %d parameters", OP2_PARAMS_MAX);
      break;
    }
    rc = parse_param(b, e, &out[*count], why);
    if (rc == OP2_OK) ++*count;
    b = e + 1;
  }
  /* f(void) has no parameters. */
  if (rc == OP2_OK && *count == 1 && strcmp(out[0].base, "void") == 0 && out[0].depth == 0)
    *count = 0;
  return rc;
}

/* What argument i passes: its element type and pointer depth, and its kind in words. */
static void passed(const op2_arg_desc *d, const char **type, int *depth, const char **what) {
  *type = d->kind == OP2_ARG_IDX ? "int" : op2_type_name(d->type);
  *depth = d->kind == OP2_ARG_DAT && d->idx < -1 ? 2 : 1;
  *what = d->kind == OP2_ARG_GBL   ? "op_arg_gbl"
          : d->kind == OP2_ARG_IDX ? "op_arg_idx"
          : *depth == 2            ? "op_arg_dat with a vector map index"
                                   : "op_arg_dat";
}

/* Whether parameter p is declared as argument d passes it: a known base type must be the
 * argument's (another spelling is not judged), and the pointer depth must match. */
static bool param_fits(const op2_kernel_param *p, const op2_arg_desc *d) {
  const char *type, *what;
  int depth;
  passed(d, &type, &depth, &what);
  int known = strcmp(p->base, "double") == 0 || strcmp(p->base, "float") == 0 ||
              strcmp(p->base, "int") == 0 || strcmp(p->base, "long long") == 0;
  return !(known && strcmp(p->base, type) != 0) && p->depth == depth;
}

int op2_kernel_params_verify(op2_jit *jit, const char *source, const op2_loop_desc *loop) {
  const op2_kernel_facts *facts = op2_kernel_facts_of(jit, source, loop->name);
  if (!facts) {
    op2_jit_failure_clear(jit); /* silent: the call then runs at once and reports it there */
    return OP2_ERR_MEM;
  }
  if (facts->params_rc != OP2_OK) return OP2_OK; /* not understood: not checked (said when built) */
  if (facts->nparams != loop->nargs) return OP2_ERR_ARG;
  for (int i = 0; i < facts->nparams; i++)
    if (!param_fits(&facts->params[i], &loop->desc[i])) return OP2_ERR_ARG;
  return OP2_OK;
}

int op2_kernel_params_check(op2_jit *jit, const char *source, const op2_loop_desc *loop) {
  const op2_kernel_facts *facts = op2_kernel_facts_of(jit, source, loop->name);
  if (!facts) return OP2_ERR_MEM;
  if (facts->params_rc != OP2_OK) {
    op2_jit_diag(jit, 2,
                 "op_par_loop '%s': kernel parameters not checked against the arguments: %s",
                 loop->name, facts->params_why.msg);
    return OP2_OK;
  }
  const op2_kernel_param *params = facts->params;
  int n = facts->nparams, rc = OP2_OK;
  if (n != loop->nargs) {
    rc = op2_jit_fail(jit, OP2_ERR_ARG,
                      "op_par_loop '%s': the kernel '%s' has %d parameter%s but the loop passes %d "
                      "argument%s",
                      loop->name, loop->name, n, n == 1 ? "" : "s", loop->nargs,
                      loop->nargs == 1 ? "" : "s");
  }
  for (int i = 0; rc == OP2_OK && i < n; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    const op2_kernel_param *p = &params[i];
    const char *type, *what;
    int depth;
    passed(d, &type, &depth, &what);
    if (!param_fits(p, d)) {
      rc = op2_jit_fail(
          jit, OP2_ERR_ARG,
          "op_par_loop '%s', argument %d (counting from 0): the kernel's parameter %d "
          "'%s' is declared %s%s%s but the argument (%s) passes %s%s",
          loop->name, i, i, p->name[0] ? p->name : "(unnamed)", p->base, p->depth ? " " : "",
          p->depth == 2   ? "**"
          : p->depth == 1 ? "*"
                          : "",
          what, type, depth == 2 ? " **" : " *");
    } else if (d->acc == OP_READ && d->kind != OP2_ARG_IDX && !p->pointee_const) {
      /* an op_arg_idx points at the library's own copy of the index, which the user never
       * declared: OP2's kernels take it as `int *` */
      op2_jit_diag(jit, 1,
                   "warning: op_par_loop '%s', argument %d (counting from 0) is OP_READ but the "
                   "kernel's parameter '%s' is not a pointer to const",
                   loop->name, i, p->name[0] ? p->name : "(unnamed)");
    }
  }
  return rc;
}
