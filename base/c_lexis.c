/* SPDX-License-Identifier: BSD-3-Clause */
/* The lexical elements of C text (c_lexis.h). */
#include "base/c_lexis.h"

#include <stdlib.h>
#include <string.h>

const char *op2_c_literal_end(const char *p, int *closed) {
  *closed = 1;
  if (p[0] == '/' && p[1] == '/') return p + strcspn(p, "\n");
  if (p[0] == '/' && p[1] == '*') {
    const char *e = strstr(p + 2, "*/");
    *closed = e != NULL;
    return e ? e + 2 : p + strlen(p);
  }
  if (*p == '"' || *p == '\'') {
    char quote = *p++;
    while (*p && *p != quote && *p != '\n') p += p[0] == '\\' && p[1] ? 2 : 1;
    *closed = *p == quote;
    return *closed ? p + 1 : p;
  }
  return p;
}

const char *op2_c_skip_literal(const char *p) {
  int closed;
  return op2_c_literal_end(p, &closed);
}

char *op2_c_blank(const char *src) {
  size_t n = strlen(src);
  char *out = malloc(n + 1);
  if (!out) return NULL;
  memcpy(out, src, n + 1);
  for (char *p = out + strcspn(out, "/\"'"); *p; p += strcspn(p, "/\"'")) {
    int closed;
    char *end = (char *)op2_c_literal_end(p, &closed);
    if (end == p) {
      p++; /* a '/' that starts no comment */
      continue;
    }
    int literal = *p == '"' || *p == '\'';
    char *from = literal ? p + 1 : p, *to = literal && closed ? end - 1 : end;
    for (char *c = from; c < to; c++)
      if (*c != '\n') *c = ' ';
    p = end;
  }
  return out;
}

const char *op2_c_directive(const char *p, const char **name, size_t *len) {
  while (*p == ' ' || *p == '\t') p++;
  if (*p != '#') return NULL;
  const char *d = p + 1;
  while (*d == ' ' || *d == '\t') d++;
  const char *e = d;
  while (op2_ident_char(*e)) e++;
  *name = d, *len = (size_t)(e - d);
  while (*e && !(*e == '\n' && e[-1] != '\\')) e++;
  return e;
}

static void add_macro(op2_c_macros *t, op2_c_macro m) {
  if (t->n == t->cap) {
    int cap = t->cap ? 2 * t->cap : 64;
    op2_c_macro *def = realloc(t->def, (size_t)cap * sizeof *def);
    if (!def) {
      t->failed = 1;
      return;
    }
    t->def = def, t->cap = cap;
  }
  t->def[t->n++] = m;
}

void op2_c_macros_read(const char *src, op2_c_macros *t) {
  *t = (op2_c_macros){0};
  for (const char *p = src; *p;) {
    const char *d;
    size_t len;
    const char *end = op2_c_directive(p, &d, &len);
    int define = end && len == 6 && strncmp(d, "define", 6) == 0;
    if (define || (end && len == 5 && strncmp(d, "undef", 5) == 0)) {
      const char *n = d + len;
      while (*n == ' ' || *n == '\t') n++;
      const char *e = n;
      while (op2_ident_char(*e)) e++;
      if (e > n && !(define && *e == '(')) /* function-like macros are not kept */
        add_macro(t, (op2_c_macro){n, define ? e : NULL, end, (size_t)(e - n)});
    }
    const char *nl = strchr(end ? end : p, '\n');
    p = nl ? nl + 1 : p + strlen(p);
  }
}

void op2_c_macros_free(op2_c_macros *t) {
  free(t->def);
  *t = (op2_c_macros){0};
}
