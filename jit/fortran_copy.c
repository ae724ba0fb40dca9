/* SPDX-License-Identifier: BSD-3-Clause */
/* A Fortran kernel's copies for the C element loop (fortran_codegen.c's C-driven loops): the
 * kernel renamed, with a C name (BIND(C)) and the host variables it reads as extra dummies, and
 * for the SIMD loop a second copy whose component-major dummies ("laned") take a group's lane
 * array, (op2_w, its own dimensions), each reference indexing the first lane of what it is given:
 *
 *   subroutine res_calc(x1, ..., res1, res2)      subroutine op2_lanes_k(x1, ..., res1, res2) &
 *                                                     bind(C, name='op2_lanes_k')
 *     real(8), dimension(2), intent(in) :: x1       real(8) :: x1(op2_w, 2)
 *     dx = x1(1) - x2(1)                  ->        dx = x1(1, 1) - x2(1, 1)
 *     res1(1) = res1(1) + f                         res1(1, 1) = res1(1, 1) + f
 *     adt = adt / cfl                               adt(1) = adt(1) / cfl
 *
 * The C loop passes lane l the address of its lane's first component (&g[0][l]), so a
 * component's values lie op2_w apart and the lane loop, the copy inlined into it by link-time
 * optimisation, vectorises with whole-vector loads and stores, as the C target's copies do
 * (kernel_lanes.c). The copies are written from the statements' words (lower case, comments
 * gone, one statement a line). A kernel this cannot follow (a laned dummy with VALUE, POINTER,
 * OPTIONAL or ALLOCATABLE, declared apart by DIMENSION or INTENT statements, referenced through a
 * component; an ELEMENTAL kernel) is refused, with the reason. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fortran_codegen.h"
#include "base/fortran_source.h"

enum { MAX_DUMMIES = 64 };

typedef struct dummy {
  char name[64];
  bool laned;
  int rank;       /* its own array rank (0: scalar) */
  char dims[256]; /* its own array spec, without parentheses */
  bool declared;
} dummy;

static bool is_name_char(char c) {
  return isalnum((unsigned char)c) || c == '_';
}

/* The array spec inside the parentheses at p ("2", "4, 3"), its rank; the text after it. */
static const char *array_spec(const char *p, char *dims, size_t len, int *rank) {
  if (*p != '(') return p;
  int depth = 0, commas = 0;
  const char *start = p + 1;
  for (; *p; p++) {
    if (*p == '(') depth++;
    if (*p == ')' && --depth == 0) break;
    if (*p == ',' && depth == 1) commas++;
  }
  snprintf(dims, len, "%.*s", (int)(p - start), start);
  *rank = commas + 1;
  return *p ? p + 1 : p;
}

static dummy *find(dummy *d, int n, const char *name, size_t len) {
  for (int i = 0; i < n; i++)
    if (strlen(d[i].name) == len && strncmp(d[i].name, name, len) == 0) return &d[i];
  return NULL;
}

/* A type declaration: its laned entities redeclared with the lane dimension, the others kept in
 * one statement as before. false when a laned one has an attribute a lane array cannot have. */
static bool declaration(const char *type, const char *rest, dummy *d, int n, op2_buf *out,
                        char *why, size_t whylen) {
  char attrs[256];
  op2_fentity ents[64];
  int ne = op2_fdecl_entities(rest, attrs, sizeof attrs, ents, 64);
  char dims_attr[256] = "";
  int attr_rank = 0;
  const char *dim = strstr(attrs, "dimension");
  if (dim && strchr(dim, '('))
    array_spec(strchr(dim, '('), dims_attr, sizeof dims_attr, &attr_rank);
  op2_buf kept = {0};
  for (int e = 0; e < ne; e++) {
    dummy *x = find(d, n, ents[e].name, strlen(ents[e].name));
    if (!x || !x->laned) {
      op2_buf_printf(&kept, "%s%s", kept.len ? ", " : "", ents[e].text);
      continue;
    }
    static const char *const refused[] = {"value", "pointer", "optional", "allocatable"};
    for (size_t k = 0; k < sizeof refused / sizeof *refused; k++)
      if (strstr(attrs, refused[k])) {
        snprintf(why, whylen, "its argument %s is %s", x->name, refused[k]);
        op2_buf_free(&kept);
        return false;
      }
    const char *own = ents[e].text + strlen(ents[e].name);
    while (*own == ' ') own++;
    x->rank = 0;
    if (*own == '(')
      array_spec(own, x->dims, sizeof x->dims, &x->rank);
    else if (dim)
      snprintf(x->dims, sizeof x->dims, "%s", dims_attr), x->rank = attr_rank;
    if (x->rank)
      op2_buf_printf(out, "%s :: %s(op2_w, %s)\n", type, x->name, x->dims);
    else
      op2_buf_printf(out, "%s :: %s(op2_w)\n", type, x->name);
    x->declared = true;
  }
  const char *a = attrs; /* after the type: ", intent(in)" */
  while (*a == ',' || *a == ' ') a++;
  if (kept.len) op2_buf_printf(out, "%s%s%s :: %s\n", type, *a ? ", " : "", a, kept.data);
  op2_buf_free(&kept);
  return true;
}

