/* The kernel rewritten for component-major lane arrays (the SIMD strategy of emit.c).
 *
 * A group of OP2_SIMD_W elements gathers an indirect argument's data into a local array. Laid
 * out [lane][component], the vectorised lane loop reads it with strided loads and shuffles, and
 * the gather's scalar stores meet the loop's wide loads (a failed store-to-load forward each).
 * Laid out [component][lane], a component of all lanes is one unit-stride vector: on Airfoil's
 * adt_calc (720k cells, gcc 12, AVX-512) that took the call from 5.24 to 4.56 ms. The kernel then
 * has to step W elements from one component to the next, so its copy indexes such a parameter
 * p[(e) * OP2_SIMD_W] where the user wrote p[e], and p[0] for *p.
 *
 * Only a parameter used in nothing but these two forms is rewritten; any other use (pointer
 * arithmetic, passing it on, a declaration that could shadow it), no use at all, or its name in
 * a #define leaves that argument lane-major, which is always correct; a preprocessor line in the
 * body or a second definition of the kernel (#ifdef variants) leaves them all so. Arithmetic is
 * untouched, so results are bit for bit the same in either layout. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_lanes.h"
#include "kernel_params.h"

/* Edits at one offset apply in this order: in `a[*c]` the '(' opening a's subscript goes in
 * before c's '*' is removed, and c's "[0]" before the ") * OP2_SIMD_W" closing a's. */
enum { OPEN, DROP, APPEND, CLOSE };

typedef struct edit {
  size_t at;        /* offset in the source */
  int order;        /* among edits at the same offset */
  size_t drop;      /* characters removed there */
  const char *text; /* then inserted */
} edit;

typedef struct rewriter {
  const char *code; /* blanked source */
  size_t body, end; /* the body's '{' and its matching '}' */
  edit *edits;
  int nedits, cap;
} rewriter;

static int add_edit(rewriter *r, size_t at, int order, size_t drop, const char *text) {
  if (r->nedits == r->cap) {
    int cap = r->cap ? 2 * r->cap : 32;
    edit *e = realloc(r->edits, (size_t)cap * sizeof *e);
    if (!e) return -1;
    r->edits = e, r->cap = cap;
  }
  r->edits[r->nedits++] = (edit){at, order, drop, text};
  return 0;
}

static size_t skip_space_back(const char *code, size_t lo, size_t i) {
  while (i > lo && isspace((unsigned char)code[i - 1])) i--;
  return i; /* code[i - 1] is the previous non-space character (i > lo) */
}

static size_t skip_space(const char *code, size_t i, size_t hi) {
  while (i < hi && isspace((unsigned char)code[i])) i++;
  return i;
}

/* The ']' matching the '[' at `open`, or 0. */
static size_t matching_bracket(const char *code, size_t open, size_t hi) {
  int depth = 0;
  for (size_t i = open; i < hi; i++) {
    if (code[i] == '[' || code[i] == '(') depth++;
    if ((code[i] == ']' || code[i] == ')') && --depth == 0) return code[i] == ']' ? i : 0;
  }
  return 0;
}

static int starts_declaration(const char *w, size_t n) {
  static const char *const words[] = {"double",   "float",    "int",    "long",     "short",
                                      "char",     "unsigned", "signed", "const",    "static",
                                      "register", "_Bool",    "bool",   "struct",   "union",
                                      "enum",     "size_t",   "auto",   "volatile", "typedef"};
  for (size_t i = 0; i < sizeof words / sizeof *words; i++)
    if (strlen(words[i]) == n && strncmp(words[i], w, n) == 0) return 1;
  return 0;
}

/* Whether the occurrence at `at` could be a declarator of a local variable: its statement starts
 * with a type word and no '=' (at the occurrence's own nesting level) comes between the two. */
static int maybe_declarator(const rewriter *r, size_t at) {
  const char *c = r->code;
  size_t start = at;
  while (start > r->body + 1 && !strchr(";{}", c[start - 1])) start--;
  start = skip_space(c, start, at);
  size_t w = start;
  while (w < at && op2_is_ident_char(c[w])) w++;
  if (!starts_declaration(c + start, w - start)) return 0;
  int depth = 0;
  for (size_t i = at; i > start; i--) {
    char ch = c[i - 1];
    if (ch == ')' || ch == ']') depth++;
    if (ch == '(' || ch == '[') {
      if (depth == 0) return 0; /* inside an initialiser's call or a subscript */
      depth--;
    }
    if (depth == 0 && ch == '=' && !strchr("=!<>", c[i - 2])) return 0;
    if (depth == 0 && ch == ',') return 1;
  }
  return 1;
}

/* Records the edits for every use of parameter `name` in the body; -1 when one use is of
 * another form (nothing recorded then), -2 when out of memory. */
