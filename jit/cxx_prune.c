/* SPDX-License-Identifier: BSD-3-Clause */
/* A C++ kernel text without what its kernel does not reach (cxx_prune.h).
 *
 * The text is cut into file-scope items: a declaration up to its ';', a function up to its
 * body's '}', a namespace up to its '}' (the braces of `extern "C" {` are transparent). Each
 * item declares names: the identifiers at its own top level that a declarator ends with (followed
 * by '(', ';', ',', '=', '[', '{' or ':') and an enum's constants. Starting from the kernel's name
 * and every identifier of the preprocessor lines between items (a macro may name anything), an
 * item is kept when it declares a name reached, and all its identifiers are then reached too.
 * Kept whatever it declares, because its effect is not through a name: an item declaring none,
 * `using` (it changes how other names are found), an `operator` (called without its name) and a
 * file-scope invocation of the text's own macro (it may expand to declarations). Identifiers
 * are compared as words, whatever they name, so an item is dropped only when no kept part
 * mentions any name it declares. */
#include "cxx_prune.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "kernel_tokens.h"

typedef struct item {
  int b, e;   /* first and last token */
  int keep;   /* 1 kept, 0 not (yet) */
  int always; /* kept whatever it declares */
  int nd, d0; /* its declared names: names[d0 .. d0 + nd) */
} item;

/* A set of words (open addressing; the words point into the text). */
typedef struct words {
  const char **p;
  int *len, cap, n;
} words;

static uint64_t word_hash(const char *p, int len) {
  return XXH3_64bits(p, (size_t)len);
}

static int words_has(const words *w, const char *p, int len) {
  if (!w->cap) return 0;
  for (size_t i = word_hash(p, len) & (size_t)(w->cap - 1);; i = (i + 1) & (size_t)(w->cap - 1)) {
    if (!w->p[i]) return 0;
    if (w->len[i] == len && memcmp(w->p[i], p, (size_t)len) == 0) return 1;
  }
}

/* -1: out of memory */
static int words_add(words *w, const char *p, int len) {
  if (words_has(w, p, len)) return 0;
  if (2 * (w->n + 1) > w->cap) {
    words bigger = {calloc((size_t)(w->cap ? 2 * w->cap : 1024), sizeof(char *)),
                    calloc((size_t)(w->cap ? 2 * w->cap : 1024), sizeof(int)),
                    w->cap ? 2 * w->cap : 1024, 0};
    if (!bigger.p || !bigger.len) {
      free(bigger.p), free(bigger.len);
      return -1;
    }
    for (int i = 0; i < w->cap; i++)
      if (w->p[i]) words_add(&bigger, w->p[i], w->len[i]);
    free(w->p), free(w->len);
    *w = bigger;
  }
  size_t i = word_hash(p, len) & (size_t)(w->cap - 1);
  while (w->p[i]) i = (i + 1) & (size_t)(w->cap - 1);
  w->p[i] = p, w->len[i] = len, w->n++;
  return 0;
}

static int directive_is(const op2_tok *t, const char *name);

/* Every identifier of a preprocessor line (a macro's name and body, a condition); not a file's
 * name (#line, #include). */
static int add_pp_words(words *w, const op2_tok *t) {
  if (directive_is(t, "line") || directive_is(t, "include")) return 0;
  for (const char *p = t->p, *e = t->p + t->len; p < e;) {
    if (!op2_ident_char(*p)) {
      p++;
      continue;
    }
    const char *q = p;
    while (q < e && op2_ident_char(*q)) q++;
    if ((q - p == 13 && strncmp(p, "__has_include", 13) == 0) ||
        (q - p == 18 && strncmp(p, "__has_include_next", 18) == 0)) {
      q = memchr(q, ')', (size_t)(e - q)); /* a header's name, not a name of the program */
      if (!q) return 0;
    } else if (words_add(w, p, (int)(q - p))) {
      return -1;
    }
    p = q;
  }
  return 0;
}

/* The directive's name (`define`, `include`...) of a preprocessor token, and its length. */
static const char *directive(const op2_tok *t, int *len) {
  const char *p = t->p + 1, *e = t->p + t->len;
  while (p < e && (*p == ' ' || *p == '\t')) p++;
  const char *q = p;
  while (q < e && op2_ident_char(*q)) q++;
  *len = (int)(q - p);
  return p;
}