/* A statement's words with every reference to a laned dummy indexing the first lane. */
static bool references(const char *norm, dummy *d, int n, op2_buf *out, char *why, size_t whylen) {
  int depth = 0;
  char quote = 0, prev = 0; /* the last character that was not a blank */
  for (const char *p = norm; *p;) {
    if (quote) {
      if (*p == quote) quote = 0;
      op2_buf_append(out, p++, 1);
      continue;
    }
    if (*p == '\'' || *p == '"') {
      quote = *p;
      prev = *p;
      op2_buf_append(out, p++, 1);
      continue;
    }
    if (!isalpha((unsigned char)*p) || (p > norm && is_name_char(p[-1]))) {
      if (*p == '(') depth++;
      if (*p == ')') depth--;
      if (*p != ' ') prev = *p;
      op2_buf_append(out, p++, 1);
      continue;
    }
    const char *start = p;
    while (is_name_char(*p)) p++;
    dummy *x = find(d, n, start, (size_t)(p - start));
    const char *next = p;
    while (*next == ' ') next++;
    /* a keyword argument's name, or a component's (a%x): not the dummy */
    bool other = prev == '%' ||
                 (depth > 0 && (prev == '(' || prev == ',') && next[0] == '=' && next[1] != '=');
    op2_buf_append(out, start, (size_t)(p - start));
    prev = p[-1];
    if (!x || !x->laned || other) continue;
    if (*next == '(') { /* an element or section: the lane first */
      op2_buf_printf(out, "(1, ");
      p = next + 1;
      depth++;
      prev = ' ';
      continue;
    }
    if (*next == '%') {
      snprintf(why, whylen, "it takes a component of its argument %s", x->name);
      return false;
    }
    op2_buf_printf(out, "(1");
    for (int r = 0; r < x->rank; r++) op2_buf_printf(out, ", :");
    op2_buf_printf(out, ")");
  }
  op2_buf_printf(out, "\n");
  return true;
}

/* ---- adding once ---- */

/* `s` without blanks outside strings. */
static void squeeze(const char *s, char *out, size_t len) {
  size_t n = 0;
  char quote = 0;
  for (; *s && n + 1 < len; s++) {
    if (quote && *s == quote)
      quote = 0;
    else if (!quote && (*s == '\'' || *s == '"'))
      quote = *s;
    if (quote || *s != ' ') out[n++] = *s;
  }
  out[n] = '\0';
}

/* Whether `name` occurs in `s` as a name. */
static bool names(const char *s, const char *name) {
  size_t n = strlen(name);
  for (const char *p = strstr(s, name); p; p = strstr(p + 1, name))
    if ((p == s || !is_name_char(p[-1])) && !is_name_char(p[n])) return true;
  return false;
}

/* An increment `x(N)=x(N)+t` or `x(N)=x(N)-t`, or `x=x+t` of a scalar x (rank 0; component 0),
 * blanks gone, also after a one-line IF, whose term t has no + or - outside parentheses (but in
 * an exponent) and does not name x: its component N into *col, else 0. */
static int increment(const char *sq, const char *x, int rank, int *col) {
  if (strncmp(sq, "if(", 3) == 0) { /* a logical IF's statement */
    int depth = 0;
    const char *p = sq + 2;
    for (; *p; p++) {
      if (*p == '(') depth++;
      if (*p == ')' && --depth == 0) break;
    }
    if (!*p) return 0;
    sq = p + 1;
  }
  size_t n = strlen(x);
  char lhs[80];
  if (strncmp(sq, x, n) != 0 || (sq[n] != '(' && sq[n] != '=')) return 0;
  const char *p = sq + n + 1;
  int v = 0, digits = 0;
  if (sq[n] == '=') { /* a scalar's `x=x+t` */
    if (rank) return 0;
    snprintf(lhs, sizeof lhs, "%s", x);
  } else {
    for (; isdigit((unsigned char)*p); p++, digits++) v = v * 10 + (*p - '0');
    if (!digits || *p != ')' || p[1] != '=') return 0;
    snprintf(lhs, sizeof lhs, "%.*s", (int)(p + 1 - sq), sq);
    p += 2;
  }
  if (strncmp(p, lhs, strlen(lhs)) != 0) return 0;
  p += strlen(lhs);
  if (*p != '+' && *p != '-') return 0;
  const char *term = ++p;
  if (!*term || names(term, x)) return 0;
  int depth = 0;
  for (; *p; p++) {
    if (*p == '(') depth++;
    if (*p == ')') depth--;
    bool exponent = p > term + 1 && (p[-1] == 'e' || p[-1] == 'd') &&
                    (isdigit((unsigned char)p[-2]) || p[-2] == '.');
    if (depth == 0 && (*p == '+' || *p == '-') && !exponent) return 0;
  }
  *col = v;
  return 1;
}

