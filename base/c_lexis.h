/* SPDX-License-Identifier: BSD-3-Clause */
/* The lexical elements of C (and C++) text that every reader of a kernel's text must agree on:
 * what is a comment, a string or character literal, an identifier's character, a preprocessor
 * directive, an object-like macro. One definition
 * below jit/ and runtime/, so that the passes over a kernel text cannot disagree on where its
 * code is (two of them did, on a string running into a newline). */
#ifndef OP2_BASE_C_LEXIS_H
#define OP2_BASE_C_LEXIS_H

#include <stddef.h>

/* Whether c may be part of an identifier: ASCII letters, digits and '_' (no locale lookup per
 * byte). */
static inline int op2_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Past the comment, string or character literal starting at p; p when none starts there. A
 * literal ends after its closing quote or, unterminated, at the end of its line, as C reads it
 * (a backslash escapes the next character, a newline too); a line comment before its newline; a
 * block comment after its end, or at the text's end. */
const char *op2_c_skip_literal(const char *p);
/* The same, and *closed: 0 for a literal or block comment that does not close (what follows is
 * then not understood), 1 otherwise. */
const char *op2_c_literal_end(const char *p, int *closed);

/* A copy of `src` with comments and the contents of literals (their quotes kept) blanked to
 * spaces, newlines kept: the same length and lines, so that every offset of code is the same in
 * both. NULL when out of memory. */
char *op2_c_blank(const char *src);

/* At p, the start of a line: when it is a preprocessor directive, its name (*name, *len: `define`,
 * `ifdef`, ...) and the directive's end (its continuation lines included); NULL otherwise. */
const char *op2_c_directive(const char *p, const char **name, size_t *len);

/* The object-like macros a text defines and undefines, in text order (every definition: a
 * conditional one too). A definition's replacement is [body, end); an #undef has body NULL. */
typedef struct op2_c_macro {
  const char *name, *body, *end;
  size_t len;
} op2_c_macro;
typedef struct op2_c_macros {
  op2_c_macro *def;
  int n, cap;
  int failed; /* out of memory: some are missing */
} op2_c_macros;
void op2_c_macros_read(const char *src, op2_c_macros *macros);
void op2_c_macros_free(op2_c_macros *macros);

#endif