static int rewrite_param(rewriter *r, const char *name) {
  const char *c = r->code;
  size_t len = strlen(name);
  int first = r->nedits, uses = 0;
  for (size_t i = r->body + 1; i + len <= r->end; i++) {
    if (strncmp(c + i, name, len) != 0 || op2_is_ident_char(c[i + len]) ||
        op2_is_ident_char(c[i - 1]))
      continue;
    size_t prev = skip_space_back(c, r->body, i);
    if (c[prev - 1] == '.' || (c[prev - 1] == '>' && c[prev - 2] == '-')) continue; /* member */
    size_t next = skip_space(c, i + len, r->end);
    /* &p[e] would hand on a pointer into the lane arrays, where p[e + 1] is the next lane's */
    int address = c[prev - 1] == '&' && c[prev - 2] != '&';
    int ok = !maybe_declarator(r, i) && !op2_is_ident_char(c[prev - 1]) && !address;
    if (ok && c[next] == '[') {
      size_t close = matching_bracket(c, next, r->end);
      ok = close && add_edit(r, next + 1, OPEN, 0, "(") == 0 &&
           add_edit(r, close, CLOSE, 0, ") * OP2_SIMD_W") == 0;
      if (!ok && close) return -2;
    } else if (ok && c[prev - 1] == '*') {
      /* *p, not *p++ or *p--. The '*' is a dereference: a pointer cannot be multiplied, so
       * `x * *p` and `(double)*p` read p; after a name it would be a declaration (`real *p`),
       * refused with anything else unexpected. */
      size_t before = skip_space_back(c, r->body, prev - 1);
      char b = c[before - 1];
      ok = !(c[next] == '+' && c[next + 1] == '+') && !(c[next] == '-' && c[next + 1] == '-') &&
           !op2_is_ident_char(b) && b != ']';
      if (ok &&
          (add_edit(r, prev - 1, DROP, 1, "") != 0 || add_edit(r, i + len, APPEND, 0, "[0]") != 0))
        return -2;
    } else {
      ok = 0;
    }
    if (!ok) {
      r->nedits = first;
      return -1;
    }
    uses++;
    i += len - 1;
  }
  return uses ? 0 : -1; /* unused in the body: maybe used through a macro, left alone */
}

/* Whether identifier `name` appears in a #define of the source: a macro the body uses could
 * index the parameter where the rewrite cannot see it. */
static int in_a_macro(const char *code, const char *name) {
  size_t len = strlen(name);
  for (const char *d = strstr(code, "define"); d; d = strstr(d + 1, "define")) {
    const char *h = d;
    while (h > code && (h[-1] == ' ' || h[-1] == '\t')) h--;
    if (h == code || h[-1] != '#') continue;
    for (const char *e = d; *e && !(*e == '\n' && e[-1] != '\\'); e++)
      if (strncmp(e, name, len) == 0 && !op2_is_ident_char(e[-1]) && !op2_is_ident_char(e[len]))
        return 1;
  }
  return 0;
}

static int by_position(const void *a, const void *b) {
  const edit *x = a, *y = b;
  if (x->at != y->at) return x->at < y->at ? -1 : 1;
  return x->order - y->order;
}

uint64_t op2_kernel_lanes(const char *source, const char *name, uint64_t want, op2_buf *out) {
  op2_kernel_param params[OP2_PARAMS_MAX];
  int nparams = 0;
  char why[200];
  if (!want || !source ||
      op2_kernel_params_parse(source, name, params, &nparams, why, sizeof why) != 0)
    return 0;
  char *code = op2_kernel_source_blank(source);
  if (!code) return 0;
  rewriter r = {code, 0, 0, NULL, 0, 0};
  uint64_t done = 0;
  const char *close = NULL;
  const char *open = op2_kernel_find_definition(code, name, &close);
  if (!open) goto out;
  /* the kernel must return void: the copy is declared here, not copied from the source */
  size_t name_at = (size_t)(open - code);
  while (name_at > 0 && code[name_at - 1] != '(') name_at--;
  name_at = skip_space_back(code, 0, name_at - 1) - strlen(name);
  size_t ret = skip_space_back(code, 0, name_at);
  if (ret < 4 || strncmp(code + ret - 4, "void", 4) != 0 ||
      (ret > 4 && op2_is_ident_char(code[ret - 5])))
    goto out;
  r.body = (size_t)(strchr(close, '{') - code);
  int depth = 0;
  for (r.end = r.body; code[r.end]; r.end++) {
    if (code[r.end] == '{') depth++;
    if (code[r.end] == '}' && --depth == 0) break;
  }
  if (!code[r.end] || memchr(code + r.body, '#', r.end - r.body)) goto out;
  /* a second definition (#ifdef variants): the one compiled may not be the one read here */
  const char *other_close;
  if (op2_kernel_find_definition(code + r.end, name, &other_close)) goto out;
  for (int p = 0; p < nparams && p < 64; p++) {
    if (!(want >> p & 1) || params[p].depth != 1 || in_a_macro(code, params[p].name)) continue;
    int rc = rewrite_param(&r, params[p].name);
    if (rc == -2) {
      done = 0;
      goto out;
    }
    if (rc == 0) done |= (uint64_t)1 << p;
  }
  if (!done) goto out;
  qsort(r.edits, (size_t)r.nedits, sizeof *r.edits, by_position);
  /* on the line of the user's definition, so that messages name the kernel's lines */
  int line = 1;
  for (const char *c = code; c < open; c++) line += *c == '\n';
  op2_buf_printf(out, "#line %d \"kernel:%s\"\nstatic void op2_lanes_%s(", line, name, name);
  size_t from = (size_t)(open - code);
  op2_buf_append(out, source + from, r.body - from); /* the parameters, up to the '{' */
  from = r.body;
  for (int e = 0; e < r.nedits; e++) {
    op2_buf_append(out, source + from, r.edits[e].at - from);
    op2_buf_append(out, r.edits[e].text, strlen(r.edits[e].text));
    from = r.edits[e].at + r.edits[e].drop;
  }
  op2_buf_append(out, source + from, r.end + 1 - from);
  op2_buf_printf(out, "\n");
out:
  free(r.edits);
  free(code);
  return done;
}
