/* SPDX-License-Identifier: BSD-3-Clause */
/* A kernel text as tokens: the one reading of the text that the passes making it the generated
 * file's C share (kernel_text.c: cxx_prune.c leaves out what the kernel does not reach,
 * cxx_lower.c lowers C++ habits, then kernel_text.c's C forms). Each token points into the text;
 * a pass rewrites by annotating tokens (what replaces a token, what goes before or after it, a
 * token left blank), so the text is read once and written once (op2_toks_render), and every line
 * stays where it was. Preprocessor lines are one token each (continuations included). */
#ifndef OP2_JIT_KERNEL_TOKENS_H
#define OP2_JIT_KERNEL_TOKENS_H

#include "base/base.h"
#include "base/c_lexis.h"

typedef enum { T_SPACE, T_COMMENT, T_LIT, T_PP, T_IDENT, T_NUM, T_PUNCT } op2_tkind;

/* How a left-out token is written: its newlines only, or a space for every other character. */
typedef enum { OP2_TOK_KEPT, OP2_TOK_LINES, OP2_TOK_SPACES } op2_tblank;

typedef struct op2_tok {
  const char *p;
  int len;
  op2_tkind kind;   /* a left-out token is T_SPACE to the passes after the one leaving it out */
  op2_tblank blank; /* written blank */
  const char *note; /* written before it all (a static string or NULL) */
  const char *repl; /* replaces the token's text (static string or NULL) */
  char *pre, *post; /* added before / after (malloc'd or NULL) */
  int wrap_end;     /* cxx_lower.c: a reference argument from here to that token (0: none) */
  char *wrap_type;  /* (malloc'd) */
} op2_tok;

typedef struct op2_toks {
  op2_tok *t;
  int n, cap;
  int odd; /* a part not understood (an unterminated literal, a prefixed string): the passes that
            * must understand every token (pruning, lowering) leave the text as it is */
} op2_toks;

/* `src` as tokens appended to T; -1 only when memory ran out. */
int op2_tokenize(op2_toks *T, const char *src);
/* The tokens as their annotations say, appended to `out`. */
void op2_toks_render(const op2_toks *T, op2_buf *out);
/* Each run of tokens left blank to their newlines (OP2_TOK_LINES), no rewrite among them, made
 * one token: the passes after the one leaving them out step over it at once. Token indices
 * change: it runs before any pass that records one (cxx_lower.c's wraps). */
void op2_toks_compact(op2_toks *T);
/* Every token's rewrites (repl, pre, post, wrap) taken back, what was left out left so: for
 * cxx_lower.c, which refuses all or nothing and runs right after the pass that leaves out. */
void op2_toks_unrewrite(op2_toks *T);
void op2_toks_free(op2_toks *T);
/* `text` added before (at_front) or after *s, which is malloc'd or NULL; NULL when memory ran
 * out (the old text freed). */
void op2_tok_add_text(char **s, const char *text, int at_front);

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
