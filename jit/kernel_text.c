/* SPDX-License-Identifier: BSD-3-Clause */
/* The user's kernel text as the generated C file holds it. OP2's kernels are C++ files' headers:
 * they may declare the constants they read (`extern double gam;`, which would conflict with the
 * constant baked before the kernel), include C++ headers (`<cmath>`, which neither TinyCC nor
 * the C++ tier's `extern "C"` block can take), and call `std::sqrt` or `std::min`. Here such
 * declarations are blanked, C++ headers are dropped or replaced by their C headers, and the
 * `std::` calls that have a C equivalent in the prelude (type-generic, so float stays float as
 * in C++) lose their namespace, so such kernels compile in the TinyCC tier; file-scope `inline`
 * functions become `static inline`, as C++'s inline behaves within one file. Line numbers are kept:
 * compiler messages still point at the user's lines. */
#include <ctype.h>
#include <string.h>

#include "cxx_lower.h"
#include "jit.h"
#include "jit/jit_internal.h"

static int ident_char(char c) {
  return isalnum((unsigned char)c) || c == '_';
}

/* Past a comment, string or character literal at p; p when none starts there. */
static const char *skip_non_code(const char *p) {
  if (p[0] == '/' && p[1] == '*') {
    const char *e = strstr(p + 2, "*/");
    return e ? e + 2 : p + strlen(p);
  }
  if (p[0] == '/' && p[1] == '/') return p + strcspn(p, "\n");
  if (*p == '"' || *p == '\'') {
    char q = *p++;
    while (*p && *p != q && *p != '\n') p += (*p == '\\' && p[1]) ? 2 : 1;
    return *p == q ? p + 1 : p;
  }
  return p;
}

/* `std::` functions with a C equivalent of the same types in the prelude: the math functions
 * (type-generic there), and min, max and abs as op2_std_min/max/abs. */
static const char *const std_math[] = {
    "sqrt",  "cbrt",  "fabs", "exp",   "exp2",  "expm1",    "log",    "log2",
    "log10", "log1p", "sin",  "cos",   "tan",   "asin",     "acos",   "atan",
    "sinh",  "cosh",  "tanh", "asinh", "acosh", "atanh",    "floor",  "ceil",
    "round", "trunc", "rint", "erf",   "erfc",  "tgamma",   "lgamma", "pow",
    "atan2", "fmin",  "fmax", "fmod",  "hypot", "copysign", "fdim",   "remainder"};
static const char *const std_renamed[] = {"min", "max", "abs"};

static int word_is(const char *p, size_t len, const char *w) {
  return strlen(w) == len && strncmp(p, w, len) == 0;
}

/* Whether `std::` at p is followed by a function the prelude provides; *renamed when it is one
 * of std_renamed (then called op2_std_NAME). Only calls count: the name must be followed by '('. */
static int std_known(const char *p, int *renamed) {
  if (strncmp(p, "std::", 5) != 0) return 0;
  const char *n = p + 5, *e = n;
  while (ident_char(*e)) e++;
  const char *after = e;
  while (*after == ' ' || *after == '\t') after++;
  if (*after != '(') return 0;
  size_t len = (size_t)(e - n);
  *renamed = 0;
  for (size_t i = 0; i < sizeof std_math / sizeof *std_math; i++)
    if (word_is(n, len, std_math[i])) return 1;
  for (size_t i = 0; i < sizeof std_renamed / sizeof *std_renamed; i++)
    if (word_is(n, len, std_renamed[i])) return *renamed = 1;
  return 0;
}

int op2_kernel_needs_cxx(const char *src) {
  for (const char *p = src; *p;) {
    const char *q = skip_non_code(p);
    if (q != p) {
      p = q;
      continue;
    }
    /* C++'s deduced type: C (and TinyCC, silently) would declare an int */
    if (*p == 'a' && strncmp(p, "auto", 4) == 0 && !ident_char(p[4]) &&
        (p == src || !ident_char(p[-1])))
      return 1;
    p++;
  }
  return 0;
}

/* The C header in place of a C++ one: "" (nothing: the prelude declares it, or the C++ tier's
 * wrapper includes it before the generated file), a C header, or NULL (not a C++ header). */
static const char *c_header_for(const char *name, size_t len) {
  static const char *const map[][2] = {{"cmath", ""},
                                       {"math.h", ""},
                                       {"tgmath.h", ""},
                                       {"algorithm", ""},
                                       {"limits", ""},
                                       {"cstdio", "<stdio.h>"},
                                       {"cstdlib", "<stdlib.h>"},
                                       {"cstring", "<string.h>"},
                                       {"cfloat", "<float.h>"},
                                       {"climits", "<limits.h>"},
                                       {"cstdint", "<stdint.h>"},
                                       {"cassert", "<assert.h>"}};
  for (size_t i = 0; i < sizeof map / sizeof *map; i++)
    if (word_is(name, len, map[i][0])) return map[i][1];
  return NULL;
}

/* At p, a preprocessor line `#include <NAME>` naming a header in c_header_for: its replacement,
 * and *end past the directive (before its newline). */
static const char *std_include(const char *p, const char **end) {
  const char *q = p + 1;
  while (*q == ' ' || *q == '\t') q++;
  if (strncmp(q, "include", 7) != 0) return NULL;
  q += 7;
  while (*q == ' ' || *q == '\t') q++;
  if (*q != '<') return NULL;
  const char *name = q + 1, *close = strchr(name, '>');
  if (!close || memchr(name, '\n', (size_t)(close - name))) return NULL;
  *end = close + 1;
  return c_header_for(name, (size_t)(close - name));
}