static int directive_is(const op2_tok *t, const char *name) {
  int len;
  const char *d = directive(t, &len);
  return len == (int)strlen(name) && strncmp(d, name, (size_t)len) == 0;
}

/* `#include <name>` of a C++ standard header (no '.' in its name) without a C form. */
static int cxx_header(const op2_tok *t, op2_header_has_c_form has_c_form) {
  if (t->kind != T_PP || !directive_is(t, "include")) return 0;
  const char *lt = memchr(t->p, '<', (size_t)t->len);
  const char *gt = lt ? memchr(lt, '>', (size_t)(t->p + t->len - lt)) : NULL;
  if (!gt || gt - lt < 2) return 0;
  size_t len = (size_t)(gt - lt - 1);
  return !memchr(lt + 1, '.', len) && !memchr(lt + 1, '/', len) && !has_c_form(lt + 1, len);
}

/* The macros the text defines: their names, and which take arguments. */
static int collect_macros(const op2_toks *T, words *object_like, words *function_like) {
  for (int i = 0; i < T->n; i++) {
    const op2_tok *t = &T->t[i];
    if (t->kind != T_PP || !directive_is(t, "define")) continue;
    int len;
    const char *d = directive(t, &len), *p = d + len, *e = t->p + t->len;
    while (p < e && (*p == ' ' || *p == '\t')) p++;
    const char *q = p;
    while (q < e && op2_ident_char(*q)) q++;
    if (q == p) continue;
    if (words_add(q < e && *q == '(' ? function_like : object_like, p, (int)(q - p))) return -1;
  }
  return 0;
}

static int is_cxx(const op2_tok *t) {
  return op2_tok_cxx_only(t) || (t->kind == T_PUNCT && op2_tok_is(t, "::"));
}

/* C keywords and reserved names: never a declared name. */
static int keyword(const op2_tok *t) {
  static const char *const kw[] = {
      "struct", "union",  "enum", "extern", "static",   "inline", "const",   "volatile", "typedef",
      "sizeof", "return", "if",   "while",  "for",      "switch", "void",    "int",      "double",
      "float",  "char",   "long", "short",  "unsigned", "signed", "register"};
  if (t->len >= 2 && t->p[0] == '_' && t->p[1] == '_') return 1;
  for (size_t i = 0; i < sizeof kw / sizeof *kw; i++)
    if (op2_tok_is_word(t, kw[i])) return 1;
  return 0;
}

static int ends_declarator(const op2_tok *t) {
  static const char *const after[] = {"(", ";", ",", "=", "[", "{", ":"};
  for (size_t i = 0; t->kind == T_PUNCT && i < sizeof after / sizeof *after; i++)
    if (op2_tok_is(t, after[i])) return 1;
  return 0;
}

typedef struct prune {
  op2_toks *T;
  item *it;
  int nit, cap;
  const op2_tok **names; /* declared names of all items */
  int nnames, names_cap;
  words reached, object_macros, function_macros;
} prune;

static int new_item(prune *P, int b, int e, int always) {
  if (P->nit == P->cap) {
    int cap = P->cap ? 2 * P->cap : 64;
    item *it = realloc(P->it, (size_t)cap * sizeof *it);
    if (!it) return -1;
    P->it = it, P->cap = cap;
  }
  P->it[P->nit++] = (item){.b = b, .e = e, .always = always};
  return 0;
}

static int add_name(prune *P, item *it, const op2_tok *t) {
  if (P->nnames == P->names_cap) {
    int cap = P->names_cap ? 2 * P->names_cap : 256;
    const op2_tok **n = realloc(P->names, (size_t)cap * sizeof *n);
    if (!n) return -1;
    P->names = n, P->names_cap = cap;
  }
  P->names[P->nnames++] = t;
  it->nd++;
  return 0;
}

/* The token before i that is not space or a comment (a literal counts, unlike prev_code). */
static int before(const op2_toks *T, int i) {
  for (i--; i >= 0; i--)
    if (T->t[i].kind != T_SPACE && T->t[i].kind != T_COMMENT) return i;
  return -1;
}

