/* SPDX-License-Identifier: BSD-3-Clause */
/* Fusion of consecutive direct loops over one set (chain_fuse.h). The fused kernel text is each
 * distinct kernel text with its function renamed by a macro (op2_fused_K), then a function named
 * after the fused loop that calls them in order with its parameters:
 *
 *   #define scale op2_fused_0
 *   static void scale(const double *g, const double *x, double *a) { ... }
 *   #undef scale
 *   ...
 *   static void fused_scale_add1(const double *p0, const double *p1, double *p2, double *p3) {
 *     op2_fused_0((void *)p0, (void *)p1, (void *)p2);
 *     op2_fused_1((void *)p3);
 *   }
 *
 * The parameters are typed as the arguments are, so the library's check of the kernel's
 * parameters holds; each call passes void pointers, which C converts to whatever each kernel
 * declared (const or not) without a diagnostic. */
#include "base/c_lexis.h"
#include "runtime/chain_fuse.h"
#include "runtime/compiled_kernel.h"
#include "runtime/mesh.h"
#include "jit/jit.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ident_char(char c) {
  return isalnum((unsigned char)c) || c == '_';
}

/* Limits of one fused pass: its name stays a loop name (at most 200 characters), its arguments
 * within what the kernel parameter check reads. */
enum { FUSE_NAME_MAX = 200, FUSE_ARGS_MAX = 48, FUSE_NAMES_MAX = 64 };

static bool plain_type(const char *type, op2_type *t) {
  return type && !strchr(type, ':') && op2_type_parse(type, t) == OP2_OK;
}

static bool direct_args(const op2_loop_call *p) {
  if (p->nargs < 1) return false;
  for (int i = 0; i < p->nargs; i++) {
    const op_arg *a = &p->args[i];
    op2_type t;
    if (!a->opt || !plain_type(a->type, &t)) return false;
    /* a dat argument the loop's checks would refuse runs alone, so its message is its own */
    if (a->kind == OP2_ARG_DAT && a->map == OP_ID && a->idx == -1 && a->dat &&
        a->dat->set == p->set && t == a->dat->type && a->dim == a->dat->dim &&
        (unsigned)a->acc <= OP_INC)
      continue;
    if (a->kind == OP2_ARG_GBL && a->acc == OP_READ) continue;
    return false;
  }
  return true;
}

/* No preprocessor line but #line (a #define or #include could reach into the other texts), and
 * C: a procedure the program compiled (Fortran) has no text to fuse. */
static bool plain_text(const char *text) {
  if (op2_kernel_text_compiled(text)) return false;
  for (const char *line = text; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
    const char *p = line;
    while (*p == ' ' || *p == '\t') p++;
    if (*p != '#') continue;
    for (p++; *p == ' ' || *p == '\t'; p++) continue;
    if (strncmp(p, "line", 4) != 0 && !isdigit((unsigned char)*p)) return false;
  }
  return true;
}

/* The identifiers a text declares at file scope (outside braces and parentheses), keywords
 * left out; false when there are more than `max` or memory runs out. */
static bool file_scope_names(const char *text, char (*names)[64], int *count, int max) {
  char *code = op2_c_blank(text);
  if (!code) return false;
  int braces = 0, parens = 0, n = 0;
  bool ok = true;
  for (const char *p = code; *p && ok;) {
    if (*p == '#') { /* a #line: its number and file name are no names */
      while (*p && *p != '\n') p++;
      continue;
    }
    if (*p == '{') braces++;
    if (*p == '}') braces--;
    if (*p == '(') parens++;
    if (*p == ')') parens--;
    if (!ident_char(*p) || isdigit((unsigned char)*p)) {
      p++;
      continue;
    }
    const char *w = p;
    while (ident_char(*p)) p++;
    size_t len = (size_t)(p - w);
    if (braces || parens || len >= 64) continue;
    char word[64];
    memcpy(word, w, len);
    word[len] = 0;
    if (op2_is_reserved_name(word)) continue;
    if (n == max)
      ok = false;
    else
      memcpy(names[n++], word, len + 1);
  }
  free(code);
  *count = n;
  return ok;
}

static bool same_text(const op2_loop_call *a, const op2_loop_call *b) {
  return strcmp(a->name, b->name) == 0 && strcmp(a->kernel, b->kernel) == 0;
}

