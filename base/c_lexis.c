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
