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
#include <stdlib.h>
#include <string.h>

#include "base/c_lexis.h"
#include "cxx_lower.h"
#include "cxx_prune.h"
#include "jit.h"
#include "jit/jit_internal.h"

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
  while (op2_ident_char(*e)) e++;
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

static int has_c_form(const char *name, size_t len) {
  return c_header_for(name, len) != NULL;
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
    const char *s = op2_c_skip_literal(q);
    if (s != q) {
      q = s;
      continue;
    }
    if (op2_ident_char(*q) && !isdigit((unsigned char)*q)) {
      const char *w = q;
      while (op2_ident_char(*q)) q++;
      names_constant |= is_constant(loop, w, (size_t)(q - w));
      continue;
    }
    q++;
  }
  return names_constant && *q == ';' ? q + 1 : NULL;
}

/* How many of the text's `#if`, `#ifdef` and `#ifndef` have no `#endif`: a kernel taken from a
 * header ends there, inside the header's include guard. */
static int unclosed_conditionals(const char *src) {
  int open = 0, line_start = 1;
  for (const char *p = src; *p;) {
    const char *q = op2_c_skip_literal(p);
    if (q != p) {
      line_start = 0, p = q;
      continue;
    }
    const char *d, *end = line_start && *p == '#' ? op2_c_directive(p, &d, &(size_t){0}) : NULL;
    if (end) {
      size_t len = strspn(d, "abcdefghijklmnopqrstuvwxyz");
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

/* ---- `inline` helpers as C++ means them ----
 * C99's plain `inline` (C++'s, to OP2's headers) defines no symbol: a helper the compiler does not
 * inline would stay undefined. A file-scope function declared inline and neither static nor
 * extern becomes static, as C++'s inline behaves within one file. Real headers spell it in any
 * order (`static OP_FUN_PREFIX inline`, `inline static`, `__inline__`, attributes between) and
 * through macros (`#define OP_FUN_PREFIX` empty, or `inline`): the whole declaration's specifiers
 * are read, object-like macros the text defines are looked through, and `static` is put before
 * the declaration's first word, once. */

enum { WORD_INLINE = 1, WORD_STORAGE = 2, MACRO_DEPTH = 8 };

/* What the word [w, w + len) is or may expand to: WORD_INLINE, WORD_STORAGE (static, extern,
 * typedef), both or neither. */
static int word_class(const op2_c_macros *t, const char *w, size_t len, int depth) {
  if (word_is(w, len, "inline") || word_is(w, len, "__inline") || word_is(w, len, "__inline__"))
    return WORD_INLINE;
  if (word_is(w, len, "static") || word_is(w, len, "extern") || word_is(w, len, "typedef"))
    return WORD_STORAGE;
  int cls = 0;
  for (int i = 0; depth < MACRO_DEPTH && i < t->n; i++) {
    if (!t->def[i].body || t->def[i].len != len || strncmp(t->def[i].name, w, len) != 0) continue;
    for (const char *p = t->def[i].body; p < t->def[i].end;) {
      const char *q = op2_c_skip_literal(p);
      if (q != p) {
        p = q;
        continue;
      }
      const char *e = p;
      while (op2_ident_char(*e)) e++;
      if (e > p && !isdigit((unsigned char)*p)) cls |= word_class(t, p, (size_t)(e - p), depth + 1);
      p = e > p ? e : p + 1;
    }
  }
  return cls;
}

/* At p, the first word of a declaration at file scope: whether its specifiers (up to the
 * declarator's parameter list, attributes skipped) make an inline function with neither static
 * nor extern. */
static int needs_static(const op2_c_macros *t, const char *p) {
  int cls = 0;
  while (*p && *p != ';' && *p != '{' && *p != '=' && *p != ',' && *p != '(') {
    const char *q = op2_c_skip_literal(p);
    if (q != p) {
      p = q;
      continue;
    }
    if (!op2_ident_char(*p) || isdigit((unsigned char)*p)) {
      p++;
      continue;
    }
    const char *e = p;
    while (op2_ident_char(*e)) e++;
    size_t len = (size_t)(e - p);
    const char *a = e;
    while (isspace((unsigned char)*a)) a++;
    if (*a == '(' && (word_is(p, len, "__attribute__") || word_is(p, len, "__attribute") ||
                      word_is(p, len, "__declspec") || word_is(p, len, "_Alignas"))) {
      int depth = 0; /* past the attribute's parentheses */
      for (p = a; *p; p++) {
        depth += (*p == '(') - (*p == ')');
        if (depth == 0) break;
      }
      if (*p) p++;
      continue;
    }
    cls |= word_class(t, p, len, 0);
    p = e;
  }
  return *p == '(' && cls == WORD_INLINE;
}

/* The calling file's context of a kernel found through it (runtime/kernel_search.c): one comment
 * at the start of the text, from the marker to the first end of comment, its text escaped ('@'
 * before a character means that character: "@@", "*@/", "/@*"). */
static const char context_mark[] = "/* op2 context:";

size_t op2_kernel_context(const char *text, op2_buf *context) {
  if (strncmp(text, context_mark, sizeof context_mark - 1) != 0) return 0;
  const char *body = strchr(text, '\n'), *end = strstr(text, "*/");
  if (!body || !end || end < body) return 0;
  for (const char *p = body + 1; p < end;) { /* runs between escapes, appended whole */
    const char *at = memchr(p, '@', (size_t)(end - p)), *stop = at ? at : end;
    op2_buf_append(context, p, (size_t)(stop - p));
    if (!at) break;
    p = at + 1 < end ? at + 1 : at; /* '@' before a character means that character */
    op2_buf_append(context, p, 1);
    p++;
  }
  if (!context->data) op2_buf_append(context, "", 0);
  end += 2;
  return (size_t)(end - text) + (*end == '\n');
}

/* At p, a '{' at file scope: whether it opens a linkage block (`extern "C" {`, which a header
 * shared with C++ has under #ifdef __cplusplus), whose declarations are still at file scope. */
static int linkage_brace(const char *src, const char *p) {
  while (p > src && isspace((unsigned char)p[-1])) p--;
  if (p == src || p[-1] != '"') return 0;
  const char *close = --p;
  while (p > src && p[-1] != '"' && p[-1] != '\n') p--;
  if (p == src || p[-1] != '"' ||
      !(word_is(p, (size_t)(close - p), "C") || word_is(p, (size_t)(close - p), "C++")))
    return 0;
  for (p--; p > src && isspace((unsigned char)p[-1]);) p--;
  return p - src >= 6 && strncmp(p - 6, "extern", 6) == 0 &&
         (p - 6 == src || !op2_ident_char(p[-7]));
}

/* The C tiers' copy of what the kernel reaches in the calling file's context (prune below). */
static const char context_part[] =
    "#ifndef OP2_CXX_TIER /* op2: what the kernel reaches of the calling file, for C */\n";

/* The kernel text without the C++ its kernel does not reach (cxx_prune.c). A kernel found
 * through its calling file is pruned with that file's context before it, as OP2 compiles it
 * there (MG-CFD's validation.h uses the NVAR of the const.h its calling file includes): what the
 * kernel reaches of the context goes before the kernel text under #ifndef OP2_CXX_TIER (the C++
 * tier compiles the whole context). Otherwise, or when the context holds C++ the kernel reaches,
 * the kernel text alone. 1 when `out` holds the pruned text. */
static int prune(const char *src, const char *kernel, op2_buf *out) {
  op2_buf context = {0}, both = {0}, pruned = {0};
  size_t skip = op2_kernel_context(src, &context);
  int done = 0;
  if (skip && strncmp(src + skip, context_part, sizeof context_part - 1) == 0) {
    op2_buf_free(&context);
    return 0; /* pruned already: the generated file's text goes through twice */
  }
  if (skip) {
    op2_buf_printf(&both, "%s\n%s", context.data, src + skip);
    if (!both.failed && op2_cxx_prune(both.data, kernel, has_c_form, &pruned)) {
      /* the pruned text has the lines of the two parts: the context's first */
      const char *at = pruned.data;
      for (const char *c = context.data; *c && at; c++)
        if (*c == '\n') at = strchr(at, '\n'), at = at ? at + 1 : NULL;
      at = at ? strchr(at, '\n') : NULL;
      if (at) {
        op2_buf_append(out, src, skip);
        op2_buf_printf(out, "%s%.*s\n#endif\n%s", context_part, (int)(at - pruned.data),
                       pruned.data, at + 1);
        done = !out->failed;
      }
    }
  }
  if (!done && !out->failed) done = op2_cxx_prune(src, kernel, has_c_form, out);
  op2_buf_free(&context), op2_buf_free(&both), op2_buf_free(&pruned);
  return done;
}

void op2_kernel_text_for_c(const op2_loop_desc *loop, const char *src, int rewrite_std,
                           op2_buf *out) {
  int depth = 0, line_start = 1, renamed, linkage = 0;
  int at_decl = 1;               /* at file scope, where a declaration starts */
  const char *directive_end = 0; /* inside a preprocessor directive until there */
  /* C++ that the kernel does not use left out (cxx_prune.c), then C++ that has a C form lowered
   * (cxx_lower.c): the rewrites below apply to the result */
  op2_buf pruned = {0}, lowered = {0};
  if (rewrite_std && loop && prune(src, loop->name, &pruned)) src = pruned.data;
  if (rewrite_std && op2_cxx_lower(src, loop ? loop->name : NULL, &lowered) && !lowered.failed)
    src = lowered.data;
  /* C's inline for every target: the CUDA file is C for the emulator too */
  op2_c_macros macros;
  op2_c_macros_read(src, &macros);
  if (macros.failed) out->failed = 1; /* the caller reports it as out of memory */
  for (const char *p = src; *p;) {
    const char *q = op2_c_skip_literal(p);
    if (q != p) {
      op2_buf_append(out, p, (size_t)(q - p));
      line_start = 0;
      p = q;
      continue;
    }
    const char *end, *name;
    size_t len;
    if (line_start && *p == '#' && (end = op2_c_directive(p, &name, &len)) != NULL)
      directive_end = end;
    const char *repl = line_start && *p == '#' ? std_include(p, &end) : NULL;
    if (repl) {
      op2_buf_printf(out, "%s%s", *repl ? "#include " : "", repl);
      p = end;
      continue;
    }
    int code = p >= directive_end; /* not in a directive */
    if (depth == 0 && code && strncmp(p, "extern", 6) == 0 && !op2_ident_char(p[6]) &&
        (p == src || !op2_ident_char(p[-1])) && (end = extern_constant_decl(loop, p)) != NULL) {
      /* blanked: the constant is defined before the kernel; its lines stay */
      for (; p < end; p++) op2_buf_putc(out, *p == '\n' ? '\n' : ' ');
      at_decl = 1;
      continue;
    }
    if (depth == 0 && code && at_decl && op2_ident_char(*p) && !isdigit((unsigned char)*p) &&
        (p == src || !op2_ident_char(p[-1]))) {
      at_decl = 0;
      if (needs_static(&macros, p)) op2_buf_printf(out, "static ");
    }
    if (rewrite_std && *p == 's' && (p == src || !op2_ident_char(p[-1])) &&
        std_known(p, &renamed)) {
      if (renamed) op2_buf_printf(out, "op2_std_");
      p += 5;
      continue;
    }
    if (code && depth == 0 && (*p == '{' || *p == '}') &&
        (*p == '{' ? linkage_brace(src, p) : linkage > 0)) {
      linkage += *p == '{' ? 1 : -1; /* its declarations stay at file scope */
      at_decl = 1;
    } else if (code && *p == '{') {
      depth++;
    } else if (code && *p == '}' && depth > 0) {
      at_decl = --depth == 0;
    } else if (code && depth == 0 && *p == ';') {
      at_decl = 1;
    } else if (code && depth == 0 && !isspace((unsigned char)*p)) {
      at_decl = 0;
    }
    if (*p == '\n')
      line_start = 1;
    else if (!isspace((unsigned char)*p))
      line_start = 0;
    op2_buf_putc(out, *p);
    p++;
  }
  /* the header's guard (and any conditional around the kernel) closed after the kernel */
  for (int n = unclosed_conditionals(src); n > 0; n--) op2_buf_printf(out, "\n#endif");
  if (!out->data) op2_buf_append(out, "", 0);
  op2_c_macros_free(&macros);
  op2_buf_free(&lowered);
  op2_buf_free(&pruned);
}
