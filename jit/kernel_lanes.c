/* SPDX-License-Identifier: BSD-3-Clause */
/* The kernel rewritten for component-major lane arrays (the SIMD strategy of emit.c).
 *
 * A group of OP2_SIMD_W elements gathers an indirect argument's data into a local array. Laid
 * out [lane][component], the vectorised lane loop reads it with strided loads and shuffles, and
 * the gather's scalar stores meet the loop's wide loads (a failed store-to-load forward each).
 * Laid out [component][lane], a component of all lanes is one unit-stride vector, which made
 * Airfoil's adt_calc measurably faster (docs/PERFORMANCE.md). The kernel then
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

#include "base/c_lexis.h"
#include "kernel_constants.h"
#include "kernel_facts.h"
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
  while (w < at && op2_ident_char(c[w])) w++;
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
    if (strncmp(c + i, name, len) != 0 || op2_ident_char(c[i + len]) || op2_ident_char(c[i - 1]))
      continue;
    size_t prev = skip_space_back(c, r->body, i);
    if (c[prev - 1] == '.' || (c[prev - 1] == '>' && c[prev - 2] == '-')) continue; /* member */
    size_t next = skip_space(c, i + len, r->end);
    /* &p[e] would hand on a pointer into the lane arrays, where p[e + 1] is the next lane's */
    int address = c[prev - 1] == '&' && c[prev - 2] != '&';
    int ok = !maybe_declarator(r, i) && !op2_ident_char(c[prev - 1]) && !address;
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
           !op2_ident_char(b) && b != ']';
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
      if (strncmp(e, name, len) == 0 && !op2_ident_char(e[-1]) && !op2_ident_char(e[len])) return 1;
  }
  return 0;
}

static int by_position(const void *a, const void *b) {
  const edit *x = a, *y = b;
  if (x->at != y->at) return x->at < y->at ? -1 : 1;
  return x->order - y->order;
}

/* The kernel's one definition in the blanked `code`: the offset of its parameter list's '(' in
 * *open, of its body's braces in *body and *end. -1 when it is not a void function with a body
 * free of preprocessor lines, or when the source defines it twice (#ifdef variants: the one
 * compiled may not be the one read here). */
/* The directive at code[at] ('#'), as one of these kinds, or DIRECTIVE_OTHER. */
enum { DIRECTIVE_OPEN, DIRECTIVE_BRANCH, DIRECTIVE_CLOSE, DIRECTIVE_INERT, DIRECTIVE_OTHER };
static int directive_kind(const char *code, size_t at) {
  static const struct {
    const char *word;
    int kind;
  } kinds[] = {{"ifdef", DIRECTIVE_OPEN},   {"ifndef", DIRECTIVE_OPEN}, {"if", DIRECTIVE_OPEN},
               {"elif", DIRECTIVE_BRANCH},  {"else", DIRECTIVE_BRANCH}, {"endif", DIRECTIVE_CLOSE},
               {"pragma", DIRECTIVE_INERT}, {"line", DIRECTIVE_INERT}};
  const char *name;
  size_t len;
  if (!op2_c_directive(code + at, &name, &len)) return DIRECTIVE_OTHER;
  for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
    if (strlen(kinds[k].word) == len && strncmp(name, kinds[k].word, len) == 0)
      return kinds[k].kind;
  return DIRECTIVE_OTHER;
}

/* A kernel body may hold conditional compilation (MG-CFD's `#ifdef IDIVIDE` around its
 * divisions), #pragma and #line: the analyses here read every branch's statements as if all
 * ran, which can only count more additions than a real path makes, and the lane copy's edits
 * are within tokens, right in whichever branch the compiler keeps. That holds when each branch
 * leaves the braces as it found them, checked here; the directive lines are then blanked in
 * `code` (the analyses' copy: the lane copy is taken from the source). Any other directive in
 * the body (#define, #include, ...) could change what the text means: -1. */
