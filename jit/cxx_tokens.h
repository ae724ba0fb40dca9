/* SPDX-License-Identifier: BSD-3-Clause */
/* A kernel text as tokens, for the passes that make OP2's C++ kernel text C (cxx_lower.c,
 * cxx_prune.c): each token points into the text, so the passes rewrite by token and keep every
 * line where it was. Preprocessor lines are one token each (continuations included). */
#ifndef OP2_JIT_CXX_TOKENS_H
#define OP2_JIT_CXX_TOKENS_H

#include "base/c_lexis.h"

typedef enum { T_SPACE, T_COMMENT, T_LIT, T_PP, T_IDENT, T_NUM, T_PUNCT } op2_tkind;

typedef struct op2_tok {
  const char *p;
  int len;
  op2_tkind kind;
  const char *repl; /* replaces the token's text (static string or NULL) */
  char *pre, *post; /* added before / after (malloc'd or NULL) */
  int wrap_end;     /* cxx_lower.c: a reference argument from here to that token (0: none) */
  const char *wrap_type;
} op2_tok;

typedef struct op2_toks {
  op2_tok *t;
  int n, cap;
} op2_toks;

/* `src` as tokens appended to T. -1 when a part is not understood (an unterminated literal,
 * a prefixed string) or memory ran out: the caller leaves the text as it is. */
int op2_tokenize(op2_toks *T, const char *src);

/* The next / previous token that is code (not space, comment or preprocessor line); n or -1. */
int op2_tok_next_code(const op2_toks *T, int i);
int op2_tok_prev_code(const op2_toks *T, int i);
/* The token closing the group opened at i ('(', '[' or '{'); -1 when unbalanced. *pp is set
 * when a preprocessor line lies inside (pp may be NULL). */
int op2_tok_closing(const op2_toks *T, int i, int *pp);

int op2_tok_is(const op2_tok *t, const char *s);
int op2_tok_is_word(const op2_tok *t, const char *s);
/* A C++ word that C has no form of (`template`, `namespace`, `auto`...). */
int op2_tok_cxx_only(const op2_tok *t);

#endif