/* The file-scope items. -1 when the braces do not balance or memory ran out. */
static int split(prune *P) {
  const op2_toks *T = P->T;
  int depth = 0, linkage = 0, b = -1, body = 0;
  for (int i = 0; i < T->n; i++) {
    const op2_tok *t = &T->t[i];
    if (t->kind <= T_PP) continue;
    if (b < 0) b = i, body = op2_tok_is_word(t, "namespace");
    if (t->kind != T_PUNCT) continue;
    if (op2_tok_is(t, "{") && depth == 0) {
      int lit = before(T, i), ext = lit >= 0 ? before(T, lit) : -1;
      if (lit >= 0 && T->t[lit].kind == T_LIT && ext >= b &&
          op2_tok_is_word(&T->t[ext], "extern")) { /* extern "C" {: its contents stay items */
        linkage++;
        if (new_item(P, b, i, 1)) return -1;
        b = -1;
        continue;
      }
      int prev = op2_tok_prev_code(T, i);
      body |= prev >= 0 && op2_tok_is(&T->t[prev], ")");
    }
    if (op2_tok_is(t, "}") && depth == 0) {
      if (!linkage || b != i) return -1;
      linkage--;
      if (new_item(P, i, i, 1)) return -1;
      b = -1;
      continue;
    }
    if (op2_tok_is(t, "(") || op2_tok_is(t, "[") || op2_tok_is(t, "{")) depth++;
    if (op2_tok_is(t, ")") || op2_tok_is(t, "]") || op2_tok_is(t, "}")) {
      if (--depth < 0) return -1;
      if (depth == 0 && body && op2_tok_is(t, "}")) {
        if (new_item(P, b, i, 0)) return -1;
        b = -1;
      }
    }
    if (depth == 0 && b >= 0 && op2_tok_is(t, ";")) {
      if (new_item(P, b, i, 0)) return -1;
      b = -1;
    }
  }
  return b >= 0 || depth || linkage ? -1 : 0;
}

/* An item's declared names, and whether it is kept whatever it declares. */
static int declare(prune *P, item *it) {
  const op2_toks *T = P->T;
  int depth = 0, is_enum = 0;
  it->d0 = P->nnames;
  for (int j = it->b; j <= it->e; j = op2_tok_next_code(T, j)) {
    const op2_tok *t = &T->t[j];
    if (t->kind == T_PUNCT) {
      depth += op2_tok_is(t, "(") || op2_tok_is(t, "[") || op2_tok_is(t, "{");
      depth -= op2_tok_is(t, ")") || op2_tok_is(t, "]") || op2_tok_is(t, "}");
      continue;
    }
    if (t->kind != T_IDENT) continue;
    if (op2_tok_is_word(t, "operator") || (j == it->b && op2_tok_is_word(t, "using")))
      it->always = 1;
    if (depth == 0 && op2_tok_is_word(t, "enum")) is_enum = 1;
    int next = op2_tok_next_code(T, j);
    const op2_tok *n = next < T->n ? &T->t[next] : NULL;
    if (depth == 0 && n && op2_tok_is(n, "(") && words_has(&P->function_macros, t->p, t->len))
      it->always = 1; /* the text's macro invoked at file scope */
    if (depth == 0 && n && n->kind != T_IDENT && words_has(&P->object_macros, t->p, t->len))
      it->always = 1;
    int prev = op2_tok_prev_code(T, j);
    if (prev >= 0 && op2_tok_is(&T->t[prev], "::"))
      continue; /* a qualified name is declared elsewhere (and is C++: kept, it stops the pruning)
                 */
    int enumerator = is_enum && depth == 1 && n &&
                     (op2_tok_is(n, ",") || op2_tok_is(n, "=") || op2_tok_is(n, "}"));
    if (((depth == 0 && n && ends_declarator(n)) || enumerator) && !keyword(t) &&
        add_name(P, it, t))
      return -1;
  }
  if (!it->nd) it->always = 1;
  return 0;
}

static int reach_item(prune *P, item *it) {
  it->keep = 1;
  for (int j = it->b; j <= it->e; j++) {
    const op2_tok *t = &P->T->t[j];
    if (t->kind == T_IDENT && words_add(&P->reached, t->p, t->len)) return -1;
    if (t->kind == T_PP && add_pp_words(&P->reached, t)) return -1;
  }
  return 0;
}