int op2_fuse_span(const op2_loop_call *parts, int n) {
  if (n < 2 || !direct_args(&parts[0]) || !plain_text(parts[0].kernel)) return 1;
  char(*seen)[64] = malloc(FUSE_NAMES_MAX * sizeof *seen);
  int nseen = 0, more = 0;
  if (!seen || !file_scope_names(parts[0].kernel, seen, &nseen, FUSE_NAMES_MAX)) {
    free(seen);
    return 1;
  }
  size_t name_len = strlen("fused_") + strlen(parts[0].name);
  int nargs = parts[0].nargs, k = 1;
  for (; k < n; k++) {
    const op2_loop_call *p = &parts[k];
    name_len += 1 + strlen(p->name);
    nargs += p->nargs;
    if (p->set != parts[0].set || name_len > FUSE_NAME_MAX || nargs > FUSE_ARGS_MAX ||
        !direct_args(p) || !plain_text(p->kernel))
      break;
    bool repeat = false;
    for (int j = 0; j < k && !repeat; j++) repeat = same_text(&parts[j], p);
    if (repeat) continue;
    char(*mine)[64] = seen + nseen;
    if (!file_scope_names(p->kernel, mine, &more, FUSE_NAMES_MAX - nseen)) break;
    bool clash = false;
    for (int a = 0; a < more && !clash; a++)
      for (int b = 0; b < nseen && !clash; b++) clash = strcmp(mine[a], seen[b]) == 0;
    if (clash) break;
    nseen += more;
  }
  free(seen);
  return k;
}

/* printf into a growing buffer; false when out of memory. */
typedef struct text {
  char *s;
  size_t len, cap;
} text;

static bool add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool add(text *t, const char *fmt, ...) {
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
    va_end(ap);
    if (n < 0) return false;
    if (t->s && t->len + (size_t)n < t->cap) {
      t->len += (size_t)n;
      return true;
    }
    size_t cap = 2 * (t->cap + (size_t)n + 64);
    char *s = realloc(t->s, cap);
    if (!s) return false;
    t->s = s, t->cap = cap;
  }
}

int op2_fuse_build(const op2_loop_call *parts, int k, op2_fused *out) {
  memset(out, 0, sizeof *out);
  text src = {0}, name = {0};
  int *alias = calloc((size_t)k, sizeof *alias);
  bool ok = alias != NULL && add(&name, "fused");
  for (int i = 0; ok && i < k; i++) {
    out->nargs += parts[i].nargs;
    ok = add(&name, "_%s", parts[i].name);
    alias[i] = i;
    for (int j = 0; j < i; j++)
      if (same_text(&parts[j], &parts[i])) {
        alias[i] = alias[j];
        break;
      }
    if (ok && alias[i] == i)
      ok = add(&src, "#define %s op2_fused_%d\n%s\n#undef %s\n", parts[i].name, i, parts[i].kernel,
               parts[i].name);
  }
  out->args = ok ? malloc((size_t)out->nargs * sizeof *out->args) : NULL;
  ok = ok && out->args && add(&src, "static void %s(", name.s);
  for (int i = 0, at = 0; ok && i < k; i++)
    for (int a = 0; ok && a < parts[i].nargs; a++, at++) {
      const op_arg *arg = &parts[i].args[a];
      out->args[at] = *arg;
      op2_type t;
      op2_type_parse(arg->type, &t);
      ok = add(&src, "%s%s%s *p%d", at ? ", " : "", arg->acc == OP_READ ? "const " : "",
               op2_type_name(t), at);
    }
  ok = ok && add(&src, ") {\n");
  for (int i = 0, at = 0; ok && i < k; i++) {
    ok = add(&src, "  op2_fused_%d(", alias[i]);
    for (int a = 0; ok && a < parts[i].nargs; a++, at++)
      ok = add(&src, "%s(void *)p%d", a ? ", " : "", at);
    ok = ok && add(&src, ");\n");
  }
  ok = ok && add(&src, "}\n");
  free(alias);
  out->kernel = src.s;
  out->name = name.s;
  if (!ok) {
    op2_fused_free(out);
    return OP2_ERR_MEM;
  }
  return OP2_OK;
}

void op2_fused_free(op2_fused *f) {
  free(f->kernel);
  free(f->name);
  free(f->args);
  memset(f, 0, sizeof *f);
}