/* The words of an IF construct's statements. */
static bool if_then(const char *s) {
  size_t n = strlen(s);
  bool starts = strncmp(s, "if(", 3) == 0 || strncmp(s, "if (", 4) == 0;
  return starts && n > 4 && strcmp(s + n - 4, "then") == 0 && (s[n - 5] == ' ' || s[n - 5] == ')');
}
static bool else_branch(const char *s) {
  return strcmp(s, "else") == 0 || strncmp(s, "else if", 7) == 0 || strncmp(s, "elseif", 6) == 0;
}
static bool end_if(const char *s) {
  return strcmp(s, "end if") == 0 || strcmp(s, "endif") == 0;
}

/* Counts, per component of dummy x, the increments on the path of statements [*i, last) that
 * adds the most (the branches of an IF construct are apart: the largest of theirs), until an
 * ELSE or END IF of the construct the block is in. false: x is used otherwise. */
static bool count_block(const op2_fsource *f, int *i, int last, const dummy *x, int cnt[64]) {
  for (; *i < last; (*i)++) {
    const char *s = f->stmts[*i].norm;
    if (else_branch(s) || end_if(s)) return true;
    if (if_then(s)) {
      if (names(s, x->name)) return false;
      int best[64] = {0};
      for ((*i)++; *i < last;) {
        int branch[64] = {0};
        if (!count_block(f, i, last, x, branch)) return false;
        for (int c = 0; c < 64; c++) best[c] = branch[c] > best[c] ? branch[c] : best[c];
        if (*i >= last || end_if(f->stmts[*i].norm)) break;
        if (names(f->stmts[*i].norm, x->name)) return false; /* ELSE IF's condition */
        (*i)++;
      }
      for (int c = 0; c < 64; c++) cnt[c] += best[c];
      continue;
    }
    char type[128];
    const char *rest;
    if (op2_fstmt_type_decl(&f->stmts[*i], type, sizeof type, &rest) || !names(s, x->name))
      continue;
    char sq[1024];
    int col;
    if (strlen(s) >= sizeof sq - 1) return false;
    squeeze(s, sq, sizeof sq);
    if (!increment(sq, x->name, x->rank, &col) || col < 0 || col >= 64) return false;
    cnt[col]++;
  }
  return true;
}

/* Dummies (bit i) each of whose components the kernel adds to at most once on any path and only
 * by an increment (see `increment`): in groups, such a component's increments start from -0.0
 * and reach the row as one addition, the very addition the element loop makes. A kernel with a
 * loop or a jump may repeat a statement: none. */
static uint64_t adds_once(const op2_fsource *f, const op2_funit *u, dummy *d, int n) {
  for (int i = u->first + 1; i < u->last; i++) {
    const char *s = f->stmts[i].norm;
    if (strncmp(s, "do", 2) == 0 || strstr(s, ": do") || strstr(s, "goto") || strstr(s, "go to"))
      return 0;
  }
  uint64_t once = 0;
  for (int j = 0; j < n && j < 64; j++) {
    if (!d[j].laned) continue;
    int cnt[64] = {0}, i = u->first + 1;
    bool ok = true;
    while (ok && i < u->last) { /* an unmatched ELSE or END IF: counted on as one block */
      ok = count_block(f, &i, u->last, &d[j], cnt);
      i++;
    }
    for (int c = 0; ok && c < 64; c++) ok = cnt[c] <= 1;
    if (ok) once |= (uint64_t)1 << j;
  }
  return once;
}

