/* SPDX-License-Identifier: BSD-3-Clause */
/* The user's kernel text as the generated C file holds it. OP2's kernels are C++ files' headers:
 * they may declare the constants they read (`extern double gam;`, which would conflict with the
 * constant baked before the kernel), include C++ headers (`<cmath>`, which neither TinyCC nor
 * the C++ tier's `extern "C"` block can take), and call `std::sqrt` or `std::min`. Here such
 * declarations are blanked, C++ headers are dropped or replaced by their C headers, and the
 * `std::` calls that have a C equivalent in the prelude (type-generic, so float stays float as
 * in C++) lose their namespace, so such kernels compile in the TinyCC tier; file-scope `inline`
 * functions become `static inline`, as C++'s inline behaves within one file. Line numbers are kept:
 * compiler messages still point at the user's lines. These C forms are the last pass over the
 * text's tokens (kernel_tokens.h), after cxx_prune.c and cxx_lower.c: the text is read once and
 * written once. */
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

/* A preprocessor line `#include <NAME>` naming a header in c_header_for: its replacement (""
 * or the C header's name), and *name_end past the '>'; NULL otherwise. */
static const char *std_include(const op2_tok *t, const char **name_end) {
  const char *q = t->p + 1, *e = t->p + t->len;
  while (q < e && (*q == ' ' || *q == '\t')) q++;
  if (e - q < 7 || strncmp(q, "include", 7) != 0) return NULL;
  q += 7;
  while (q < e && (*q == ' ' || *q == '\t')) q++;
  if (q == e || *q != '<') return NULL;
  const char *name = q + 1, *close = memchr(name, '>', (size_t)(e - name));
  if (!close || memchr(name, '\n', (size_t)(close - name))) return NULL;
  *name_end = close + 1;
  return c_header_for(name, (size_t)(close - name));
}

/* Whether the identifier `w` of length len is one of the declared constants. */
static int is_constant(const op2_loop_desc *loop, const char *w, size_t len) {
  for (int c = 0; loop && c < loop->nconsts; c++)
    if (word_is(w, len, loop->consts[c]->name)) return 1;
  return 0;
}

/* At i (the keyword `extern` at file scope), the index of the declaration's ';' when it
 * declares a constant of the loop (`extern double ff[2];`); -1 otherwise. */
static int extern_constant_decl(const op2_toks *T, int i, const op2_loop_desc *loop) {
  int j = i + 1, names_constant = 0;
  while (j < T->n && T->t[j].kind == T_SPACE) j++;
  if (j < T->n && T->t[j].kind == T_LIT && T->t[j].p[0] == '"') return -1; /* extern "C" */
  for (; j < T->n; j++) {
    const op2_tok *t = &T->t[j];
    if (t->kind == T_PUNCT && (op2_tok_is(t, ";") || op2_tok_is(t, "{") || op2_tok_is(t, "(")))
      return names_constant && op2_tok_is(t, ";") ? j : -1;
    names_constant |= t->kind == T_IDENT && is_constant(loop, t->p, (size_t)t->len);
  }
  return -1;
}

/* How many of the text's `#if`, `#ifdef` and `#ifndef` have no `#endif`: a kernel taken from a
 * header ends there, inside the header's include guard. */
