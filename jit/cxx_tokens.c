/* SPDX-License-Identifier: BSD-3-Clause */
/* The tokens of a kernel text (cxx_tokens.h). */
#include "cxx_tokens.h"

#include <stdlib.h>
#include <string.h>

int op2_tok_is(const op2_tok *t, const char *s) {
  if (t->len < 1 || t->p[0] != s[0]) return 0; /* most comparisons end here: no strlen */
  return (int)strlen(s) == t->len && memcmp(t->p, s, (size_t)t->len) == 0;
}

int op2_tok_is_word(const op2_tok *t, const char *s) {
  return t->kind == T_IDENT && op2_tok_is(t, s);
}

/* C++ words that no C text may hold. `auto` is C++'s deduced type, which C (and TinyCC,
 * silently) reads as an int. */
static const char *const cxx_only[] = {
    "template", "typename", "class",    "namespace",    "operator",         "this",
    "new",      "delete",   "virtual",  "auto",         "decltype",         "constexpr",
    "using",    "friend",   "mutable",  "static_cast",  "reinterpret_cast", "const_cast",
    "throw",    "try",      "catch",    "dynamic_cast", "explicit",         "nullptr",
    "typeid",   "alignof",  "noexcept", "static_assert"};

int op2_tok_cxx_only(const op2_tok *t) {
  if (t->kind != T_IDENT || t->len < 3 || t->len > 16 || t->p[0] < 'a' || t->p[0] > 'v')
    return 0; /* every word of the list: 3 to 16 lowercase letters, a to v first */
  for (size_t i = 0; i < sizeof cxx_only / sizeof *cxx_only; i++)
    if (cxx_only[i][0] == t->p[0] && op2_tok_is(t, cxx_only[i])) return 1;
  return 0;
}

static int space(char c) {
  return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static int push(op2_toks *T, const char *p, int len, op2_tkind kind) {
  if (T->n == T->cap) {
    int cap = T->cap ? 2 * T->cap : 256;
    op2_tok *t = realloc(T->t, (size_t)cap * sizeof *t);
    if (!t) return -1;
    T->t = t, T->cap = cap;
  }
  T->t[T->n++] = (op2_tok){.p = p, .len = len, .kind = kind};
  return 0;
}

static const char *const punct3[] = {"...", "<<=", ">>="};
static const char *const punct2[] = {"&&", "||", "->", "::", "++", "--", "<<",
                                     ">>", "<=", ">=", "==", "!=", "+=", "-=",
                                     "*=", "/=", "%=", "&=", "|=", "^=", "##"};

int op2_tokenize(op2_toks *T, const char *src) {
  int line_start = 1;
  for (const char *p = src; *p;) {
    const char *q = p;
    op2_tkind kind;
    if (space(*p)) {
      while (space(*q)) {
        if (*q == '\n') line_start = 1;
        q++;
      }
      if (push(T, p, (int)(q - p), T_SPACE)) return -1;
      p = q;
      continue;
    }
    if (p[0] == '/' && (p[1] == '/' || p[1] == '*')) {
      q = op2_c_skip_literal(p), kind = T_COMMENT;
    } else if (*p == '#' && line_start) { /* the directive, with its continuation lines */
      while (*q && !(*q == '\n' && q[-1] != '\\')) q++;
      kind = T_PP;
    } else if (*p == '"' || *p == '\'') {
      int closed;
      q = op2_c_literal_end(p, &closed), kind = T_LIT;
      if (!closed) return -1; /* unterminated: not understood */
    } else if ((*p >= '0' && *p <= '9') || (*p == '.' && p[1] >= '0' && p[1] <= '9')) {
      while (op2_ident_char(*q) || *q == '.' || ((*q == '+' || *q == '-') && strchr("eEpP", q[-1])))
        q++;
      kind = T_NUM;
    } else if (op2_ident_char(*p)) {
      while (op2_ident_char(*q)) q++;
      if (*q == '"' || *q == '\'') return -1; /* L"", u8"", R"(...)": not understood */
      kind = T_IDENT;
    } else {
      size_t len = 1;
      for (size_t i = 0; i < sizeof punct3 / sizeof *punct3 && len == 1; i++)
        if (strncmp(p, punct3[i], 3) == 0) len = 3;
      for (size_t i = 0; i < sizeof punct2 / sizeof *punct2 && len == 1; i++)
        if (strncmp(p, punct2[i], 2) == 0) len = 2;
      q = p + len, kind = T_PUNCT;
    }
    line_start = 0;
    if (push(T, p, (int)(q - p), kind)) return -1;
    p = q;
  }
  return 0;
}

int op2_tok_next_code(const op2_toks *T, int i) {
  for (i++; i < T->n; i++)
    if (T->t[i].kind > T_PP) return i;
  return T->n;
}

int op2_tok_prev_code(const op2_toks *T, int i) {
  for (i--; i >= 0; i--)
    if (T->t[i].kind > T_PP) return i;
  return -1;
}

int op2_tok_closing(const op2_toks *T, int i, int *pp) {
  int depth = 0;
  for (int j = i; j < T->n; j++) {
    const op2_tok *t = &T->t[j];
    if (t->kind == T_PP && pp) *pp = 1;
    if (t->kind != T_PUNCT) continue;
    if (op2_tok_is(t, "(") || op2_tok_is(t, "[") || op2_tok_is(t, "{")) depth++;
    if ((op2_tok_is(t, ")") || op2_tok_is(t, "]") || op2_tok_is(t, "}")) && --depth == 0) return j;
  }
  return -1;
}