int op2_fortran_kernel_copy(const char *kernel, const op2_fortran_copy *c, op2_buf *out,
                            uint64_t *once, char *why, size_t whylen) {
  op2_fsource f;
  if (once) *once = 0;
  if (op2_fsource_parse("kernel", kernel, strlen(kernel), &f) != OP2_OK) {
    snprintf(why, whylen, "out of memory");
    return OP2_ERR_MEM;
  }
  int rc = OP2_ERR_ARG;
  dummy d[MAX_DUMMIES];
  char dnames[MAX_DUMMIES][64];
  const op2_funit *u = f.nunits ? &f.units[0] : NULL;
  int n = u ? op2_fstmt_dummies(&f.stmts[u->first], dnames, MAX_DUMMIES) : 0;
  if (!u || u->kind != OP2_FU_SUBROUTINE || u->last < 0 || n != c->ndummies) {
    snprintf(why, whylen, "its dummy arguments are not the loop's");
    goto done;
  }
  if (strstr(f.stmts[u->first].norm, "elemental")) {
    snprintf(why, whylen, "it is elemental");
    goto done;
  }
  for (int i = 0; i < n; i++) {
    memset(&d[i], 0, sizeof d[i]);
    snprintf(d[i].name, sizeof d[i].name, "%s", dnames[i]);
    d[i].laned = c->laned && c->laned[i];
  }
  /* the header: its C name, the host variables after the loop's arguments */
  op2_buf_printf(out, "subroutine %s(", c->name);
  for (int i = 0; i < n; i++) op2_buf_printf(out, "%s%s", i ? ", " : "", d[i].name);
  for (int h = 0; h < c->nhost; h++) op2_buf_printf(out, ", %s", c->host_names[h]);
  op2_buf_printf(out, ") bind(C, name='%s')\n", c->name);
  bool hosts_declared = false;
  for (int i = u->first + 1; i < u->last; i++) {
    const op2_fstmt *st = &f.stmts[i];
    if (!hosts_declared && !st->directive && strncmp(st->norm, "use ", 4) != 0 &&
        strncmp(st->norm, "use,", 4) != 0 && strncmp(st->norm, "implicit", 8) != 0 &&
        strncmp(st->norm, "import", 6) != 0) {
      for (int h = 0; h < c->nhost; h++) op2_buf_printf(out, "%s\n", c->host_decls[h]);
      hosts_declared = true;
    }
    char type[128];
    const char *rest;
    if (op2_fstmt_type_decl(st, type, sizeof type, &rest)) {
      if (!declaration(type, rest, d, n, out, why, whylen)) goto done;
      continue;
    }
    /* attribute statements naming a laned dummy: its declaration is elsewhere */
    static const char *const apart[] = {"dimension", "intent", "target", "optional", "value"};
    for (size_t k = 0; k < sizeof apart / sizeof *apart; k++)
      if (strncmp(st->norm, apart[k], strlen(apart[k])) == 0)
        for (int j = 0; j < n; j++)
          if (d[j].laned && names(st->norm, d[j].name)) {
            snprintf(why, whylen, "its argument %s is declared by a %s statement", d[j].name,
                     apart[k]);
            goto done;
          }
    if (!references(st->norm, d, n, out, why, whylen)) goto done;
  }
  if (!hosts_declared)
    for (int h = 0; h < c->nhost; h++) op2_buf_printf(out, "%s\n", c->host_decls[h]);
  for (int j = 0; j < n; j++)
    if (d[j].laned && !d[j].declared) {
      snprintf(why, whylen, "its argument %s has no type declaration of its own", d[j].name);
      goto done;
    }
  op2_buf_printf(out, "end subroutine %s\n", c->name);
  if (once) *once = adds_once(&f, u, d, n);
  rc = out->failed ? OP2_ERR_MEM : OP2_OK;
  if (out->failed) snprintf(why, whylen, "out of memory");
done:
  op2_fsource_free(&f);
  return rc;
}

int op2_fortran_logical_dummies(const char *kernel, bool *logical, int n) {
  op2_fsource f;
  memset(logical, 0, sizeof *logical * (size_t)n);
  if (op2_fsource_parse("kernel", kernel, strlen(kernel), &f) != OP2_OK) return OP2_ERR_MEM;
  char dnames[MAX_DUMMIES][64];
  const op2_funit *u = f.nunits ? &f.units[0] : NULL;
  int nd = u ? op2_fstmt_dummies(&f.stmts[u->first], dnames, MAX_DUMMIES) : 0;
  for (int i = u ? u->first + 1 : 0; u && i < u->last; i++) {
    char type[128], attrs[256];
    const char *rest;
    op2_fentity ents[64];
    if (!op2_fstmt_type_decl(&f.stmts[i], type, sizeof type, &rest) ||
        strncmp(type, "logical", 7) != 0)
      continue;
    int ne = op2_fdecl_entities(rest, attrs, sizeof attrs, ents, 64);
    for (int e = 0; e < ne; e++)
      for (int j = 0; j < nd && j < n; j++)
        if (strcmp(ents[e].name, dnames[j]) == 0) logical[j] = true;
  }
  op2_fsource_free(&f);
  return OP2_OK;
}