/* Items kept: from the kernel's name and the preprocessor lines between items, to a fixed
 * point. 0 when the kernel is not declared by any item. */
static int reach(prune *P, const char *kernel) {
  int at = 0, kernel_found = 0;
  for (int i = 0; i < P->nit; i++) {
    for (int j = at; j < P->it[i].b; j++)
      if (P->T->t[j].kind == T_PP && add_pp_words(&P->reached, &P->T->t[j])) return -1;
    at = P->it[i].e + 1;
    for (int k = 0; k < P->it[i].nd; k++)
      kernel_found |= op2_tok_is(P->names[P->it[i].d0 + k], kernel);
  }
  for (int j = at; j < P->T->n; j++)
    if (P->T->t[j].kind == T_PP && add_pp_words(&P->reached, &P->T->t[j])) return -1;
  if (!kernel_found || words_add(&P->reached, kernel, (int)strlen(kernel))) return 0;
  for (int changed = 1; changed;) {
    changed = 0;
    for (int i = 0; i < P->nit; i++) {
      item *it = &P->it[i];
      int hit = it->always;
      for (int k = 0; k < it->nd && !hit && !it->keep; k++)
        hit = words_has(&P->reached, P->names[it->d0 + k]->p, P->names[it->d0 + k]->len);
      if (hit && !it->keep) {
        if (reach_item(P, it)) return -1;
        changed = 1;
      }
    }
  }
  return 1;
}

/* A preprocessor line inside a left-out item stays when it is a condition or a macro (its
 * #if and #endif may lie in different items; a macro holds for the rest of the text). */
static int pp_stays(const op2_tok *t) {
  static const char *const stay[] = {"if",    "ifdef",  "ifndef", "elif", "else",
                                     "endif", "define", "undef",  "line"};
  for (size_t i = 0; i < sizeof stay / sizeof *stay; i++)
    if (directive_is(t, stay[i])) return 1;
  return 0;
}

/* A left-out part is written as its newlines only, so that lines keep their numbers and the
 * later passes (which see it as space) do not read its bytes again. An item starts at a code
 * token and ends at ';' or '}', so no two kept words join. */
static void leave_out(const prune *P, op2_header_has_c_form has_c_form) {
  int i = 0;
  for (int j = 0; j < P->T->n; j++) {
    op2_tok *t = &P->T->t[j];
    while (i < P->nit && P->it[i].e < j) i++;
    int dropped = i < P->nit && P->it[i].b <= j && !P->it[i].keep;
    if (dropped && j == P->it[i].b) t->note = "/* op2: not used by the kernel */";
    if (cxx_header(t, has_c_form) || (dropped && (t->kind != T_PP || !pp_stays(t))))
      t->blank = OP2_TOK_LINES, t->kind = T_SPACE;
  }
}

int op2_cxx_prune_toks(op2_toks *T, const char *kernel, op2_header_has_c_form has_c_form) {
  prune P = {.T = T};
  int result = 0, any_cxx = 0;
  if (!kernel || T->odd) goto done;
  for (int j = 0; j < T->n && !any_cxx; j++)
    any_cxx = is_cxx(&T->t[j]) || cxx_header(&T->t[j], has_c_form);
  if (!any_cxx || collect_macros(T, &P.object_macros, &P.function_macros) || split(&P)) goto done;
  for (int i = 0; i < P.nit; i++)
    if (declare(&P, &P.it[i])) goto done;
  if (reach(&P, kernel) != 1) goto done;
  /* what the kernel uses must be C now; then the left-out parts are blanked */
  for (int i = 0; i < P.nit; i++)
    for (int j = P.it[i].b; P.it[i].keep && j <= P.it[i].e; j++)
      if (is_cxx(&T->t[j])) goto done;
  leave_out(&P, has_c_form);
  op2_toks_compact(T);
  result = 1;
done:
  free(P.it), free(P.names);
  free(P.reached.p), free(P.reached.len);
  free(P.object_macros.p), free(P.object_macros.len);
  free(P.function_macros.p), free(P.function_macros.len);
  return result;
}