static int blank_body_directives(char *code, size_t body, size_t end) {
  enum { NEST_MAX = 32 };
  int depth = 0, open_depth[NEST_MAX], nest = 0;
  for (size_t i = body; i < end; i++) {
    if (code[i] == '{') depth++;
    if (code[i] == '}') depth--;
    if (code[i] != '#') continue;
    size_t line = i;
    while (line > body && (code[line - 1] == ' ' || code[line - 1] == '\t')) line--;
    if (code[line - 1] != '\n') return -1; /* not at a line's start */
    int kind = directive_kind(code, i);
    if (kind == DIRECTIVE_OTHER) return -1;
    if (kind == DIRECTIVE_OPEN) {
      if (nest == NEST_MAX) return -1;
      open_depth[nest++] = depth;
    } else if (kind != DIRECTIVE_INERT && (!nest || open_depth[nest - 1] != depth)) {
      return -1;
    }
    if (kind == DIRECTIVE_CLOSE) nest--;
    for (int continued = 0; i < end && (code[i] != '\n' || continued); i++) {
      continued =
          code[i] == '\\' || (continued && code[i] != '\n' && isspace((unsigned char)code[i]));
      if (code[i] != '\n') code[i] = ' ';
    }
  }
  return nest ? -1 : 0;
}

static int find_body(char *code, const char *name, size_t *open, size_t *body, size_t *end) {
  const char *close = NULL;
  const char *at = op2_kernel_find_definition(code, name, &close);
  if (!at) return -1;
  /* the kernel must return void: the copy is declared here, not copied from the source */
  size_t name_at = (size_t)(at - code);
  while (name_at > 0 && code[name_at - 1] != '(') name_at--;
  name_at = skip_space_back(code, 0, name_at - 1) - strlen(name);
  size_t ret = skip_space_back(code, 0, name_at);
  if (ret < 4 || strncmp(code + ret - 4, "void", 4) != 0 ||
      (ret > 4 && op2_ident_char(code[ret - 5])))
    return -1;
  *open = (size_t)(at - code);
  *body = (size_t)(strchr(close, '{') - code);
  int depth = 0;
  for (*end = *body; code[*end]; (*end)++) {
    if (code[*end] == '{') depth++;
    if (code[*end] == '}' && --depth == 0) break;
  }
  if (!code[*end] || blank_body_directives(code, *body, *end) != 0) return -1;
  const char *other_close;
  return op2_kernel_find_definition(code + *end, name, &other_close) ? -1 : 0;
}

/* A copy of the kernel's blanked source for one pass (find_body blanks the body's directives
 * in it), or NULL: nothing wanted, a kernel the parameter parser does not understand, or out of
 * memory. */
static char *read_kernel(const op2_kernel_facts *k, uint64_t want) {
  if (!want || k->params_rc != OP2_OK) return NULL;
  return strdup(k->blank);
}

