/* SPDX-License-Identifier: BSD-3-Clause */
/* A kernel defined in the calling source file itself (OP2's min sample defines its kernel in
 * the main .cpp): the function definition is taken from that file as it is, under a #line that
 * names the file and line, when no header name.h holds it. A plain scan: comments, string and
 * character literals and preprocessor lines are skipped, and only a definition at file scope
 * (brace depth 0) whose name is followed by a parameter list and a body counts. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/c_lexis.h"
#include "runtime/kernel_source.h"

/* Past whitespace and comments. */
static const char *skip_blank(const char *p) {
  for (;;) {
    while (isspace((unsigned char)*p)) p++;
    if (p[0] == '/' && (p[1] == '/' || p[1] == '*'))
      p = op2_c_skip_literal(p);
    else
      return p;
  }
}

/* Past the balanced `open`...`close` group starting at p (*p == open); NULL if unbalanced. */
static const char *skip_group(const char *p, char open, char close) {
  int depth = 0;
  while (*p) {
    const char *q = op2_c_skip_literal(p);
    if (q != p) {
      p = q;
      continue;
    }
    if (*p == open) depth++;
    if (*p == close && --depth == 0) return p + 1;
    p++;
  }
  return NULL;
}

int op2_kernel_definition(const char *text, const char *name, const char **begin,
                          const char **end) {
  size_t n = strlen(name);
  const char *decl_start = text; /* after the last ';', '}' or preprocessor line at depth 0 */
  int depth = 0, line_start = 1;
  for (const char *p = text; *p;) {
    if (line_start && *skip_blank(p) == '#' && depth == 0) { /* a preprocessor line */
      p = skip_blank(p);
      while (*p && !(*p == '\n' && p[-1] != '\\')) p++;
      decl_start = p;
      continue;
    }
    line_start = *p == '\n';
    const char *q = op2_c_skip_literal(p);
    if (q != p) {
      p = q;
      continue;
    }
    if (*p == '{') depth++;
    if (*p == '}' || *p == ';') {
      if (*p == '}' && depth > 0) depth--;
      if (depth == 0) decl_start = p + 1;
    }
    if (depth == 0 && strncmp(p, name, n) == 0 && !op2_ident_char(p[n]) &&
        (p == text || !op2_ident_char(p[-1]))) {
      const char *r = skip_blank(p + n);
      const char *after = *r == '(' ? skip_group(r, '(', ')') : NULL;
      if (after) after = skip_blank(after);
      const char *e = after && *after == '{' ? skip_group(after, '{', '}') : NULL;
      if (e) {
        *begin = skip_blank(decl_start);
        *end = e;
        return 1;
      }
    }
    p++;
  }
  return 0;
}

char *op2_kernel_from_caller(const char *text, const char *caller_file, const char *name) {
  const char *begin, *end;
  if (!op2_kernel_definition(text, name, &begin, &end)) return NULL;
  int line = 1;
  for (const char *c = text; c < begin; c++) line += *c == '\n';
  size_t len = (size_t)(end - begin), cap = len + strlen(caller_file) + 64;
  char *out = malloc(cap);
  if (out) snprintf(out, cap, "#line %d \"%s\"\n%.*s\n", line, caller_file, (int)len, begin);
  return out;
}
