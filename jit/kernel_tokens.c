/* SPDX-License-Identifier: BSD-3-Clause */
/* The tokens of a kernel text (kernel_tokens.h). */
#include "kernel_tokens.h"

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

/* The length of the punctuator at p: C's of 2 and 3 characters, `::` and `##`, else 1. */
static int punct_len(const char *p) {
  char a = p[0], b = p[1];
  if (a == '.' && b == '.' && p[2] == '.') return 3;
  if ((a == '<' || a == '>') && b == a) return p[2] == '=' ? 3 : 2; /* << >> <<= >>= */
  if (b == '=' && strchr("<>=!+-*/%&|^", a)) return 2;              /* <= ... ^= */
  if (b == a && strchr("&|+-:#", a)) return 2;                      /* && || ++ -- :: ## */
  return a == '-' && b == '>' ? 2 : 1;
}

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
      T->odd |= !closed; /* unterminated */
    } else if ((*p >= '0' && *p <= '9') || (*p == '.' && p[1] >= '0' && p[1] <= '9')) {
      while (op2_ident_char(*q) || *q == '.' || ((*q == '+' || *q == '-') && strchr("eEpP", q[-1])))
        q++;
      kind = T_NUM;
    } else if (op2_ident_char(*p)) {
      while (op2_ident_char(*q)) q++;
      T->odd |= *q == '"' || *q == '\''; /* L"", u8"", R"(...)" */
      kind = T_IDENT;
    } else {
      int len = punct_len(p);
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

void op2_tok_add_text(char **s, const char *text, int at_front) {
  size_t old = *s ? strlen(*s) : 0, n = strlen(text);
  char *r = malloc(old + n + 1);
  if (!r) { /* the caller sees NULL */
    free(*s);
    *s = NULL;
    return;
  }
  if (at_front) {
    memcpy(r, text, n);
    if (old) memcpy(r + n, *s, old);
  } else {
    if (old) memcpy(r, *s, old);
    memcpy(r + old, text, n);
  }
  r[old + n] = 0;
  free(*s);
  *s = r;
}

static void render_blank(const op2_tok *t, op2_buf *out) {
  for (int k = 0; k < t->len; k++)
    if (t->p[k] == '\n' || t->blank == OP2_TOK_SPACES)
      op2_buf_putc(out, t->p[k] == '\n' ? '\n' : ' ');
}

/* Tokens b..e; a reference argument `a` to a parameter `T &` (cxx_lower.c) as
 * `op2_cxx_ref(T, a)` (the prelude's: `_Generic((a), T: &(a))` in C, `&(a)` in C++). */
static void render(const op2_toks *T, int b, int e, int nowrap, op2_buf *out) {
  for (int i = b; i <= e; i++) {
    const op2_tok *t = &T->t[i];
    if (t->wrap_end && i != nowrap) {
      op2_buf_printf(out, "op2_cxx_ref(%s, ", t->wrap_type);
      render(T, i, t->wrap_end, i, out);
      op2_buf_append(out, ")", 1);
      i = t->wrap_end;
      continue;
    }
    if (t->note) op2_buf_append(out, t->note, strlen(t->note));
    if (t->pre) op2_buf_append(out, t->pre, strlen(t->pre));
    if (t->blank)
      render_blank(t, out);
    else if (t->repl)
      op2_buf_append(out, t->repl, strlen(t->repl));
    else
      op2_buf_append(out, t->p, (size_t)t->len);
    if (t->post) op2_buf_append(out, t->post, strlen(t->post));
  }
}

void op2_toks_render(const op2_toks *T, op2_buf *out) {
  render(T, 0, T->n - 1, -1, out);
  if (!out->data) op2_buf_append(out, "", 0);
}

void op2_toks_compact(op2_toks *T) {
  int n = 0;
  for (int i = 0; i < T->n; i++) {
    op2_tok *t = &T->t[i], *last = n ? &T->t[n - 1] : NULL;
    if (last && last->blank == OP2_TOK_LINES && t->blank == OP2_TOK_LINES && !t->note && !t->pre &&
        !t->post && !t->repl && !t->wrap_end && !last->post)
      last->len = (int)(t->p + t->len - last->p); /* tokens are contiguous in the text */
    else
      T->t[n++] = *t;
  }
  T->n = n;
}

void op2_toks_unrewrite(op2_toks *T) {
  for (int i = 0; i < T->n; i++) {
    op2_tok *t = &T->t[i];
    free(t->pre), free(t->post), free(t->wrap_type);
    t->pre = t->post = t->wrap_type = NULL;
    t->repl = NULL, t->wrap_end = 0;
  }
}

void op2_toks_free(op2_toks *T) {
  op2_toks_unrewrite(T);
  free(T->t);
  *T = (op2_toks){0};
}