static int unclosed_conditionals(const op2_toks *T) {
  int open = 0;
  for (int i = 0; i < T->n; i++) {
    const char *d;
    if (T->t[i].kind != T_PP || !op2_c_directive(T->t[i].p, &d, &(size_t){0})) continue;
    size_t len = strspn(d, "abcdefghijklmnopqrstuvwxyz");
    if (word_is(d, len, "if") || word_is(d, len, "ifdef") || word_is(d, len, "ifndef")) open++;
    if (word_is(d, len, "endif") && open > 0) open--;
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

static int is_attribute(const op2_tok *t) {
  return op2_tok_is_word(t, "__attribute__") || op2_tok_is_word(t, "__attribute") ||
         op2_tok_is_word(t, "__declspec") || op2_tok_is_word(t, "_Alignas");
}

/* At i, the first word of a declaration at file scope: whether its specifiers (up to the
 * declarator's parameter list, attributes skipped) make an inline function with neither static
 * nor extern. */
static int needs_static(const op2_toks *T, int i, const op2_c_macros *macros) {
  int cls = 0;
  for (; i < T->n; i++) {
    const op2_tok *t = &T->t[i];
    if (t->kind == T_PUNCT && strchr(";{=,(", t->p[0]))
      return op2_tok_is(t, "(") && cls == WORD_INLINE;
    if (t->kind != T_IDENT) continue;
    int next = op2_tok_next_code(T, i);
    if (is_attribute(t) && next < T->n && op2_tok_is(&T->t[next], "(")) {
      int close = op2_tok_closing(T, next, NULL); /* past the attribute's parentheses */
      if (close < 0) return 0;
      i = close;
      continue;
    }
    cls |= word_class(macros, t->p, (size_t)t->len, 0);
  }
  return 0;
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

/* At i, a '{' at file scope: whether it opens a linkage block (`extern "C" {`, which a header
 * shared with C++ has under #ifdef __cplusplus), whose declarations are still at file scope. */
static int linkage_brace(const op2_toks *T, int i) {
  int lit = i - 1, ext;
  while (lit >= 0 && T->t[lit].kind == T_SPACE) lit--;
  if (lit < 0 || T->t[lit].kind != T_LIT ||
      !(op2_tok_is(&T->t[lit], "\"C\"") || op2_tok_is(&T->t[lit], "\"C++\"")))
    return 0;
  for (ext = lit - 1; ext >= 0 && T->t[ext].kind == T_SPACE;) ext--;
  return ext >= 0 && op2_tok_is_word(&T->t[ext], "extern");
}

/* The C tiers' copy of what the kernel reaches in the calling file's context (tokens_pruned). */
static const char context_part[] =
    "#ifndef OP2_CXX_TIER /* op2: what the kernel reaches of the calling file, for C */\n";

/* T: `src` as tokens, with the C++ its kernel does not reach left out (cxx_prune.c). A kernel
 * found through its calling file is pruned with that file's context before it, as OP2 compiles it
 * there (MG-CFD's validation.h uses the NVAR of the const.h its calling file includes): what the
 * kernel reaches of the context goes before the kernel text under #ifndef OP2_CXX_TIER (the C++
 * tier compiles the whole context), *joined then holding the text T reads. Otherwise, or when
 * the context holds C++ the kernel reaches, the kernel text alone. -1: out of memory. */
static int tokens_pruned(const char *src, const char *kernel, op2_toks *T, op2_buf *joined) {
  op2_buf context = {0};
  size_t skip = op2_kernel_context(src, &context);
  int pruned = 0;
  if (skip && strncmp(src + skip, context_part, sizeof context_part - 1) == 0) {
    op2_buf_free(&context); /* pruned already: the generated file's text goes through twice */
    return op2_tokenize(T, src);
  }
  if (skip) {
    op2_buf_append(joined, src, skip);
    size_t first = joined->len;
    op2_buf_append(joined, context_part, sizeof context_part - 1);
    op2_buf_append(joined, context.data, context.len);
    op2_buf_append(joined, "\n", 1);
    size_t last = joined->len;
    op2_buf_append(joined, "#endif\n", 7);
    op2_buf_append(joined, src + skip, strlen(src + skip));
    if (joined->failed || op2_tokenize(T, joined->data)) {
      op2_buf_free(&context);
      return -1;
    }
    /* the two lines around the context are op2's, not the program's: comments to the passes */
    for (int i = 0; i < T->n; i++)
      if (T->t[i].p == joined->data + first || T->t[i].p == joined->data + last)
        T->t[i].kind = T_COMMENT;
    pruned = op2_cxx_prune_toks(T, kernel, has_c_form);
    if (!pruned) op2_toks_free(T), op2_buf_free(joined);
  }
  op2_buf_free(&context);
  if (!pruned) {
    if (op2_tokenize(T, src)) return -1;
    op2_cxx_prune_toks(T, kernel, has_c_form);
  }
  return 0;
}

/* A preprocessor line's C form: a C++ header's include made its C header's (or nothing), and
 * with rewrite_std, the `std::` calls of a macro's body made the prelude's. -1: out of memory. */
static int directive_c_form(op2_tok *t, int rewrite_std) {
  const char *from = t->p, *end = t->p + t->len, *repl = std_include(t, &from);
  int renamed;
  if (!repl && !(rewrite_std && memmem(t->p, (size_t)t->len, "std::", 5))) return 0;
  op2_buf line = {0};
  if (repl && *repl) op2_buf_printf(&line, "#include %s", repl);
  for (const char *p = repl ? from : t->p; p < end;) {
    const char *q = op2_c_skip_literal(p);
    if (q != p) {
      q = q < end ? q : end;
      op2_buf_append(&line, p, (size_t)(q - p));
      p = q;
    } else if (rewrite_std && *p == 's' && (p == t->p || !op2_ident_char(p[-1])) &&
               std_known(p, &renamed)) {
      if (renamed) op2_buf_printf(&line, "op2_std_");
      p += 5;
    } else {
      op2_buf_putc(&line, *p++);
    }
  }
  if (!line.data) op2_buf_append(&line, "", 0);
  if (line.failed) return op2_buf_free(&line), -1;
  free(t->pre);
  t->pre = line.data, t->repl = "";
  return 0;
}

/* At i, `std::NAME(` with NAME a function the prelude provides (std_known): *renamed when it is
 * called op2_std_NAME. */
static int std_call(const op2_toks *T, int i, int *renamed) {
  if (i + 3 >= T->n || !op2_tok_is_word(&T->t[i], "std") || !op2_tok_is(&T->t[i + 1], "::") ||
      T->t[i + 2].kind != T_IDENT)
    return 0;
  return std_known(T->t[i].p, renamed);
}

/* The C forms of the tokens' text (this file's first comment): constants' extern declarations
 * blanked, C++ headers' includes made C's, `std::` calls made the prelude's (rewrite_std),
 * file-scope `inline` functions made `static inline`. -1: out of memory. */
static int c_forms(op2_toks *T, const op2_loop_desc *loop, int rewrite_std,
                   const op2_c_macros *macros) {
  int depth = 0, linkage = 0, renamed;
  int at_decl = 1; /* at file scope, where a declaration starts */
  for (int i = 0; i < T->n; i++) {
    op2_tok *t = &T->t[i];
    if (t->kind == T_PP && directive_c_form(t, rewrite_std)) return -1;
    if (t->kind <= T_PP) continue; /* space, comment, literal, preprocessor line */
    int semi = depth == 0 && op2_tok_is_word(t, "extern") ? extern_constant_decl(T, i, loop) : -1;
    if (semi >= 0) { /* blanked: the constant is defined before the kernel; its lines stay */
      for (; i <= semi; i++) T->t[i].blank = OP2_TOK_SPACES, T->t[i].kind = T_SPACE;
      i = semi;
      at_decl = 1;
      continue;
    }
    if (depth == 0 && at_decl && t->kind == T_IDENT) {
      at_decl = 0;
      if (needs_static(T, i, macros) && (op2_tok_add_text(&t->pre, "static ", 1), !t->pre))
        return -1;
    }
    if (rewrite_std && std_call(T, i, &renamed)) {
      t->repl = renamed ? "op2_std_" : "", T->t[i + 1].repl = "";
      i++;
      continue;
    }
    int open = op2_tok_is(t, "{"), close = op2_tok_is(t, "}");
    if (t->kind == T_PUNCT && depth == 0 && (open ? linkage_brace(T, i) : close && linkage > 0)) {
      linkage += open ? 1 : -1; /* its declarations stay at file scope */
      at_decl = 1;
    } else if (t->kind == T_PUNCT && open) {
      depth++;
    } else if (t->kind == T_PUNCT && close && depth > 0) {
      at_decl = --depth == 0;
    } else if (depth == 0) {
      at_decl = op2_tok_is(t, ";");
    }
  }
  return 0;
}

void op2_kernel_text_for_c(const op2_loop_desc *loop, const char *src, int rewrite_std,
                           op2_buf *out) {
  /* C++ that the kernel does not use left out (cxx_prune.c), C++ that has a C form lowered
   * (cxx_lower.c), then the C forms above: rewrites of one reading of the text, written once */
  op2_toks T = {0};
  op2_buf joined = {0};
  op2_c_macros macros = {0};
  int failed =
      rewrite_std && loop ? tokens_pruned(src, loop->name, &T, &joined) : op2_tokenize(&T, src);
  if (!failed && rewrite_std) op2_cxx_lower_toks(&T, loop ? loop->name : NULL);
  if (!failed) op2_c_macros_read(joined.data ? joined.data : src, &macros);
  failed = failed || macros.failed || c_forms(&T, loop, rewrite_std, &macros);
  if (!failed) op2_toks_render(&T, out);
  /* the header's guard (and any conditional around the kernel) closed after the kernel */
  for (int n = failed ? 0 : unclosed_conditionals(&T); n > 0; n--) op2_buf_printf(out, "\n#endif");
  if (failed) out->failed = 1; /* the caller reports it as out of memory */
  op2_c_macros_free(&macros);
  op2_toks_free(&T);
  op2_buf_free(&joined);
}
