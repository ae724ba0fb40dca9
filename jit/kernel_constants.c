/* SPDX-License-Identifier: BSD-3-Clause */
/* Integer constant expressions in a kernel's text, its object-like macros included. Real
 * applications index their rows by name: MG-CFD adds to fluxes[VAR_MOMENTUM + 1], with
 * `#define VAR_MOMENTUM 1` in const.h, which kernel_lanes.c must read as component 2 to know
 * that each component gets one addition. A macro counts only when every definition of it in the
 * text has one replacement and nothing #undefs it: a definition in a branch the compiler skips
 * is read as if it were kept, which at worst lets kernel_lanes.c miss a repeated addition (a
 * rounding difference in SIMD groups, never a wrong element). */
#include <ctype.h>
#include <string.h>

#include "base/c_lexis.h"
#include "kernel_constants.h"

enum { NESTING_MAX = 16 };
#define MAGNITUDE_MAX (1L << 40) /* far beyond any row length; no overflow on the way */

typedef struct reader {
  const op2_c_macros *macros; /* the text's (base/c_lexis.h) */
  const char *p;              /* the next character to read */
  const char *end;            /* NULL, or where the expression must stop (a macro's replacement) */
  int nesting;                /* parentheses and macro expansions entered */
} reader;

static int at_end(const reader *r) {
  return r->end ? r->p >= r->end : !*r->p;
}

static void skip_blank(reader *r) {
  while (!at_end(r) && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')) r->p++;
}

/* [*from, *to) without the blanks around it. */
static void trim(const char **from, const char **to) {
  while (*from < *to && isspace((unsigned char)**from)) ++*from;
  while (*to > *from && isspace((unsigned char)(*to)[-1])) --*to;
}

/* The replacement [*from, *to) of object-like macro name[0, len): 0, or -1 when it is not
 * defined, defined twice differently, or #undef'd (function-like macros are not in the table). */
static int macro_replacement(const op2_c_macros *t, const char *name, size_t len, const char **from,
                             const char **to) {
  *from = *to = NULL;
  for (int i = 0; i < t->n; i++) {
    const op2_c_macro *m = &t->def[i];
    if (m->len != len || strncmp(m->name, name, len) != 0) continue;
    if (!m->body) return -1;
    const char *a = m->body, *b = m->end;
    trim(&a, &b);
    if (*from && ((size_t)(b - a) != (size_t)(*to - *from) || strncmp(a, *from, b - a) != 0))
      return -1;
    *from = a, *to = b;
  }
  return *from ? 0 : -1;
}

static int expression(reader *r, long *v);

static int primary(reader *r, long *v) {
  skip_blank(r);
  if (at_end(r)) return -1;
  if (isdigit((unsigned char)*r->p)) {
    if (*r->p == '0' && r->p[1] && strchr("xXbB0123456789", r->p[1])) return -1; /* decimal only */
    long n = 0;
    for (; isdigit((unsigned char)*r->p); r->p++)
      if ((n = n * 10 + (*r->p - '0')) > MAGNITUDE_MAX) return -1;
    while (strchr("uUlL", *r->p) && *r->p) r->p++;
    if (op2_ident_char(*r->p) || *r->p == '.') return -1; /* 1e3, 1.5, ... */
    *v = n;
    return 0;
  }
  if (++r->nesting > NESTING_MAX) return -1;
  int rc = -1;
  if (*r->p == '(') {
    r->p++;
    rc = expression(r, v);
    skip_blank(r);
    if (rc == 0 && (at_end(r) || *r->p != ')')) rc = -1;
    if (rc == 0) r->p++;
  } else if (op2_ident_char(*r->p)) {
    const char *name = r->p;
    while (op2_ident_char(*r->p)) r->p++;
    reader m = {r->macros, NULL, NULL, r->nesting};
    if (macro_replacement(r->macros, name, (size_t)(r->p - name), &m.p, &m.end) == 0) {
      rc = expression(&m, v);
      skip_blank(&m);
      if (rc == 0 && !at_end(&m)) rc = -1;
    }
  }
  r->nesting--;
  return rc;
}

static int unary(reader *r, long *v) {
  skip_blank(r);
  if (!at_end(r) && (*r->p == '-' || *r->p == '+') && r->p[1] != r->p[0] && r->p[1] != '=') {
    int minus = *r->p++ == '-';
    if (unary(r, v) != 0) return -1;
    if (minus) *v = -*v;
    return 0;
  }
  return primary(r, v);
}

/* The binary operator (one of `ops`) at r->p, not the first character of ++, --, +=, *= ...;
 * 0 when there is none. */
static char binary_operator(reader *r, const char *ops) {
  skip_blank(r);
  if (at_end(r) || !strchr(ops, *r->p) || !*r->p) return 0;
  if (r->p[1] == '=' || r->p[1] == r->p[0]) return 0;
  return *r->p;
}

static int term(reader *r, long *v) {
  if (unary(r, v) != 0) return -1;
  while (binary_operator(r, "*")) {
    long b;
    r->p++;
    if (unary(r, &b) != 0) return -1;
    if ((*v > 0 ? *v : -*v) > MAGNITUDE_MAX / 2 || (b > 0 ? b : -b) > MAGNITUDE_MAX / 2) return -1;
    *v *= b;
  }
  return 0;
}

static int expression(reader *r, long *v) {
  if (term(r, v) != 0) return -1;
  for (char op; (op = binary_operator(r, "+-"));) {
    long b;
    r->p++;
    if (term(r, &b) != 0) return -1;
    *v = op == '+' ? *v + b : *v - b;
    if (*v > MAGNITUDE_MAX || *v < -MAGNITUDE_MAX) return -1;
  }
  return 0;
}

long op2_kernel_constant(const char *code, size_t *at, const op2_c_macros *macros) {
  reader r = {macros, code + *at, NULL, 0};
  long v;
  if (expression(&r, &v) != 0 || v < 0) return -1;
  *at = (size_t)(r.p - code);
  return v;
}