uint64_t op2_kernel_lanes(const op2_kernel_facts *k, uint64_t want, op2_buf *out) {
  const char *source = k->text, *name = k->name;
  const op2_kernel_param *params = k->params;
  int nparams = k->nparams;
  char *code = read_kernel(k, want);
  if (!code) return 0;
  rewriter r = {code, 0, 0, NULL, 0, 0};
  uint64_t done = 0;
  size_t open_at;
  if (find_body(code, name, &open_at, &r.body, &r.end) != 0) goto out;
  const char *open = code + open_at;
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

/* ---- how often a kernel adds to each component of a parameter -------------------------------
 * In a group of lanes an OP_INC argument's lane starts from -0.0 and the kernel adds into it;
 * the sum then goes onto the element's row. For one addition per component that is the scalar
 * loop's `row + term`, bit for bit; for two it is `row + (t1 + t2)` where the scalar loop does
 * `(row + t1) + t2`. OP2_SIMD=auto keeps results bit for bit, so it runs such an argument in
 * groups only when the kernel provably adds to each component at most once on every path:
 * statements `p[N] += e;`, `p[N] -= e;`, `*p += e;` with N a constant (literals and macros), or
 * `p[v] += e;` directly in a counted loop `for (int v = A; v < B; v++)` (components A..B-1 once
 * each), and no other use of p; sequences add up, the two branches of an if count their larger one,
 * and any other loop, a switch or a goto anywhere near p counts as many times. */

enum { ONCE_COMPONENTS = 64 };

typedef struct once_scan {
  const char *code;
  size_t end;                 /* the body's closing '}' */
  const op2_c_macros *macros; /* the text's, for subscripts that name components */
  const char *name;
  size_t len;
  size_t first[ONCE_COMPONENTS], last[ONCE_COMPONENTS]; /* offsets of the additions, +1; 0: none */
} once_scan;

static int keyword_at(const char *c, size_t i, size_t hi, const char *word) {
  size_t n = strlen(word);
  return i + n <= hi && strncmp(c + i, word, n) == 0 && !op2_ident_char(c[i + n]) &&
         !op2_ident_char(c[i - 1]);
}

/* Occurrences of the parameter's name in code[from, to), members (s.p, s->p) not counted. */
static int mentions(const once_scan *s, size_t from, size_t to) {
  int n = 0;
  for (size_t i = from; i + s->len <= to; i++) {
    if (strncmp(s->code + i, s->name, s->len) != 0 || op2_ident_char(s->code[i + s->len]) ||
        op2_ident_char(s->code[i - 1]))
      continue;
    size_t prev = skip_space_back(s->code, 0, i);
    if (s->code[prev - 1] == '.' || (s->code[prev - 1] == '>' && s->code[prev - 2] == '-'))
      continue;
    n++;
  }
  return n;
}

/* After the bracket group opening at `open` ('(' or '{'), or 0 when it does not close. */
static size_t after_group(const char *c, size_t open, size_t hi) {
  int depth = 0;
  for (size_t i = open; i < hi; i++) {
    if (strchr("([{", c[i])) depth++;
    if (strchr(")]}", c[i]) && --depth == 0) return i + 1;
  }
  return 0;
}

/* After the ';' ending the expression statement at i, or 0. */
static size_t after_expression(const char *c, size_t i, size_t hi) {
  for (int depth = 0; i < hi; i++) {
    if (strchr("([{", c[i])) depth++;
    if (strchr(")]}", c[i]) && --depth < 0) return 0;
    if (c[i] == ';' && depth == 0) return i + 1;
  }
  return 0;
}

static size_t after_statement(const once_scan *s, size_t i);

/* keyword ( ... ) statement */
static size_t after_header_and_statement(const once_scan *s, size_t i, size_t word) {
  i = skip_space(s->code, i + word, s->end);
  if (s->code[i] != '(') return 0;
  i = after_group(s->code, i, s->end);
  return i ? after_statement(s, i) : 0;
}

/* Where the statement at i ends, without looking inside; 0 when it is not understood. */
static size_t after_statement(const once_scan *s, size_t i) {
  const char *c = s->code;
  i = skip_space(c, i, s->end);
  if (c[i] == '{') return after_group(c, i, s->end);
  if (keyword_at(c, i, s->end, "if")) {
    i = after_header_and_statement(s, i, 2);
    size_t e = i ? skip_space(c, i, s->end) : 0;
    return e && keyword_at(c, e, s->end, "else") ? after_statement(s, e + 4) : i;
  }
  if (keyword_at(c, i, s->end, "for") || keyword_at(c, i, s->end, "while"))
    return after_header_and_statement(s, i, c[i] == 'f' ? 3 : 5);
  if (keyword_at(c, i, s->end, "switch")) return after_header_and_statement(s, i, 6);
  if (keyword_at(c, i, s->end, "do")) {
    i = after_statement(s, i + 2);
    i = i ? skip_space(c, i, s->end) : 0;
    if (!i || !keyword_at(c, i, s->end, "while")) return 0;
    return after_expression(c, i, s->end);
  }
  return after_expression(c, i, s->end);
}

/* An integer constant at *i (a literal, or an expression of literals and the text's macros:
 * kernel_constants.c) no larger than ONCE_COMPONENTS; moves *i past it. -1 when there is none. */
static long literal_at(const once_scan *s, size_t *i) {
  size_t at = *i;
  long v = op2_kernel_constant(s->code, &at, s->macros);
  if (v < 0 || v > ONCE_COMPONENTS) return -1;
  *i = at;
  return v;
}

/* The identifier at c + i, of length *len (0 when there is none). */
static int word_at(const char *c, size_t i, const char *word, size_t len) {
  return strncmp(c + i, word, len) == 0 && !op2_ident_char(c[i + len]);
}

/* The component the statement at [i, e) adds to, when it is `p[N] op= ...;` or `*p op= ...;`
 * with op + or - and p nowhere else in it: N, or ONCE_COMPONENTS when the subscript is the
 * identifier `var` (a counted loop's variable, when var is not NULL); -1 otherwise. */
static int added_component(const once_scan *s, size_t i, size_t e, const char *var, size_t vlen) {
  const char *c = s->code;
  int deref = c[i] == '*';
  if (deref) i = skip_space(c, i + 1, e);
  if (!word_at(c, i, s->name, s->len)) return -1;
  size_t at = skip_space(c, i + s->len, e);
  long component = 0;
  if (!deref) {
    if (c[at] != '[') return -1;
    size_t close = matching_bracket(c, at, e), k = skip_space(c, at + 1, close);
    if (!close) return -1;
    if (var && word_at(c, k, var, vlen)) {
      component = ONCE_COMPONENTS;
      k += vlen;
    } else if ((component = literal_at(s, &k)) < 0 || component == ONCE_COMPONENTS) {
      return -1;
    }
    if (skip_space(c, k, close) != close) return -1;
    at = skip_space(c, close + 1, e);
  }
  if (!(c[at] == '+' || c[at] == '-') || c[at + 1] != '=') return -1;
  return mentions(s, at + 2, e) ? -1 : (int)component;
}

/* Whether the body [from, to) may change variable v: an assignment, ++ or --, or its address. */
static int changes(const char *c, size_t from, size_t to, const char *v, size_t len) {
  for (size_t i = from; i + len <= to; i++) {
    if (!word_at(c, i, v, len) || op2_ident_char(c[i - 1])) continue;
    size_t a = skip_space(c, i + len, to), b = skip_space_back(c, from, i);
    char x = c[a], y = c[a + 1];
    if ((x == '=' && y != '=') || (strchr("+-*/%&|^", x) && y == '=') ||
        ((x == '<' || x == '>') && y == x && c[a + 2] == '=') || (x == '+' && y == '+') ||
        (x == '-' && y == '-'))
      return 1;
    if (b > from + 1 &&
        ((c[b - 1] == '+' && c[b - 2] == '+') || (c[b - 1] == '-' && c[b - 2] == '-')))
      return 1;
    if (b > from && c[b - 1] == '&' && !(b > from + 1 && c[b - 2] == '&')) return 1;
  }
  return 0;
}

/* `for (int v = A; v < B; v++) body` (or v <= B, ++v, v += 1) with A and B literals, v not
 * changed in the body, and p only in statements `p[v] op= e;` directly in the body (one at
 * most): components A..B-1 get one addition each. Adds them to n[] and returns 0, or -1 when the
 * loop is not of that form. */
static int counted_loop(once_scan *s, size_t at, size_t e, unsigned char *n) {
  static const char *const types[] = {"int", "unsigned", "long", "short", "signed", "size_t"};
  const char *c = s->code;
  size_t i = skip_space(c, at + 3, e);
  if (c[i] != '(') return -1;
  i = skip_space(c, i + 1, e);
  for (size_t t = 0; t < sizeof types / sizeof *types; t++)
    if (word_at(c, i, types[t], strlen(types[t])))
      i = skip_space(c, i + strlen(types[t]), e), t = 0;
  const char *v = c + i;
  size_t len = 0;
  while (op2_ident_char(v[len])) len++;
  if (!len || isdigit((unsigned char)*v)) return -1;
  i = skip_space(c, i + len, e);
  if (c[i] != '=') return -1;
  i = skip_space(c, i + 1, e);
  long lo = literal_at(s, &i);
  i = skip_space(c, i, e);
  if (lo < 0 || c[i] != ';') return -1;
  i = skip_space(c, i + 1, e);
  if (!word_at(c, i, v, len)) return -1;
  i = skip_space(c, i + len, e);
  int inclusive = c[i] == '<' && c[i + 1] == '=';
  if (c[i] != '<' || c[i + 1] == '<') return -1;
  i = skip_space(c, i + 1 + inclusive, e);
  long hi = literal_at(s, &i);
  i = skip_space(c, i, e);
  if (hi < 0 || c[i] != ';') return -1;
  hi += inclusive;
  i = skip_space(c, i + 1, e);
  if (c[i] == '+' && c[i + 1] == '+') {
    i = skip_space(c, i + 2, e);
    if (!word_at(c, i, v, len)) return -1;
    i += len;
  } else {
    if (!word_at(c, i, v, len)) return -1;
    i = skip_space(c, i + len, e);
    if (c[i] == '+' && c[i + 1] == '+') {
      i += 2;
    } else {
      size_t k = skip_space(c, i + 2, e);
      if (c[i] != '+' || c[i + 1] != '=' || literal_at(s, &k) != 1) return -1;
      i = k;
    }
  }
  i = skip_space(c, i, e);
  if (c[i] != ')' || hi > ONCE_COMPONENTS) return -1;
  size_t body = skip_space(c, i + 1, e), body_end = e;
  if (changes(c, body, e, v, len)) return -1;
  int block = c[body] == '{';
  if (block) body++, body_end = e - 1; /* inside the braces */
  size_t added = 0;
  for (size_t st = skip_space(c, body, body_end); st < body_end; st = skip_space(c, st, body_end)) {
    size_t se = after_statement(s, st);
    if (!se || se > body_end) return -1;
    if (mentions(s, st, se)) {
      if (added || added_component(s, st, se, v, len) != ONCE_COMPONENTS) return -1;
      added = st + 1;
    }
    st = se;
  }
  for (long k = lo; added && k < hi; k++) {
    if (++n[k] > 1) return -1;
    if (!s->first[k]) s->first[k] = added;
    s->last[k] = added;
  }
  return 0;
}

/* Adds to n[] what the statement at *i adds on its costliest path and moves *i past it; -1 when
 * the statement is not understood or may add more than that. */
static int count_adds(once_scan *s, size_t *i, unsigned char *n) {
  const char *c = s->code;
  size_t at = skip_space(c, *i, s->end);
  if (c[at] == '{') {
    for (at++;;) {
      at = skip_space(c, at, s->end);
      if (at > s->end) return -1;
      if (c[at] == '}') break;
      if (count_adds(s, &at, n) != 0) return -1;
    }
    *i = at + 1;
    return 0;
  }
  if (keyword_at(c, at, s->end, "if")) {
    size_t cond = skip_space(c, at + 2, s->end), body = 0;
    if (c[cond] != '(' || !(body = after_group(c, cond, s->end)) || mentions(s, cond, body))
      return -1;
    unsigned char then[ONCE_COMPONENTS] = {0}, other[ONCE_COMPONENTS] = {0};
    if (count_adds(s, &body, then) != 0) return -1;
    size_t e = skip_space(c, body, s->end);
    if (keyword_at(c, e, s->end, "else")) {
      body = e + 4;
      if (count_adds(s, &body, other) != 0) return -1;
    }
    for (int k = 0; k < ONCE_COMPONENTS; k++)
      if ((n[k] += then[k] > other[k] ? then[k] : other[k]) > 1) return -1;
    *i = body;
    return 0;
  }
  size_t e = after_statement(s, at);
  if (!e || keyword_at(c, at, s->end, "else")) return -1;
  int loop = keyword_at(c, at, s->end, "for") || keyword_at(c, at, s->end, "while") ||
             keyword_at(c, at, s->end, "do") || keyword_at(c, at, s->end, "switch");
  if (mentions(s, at, e) && keyword_at(c, at, s->end, "for")) {
    if (counted_loop(s, at, e, n) != 0) return -1;
  } else if (mentions(s, at, e)) {
    int k = loop ? -1 : added_component(s, at, e, NULL, 0);
    if (k < 0 || ++n[k] > 1) return -1;
    if (!s->first[k]) s->first[k] = at + 1;
    s->last[k] = at + 1;
  }
  *i = e;
  return 0;
}

/* Two parameters reaching one dat may reach one element (an edge whose two ends are one node):
 * groups add the earlier parameter's row first, so on a component both add to, every addition
 * of the earlier one must come first in the text (which is the order of every path, there being
 * no loops). */
static int same_order(const once_scan *a, const once_scan *b) {
  for (int k = 0; k < ONCE_COMPONENTS; k++)
    if (a->first[k] && b->first[k] && a->last[k] > b->first[k]) return 0;
  return 1;
}

uint64_t op2_kernel_adds_once(const op2_kernel_facts *k, uint64_t which, const int *group) {
  const char *name = k->name;
  const op2_kernel_param *params = k->params;
  int nparams = k->nparams;
  char *code = read_kernel(k, which);
  if (!code) return 0;
  uint64_t once = 0;
  size_t open, body, end;
  once_scan *scans = calloc(64, sizeof *scans);
  /* a label anywhere lets a goto repeat what follows it; macros may hide uses */
  if (scans && find_body(code, name, &open, &body, &end) == 0 && !strstr(code + body, "goto")) {
    for (int p = 0; p < nparams && p < 64; p++) {
      if (!(which >> p & 1) || params[p].depth != 1 || in_a_macro(code, params[p].name)) continue;
      once_scan *s = &scans[p];
      *s = (once_scan){.code = code,
                       .end = end,
                       .macros = &k->macros,
                       .name = params[p].name,
                       .len = strlen(params[p].name)};
      unsigned char n[ONCE_COMPONENTS] = {0};
      size_t at = body;
      if (count_adds(s, &at, n) == 0 && at == end + 1) once |= (uint64_t)1 << p;
    }
    for (int p = 0; group && p < nparams && p < 64; p++)
      for (int q = p + 1; group[p] >= 0 && q < nparams && q < 64; q++)
        if ((once >> p & 1) && (once >> q & 1) && group[q] == group[p] &&
            !same_order(&scans[p], &scans[q]))
          once &= ~((uint64_t)1 << p | (uint64_t)1 << q);
  }
  free(scans);
  free(code);
  return once;
}