/* Whether the identifier `w` of length len is one of the declared constants. */
static int is_constant(const op2_loop_desc *loop, const char *w, size_t len) {
  for (int c = 0; loop && c < loop->nconsts; c++)
    if (word_is(w, len, loop->consts[c]->name)) return 1;
  return 0;
}

/* At p (the keyword `extern` at file scope), the declaration's end (past its ';') when it
 * declares a constant of the loop (`extern double ff[2];`); NULL otherwise. */
static const char *extern_constant_decl(const op2_loop_desc *loop, const char *p) {
  const char *q = p + 6;
  while (isspace((unsigned char)*q)) q++;
  if (*q == '"') return NULL; /* extern "C" */
  int names_constant = 0;
  while (*q && *q != ';' && *q != '{' && *q != '(') {
    const char *s = skip_non_code(q);
    if (s != q) {
      q = s;
      continue;
    }
    if (ident_char(*q) && !isdigit((unsigned char)*q)) {
      const char *w = q;
      while (ident_char(*q)) q++;
      names_constant |= is_constant(loop, w, (size_t)(q - w));
      continue;
    }
    q++;
  }
  return names_constant && *q == ';' ? q + 1 : NULL;
}

/* At p (the keyword `inline` at file scope): whether `static` or `extern` stands beside it. */
static int inline_has_linkage(const char *src, const char *p) {
  const char *b = p;
  while (b > src && isspace((unsigned char)b[-1])) b--;
  const char *w = b;
  while (w > src && ident_char(w[-1])) w--;
  if (word_is(w, (size_t)(b - w), "static") || word_is(w, (size_t)(b - w), "extern")) return 1;
  const char *a = p + 6;
  while (isspace((unsigned char)*a)) a++;
  const char *e = a;
  while (ident_char(*e)) e++;
  return word_is(a, (size_t)(e - a), "static") || word_is(a, (size_t)(e - a), "extern");
}

/* How many of the text's `#if`, `#ifdef` and `#ifndef` have no `#endif`: a kernel taken from a
 * header ends there, inside the header's include guard. */
static int unclosed_conditionals(const char *src) {
  int open = 0, line_start = 1;
  for (const char *p = src; *p;) {
    const char *q = skip_non_code(p);
    if (q != p) {
      line_start = 0, p = q;
      continue;
    }
    if (line_start && *p == '#') {
      const char *d = p + 1;
      while (*d == ' ' || *d == '\t') d++;
      const char *e = d;
      while (ident_char(*e)) e++;
      size_t len = (size_t)(e - d);
      if (word_is(d, len, "if") || word_is(d, len, "ifdef") || word_is(d, len, "ifndef")) open++;
      if (word_is(d, len, "endif") && open > 0) open--;
    }
    if (*p == '\n')
      line_start = 1;
    else if (!isspace((unsigned char)*p))
      line_start = 0;
    p++;
  }
  return open;
}

void op2_kernel_text_for_c(const op2_loop_desc *loop, const char *src, int rewrite_std,
                           op2_buf *out) {
  int depth = 0, line_start = 1, renamed;
  /* C++ that has a C form (cxx_lower.c) first: the rewrites below apply to its result */
  op2_buf lowered = {0};
  if (rewrite_std && op2_cxx_lower(src, loop ? loop->name : NULL, &lowered) && !lowered.failed)
    src = lowered.data;
  for (const char *p = src; *p;) {
    const char *q = skip_non_code(p);
    if (q != p) {
      op2_buf_append(out, p, (size_t)(q - p));
      line_start = 0;
      p = q;
      continue;
    }
    const char *end;
    const char *repl = line_start && *p == '#' ? std_include(p, &end) : NULL;
    if (repl) {
      op2_buf_printf(out, "%s%s", *repl ? "#include " : "", repl);
      p = end;
      continue;
    }
    if (depth == 0 && strncmp(p, "extern", 6) == 0 && !ident_char(p[6]) &&
        (p == src || !ident_char(p[-1])) && (end = extern_constant_decl(loop, p)) != NULL) {
      /* blanked: the constant is defined before the kernel; its lines stay */
      for (; p < end; p++) op2_buf_append(out, *p == '\n' ? "\n" : " ", 1);
      continue;
    }
    /* C99's plain `inline` (C++'s, to OP2's headers) defines no symbol: a helper the compiler
     * does not inline would stay undefined. `static inline` is C++'s meaning in one file. */
    if (rewrite_std && depth == 0 && strncmp(p, "inline", 6) == 0 && !ident_char(p[6]) &&
        (p == src || !ident_char(p[-1])) && !inline_has_linkage(src, p)) {
      op2_buf_printf(out, "static inline");
      p += 6;
      continue;
    }
    if (rewrite_std && *p == 's' && (p == src || !ident_char(p[-1])) && std_known(p, &renamed)) {
      if (renamed) op2_buf_printf(out, "op2_std_");
      p += 5;
      continue;
    }
    if (*p == '{') depth++;
    if (*p == '}' && depth > 0) depth--;
    if (*p == '\n')
      line_start = 1;
    else if (!isspace((unsigned char)*p))
      line_start = 0;
    op2_buf_append(out, p, 1);
    p++;
  }
  /* the header's guard (and any conditional around the kernel) closed after the kernel */
  for (int n = unclosed_conditionals(src); n > 0; n--) op2_buf_printf(out, "\n#endif");
  if (!out->data) op2_buf_append(out, "", 0);
  op2_buf_free(&lowered);
}
