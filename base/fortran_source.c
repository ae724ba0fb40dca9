/* SPDX-License-Identifier: BSD-3-Clause */
/* Free-form Fortran as statements and program units (fsource.h). Lines are joined where they end
 * with '&' (a continuation line may begin with '&' too), split at ';', comments ('!' outside a
 * string) dropped; preprocessor lines ('#' first) stay statements of their own. Units nest by
 * their header and end statements: PROGRAM, MODULE, SUBROUTINE and FUNCTION (with their
 * prefixes and a function's type), and the blocks whose SUBROUTINE or FUNCTION statements are not
 * subprograms (INTERFACE) or whose END would otherwise be taken for a unit's (TYPE, SUBMODULE,
 * BLOCK DATA). Fixed-form source (.f, .F) is not read. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fortran_source.h"
#include "base/file_io.h"

void op2_fsource_free(op2_fsource *s) {
  for (int i = 0; i < s->nstmts; i++) free(s->stmts[i].norm);
  free(s->stmts), free(s->units), free(s->text), free(s->path);
  memset(s, 0, sizeof *s);
}

/* ---- statements ---- */

typedef struct growing {
  char *s;
  size_t len, cap;
  bool failed;
} growing;

static void put(growing *g, char c) {
  if (g->failed) return;
  if (g->len + 2 > g->cap) {
    size_t cap = g->cap ? 2 * g->cap : 128;
    char *more = realloc(g->s, cap);
    if (!more) {
      g->failed = true;
      return;
    }
    g->s = more, g->cap = cap;
  }
  g->s[g->len++] = c;
  g->s[g->len] = '\0';
}

/* Appends a statement [begin, end) with its words; false when out of memory. */
static bool add_stmt(op2_fsource *s, int *cap, size_t begin, size_t end, int line, growing *w,
                     bool directive) {
  while (w->len && w->s[w->len - 1] == ' ') w->s[--w->len] = '\0';
  if (!w->len || w->failed) {
    bool ok = !w->failed;
    free(w->s);
    memset(w, 0, sizeof *w);
    return ok;
  }
  if (s->nstmts == *cap) {
    int more_cap = *cap ? 2 * *cap : 256;
    op2_fstmt *more = realloc(s->stmts, sizeof *more * (size_t)more_cap);
    if (!more) return false;
    s->stmts = more, *cap = more_cap;
  }
  s->stmts[s->nstmts++] = (op2_fstmt){begin, end, line, w->s, directive};
  memset(w, 0, sizeof *w);
  return true;
}

static bool split(op2_fsource *s) {
  const char *t = s->text;
  size_t n = s->len, i = 0;
  int cap = 0, line = 1, first_line = 1;
  growing w = {0};
  size_t begin = 0;
  bool open = false; /* a statement is being read (continued) */
  while (i < n) {
    size_t eol = i;
    while (eol < n && t[eol] != '\n') eol++;
    size_t p = i;
    while (p < eol && (t[p] == ' ' || t[p] == '\t')) p++;
    if (!open && p < eol && t[i] == '#') { /* a preprocessor line */
      growing d = {0};
      for (size_t k = i; k < eol; k++) put(&d, t[k]);
      if (!add_stmt(s, &cap, i, eol, line, &d, true)) return false;
      i = eol + (eol < n), line++;
      continue;
    }
    if (!open) begin = i, first_line = line;
    if (open && p < eol && t[p] == '&') p++; /* the continuation's own mark */
    char quote = 0;
    bool continued = false;
    size_t last_amp = 0;
    for (size_t k = p; k < eol; k++) {
      char c = t[k];
      if (quote) {
        put(&w, c);
        if (c == quote) quote = 0;
        continue;
      }
      if (c == '!') break;
      if (c == '\'' || c == '"') {
        quote = c;
        put(&w, c);
        continue;
      }
      if (c == ';') {
        if (!add_stmt(s, &cap, begin, eol, first_line, &w, false)) return false;
        begin = i, first_line = line;
        continue;
      }
      if (c == '&') {
        continued = true;
        last_amp = w.len;
        continue;
      }
      if (isspace((unsigned char)c)) {
        if (w.len && w.s[w.len - 1] != ' ') put(&w, ' ');
        continue;
      }
      continued = false;
      put(&w, (char)tolower((unsigned char)c));
    }
    (void)last_amp;
    if (quote) continued = true; /* a string continued on the next line */
    open = continued;
    if (!open && !add_stmt(s, &cap, begin, eol, first_line, &w, false)) return false;
    if (open && w.len && w.s[w.len - 1] != ' ') put(&w, ' ');
    i = eol + (eol < n), line++;
  }
  return add_stmt(s, &cap, begin, n, first_line, &w, false) && !w.failed;
}

/* ---- words ---- */

static bool is_name_char(char c) {
  return isalnum((unsigned char)c) || c == '_';
}

/* Whether `text` begins with `word` as a whole word; *after points past it (and a blank). */
static bool word_at(const char *text, const char *word, const char **after) {
  size_t n = strlen(word);
  if (strncmp(text, word, n) != 0 || is_name_char(text[n])) return false;
  if (after) *after = text + n + (text[n] == ' ');
  return true;
}

/* A name at p (lower case already), into out; the text after it. */
static const char *name_at(const char *p, char *out, size_t len) {
  size_t k = 0;
  while (is_name_char(*p)) {
    if (k + 1 < len) out[k++] = *p;
    p++;
  }
  out[k] = '\0';
  return p;
}

/* Past a balanced parenthesised group at p ('(' there), or p when none. */
static const char *skip_parens(const char *p) {
  if (*p != '(') return p;
  int depth = 0;
  char quote = 0;
  for (; *p; p++) {
    if (quote) {
      if (*p == quote) quote = 0;
      continue;
    }
    if (*p == '\'' || *p == '"') quote = *p;
    if (*p == '(') depth++;
    if (*p == ')' && --depth == 0) return p + 1;
  }
  return p;
}

static const char *blank(const char *p) {
  return *p == ' ' ? p + 1 : p;
}

/* The intrinsic type specifications a declaration or a function's prefix may begin with. */
static const char *type_spec_end(const char *p) {
  static const char *const types[] = {"integer",
                                      "real",
                                      "complex",
                                      "logical",
                                      "character",
                                      "doubleprecision",
                                      "double precision",
                                      "doublecomplex",
                                      "double complex",
                                      "type",
                                      "class"};
  for (size_t i = 0; i < sizeof types / sizeof *types; i++) {
    const char *after;
    if (!word_at(p, types[i], &after)) continue;
    after = blank(p + strlen(types[i]));
    if ((!strcmp(types[i], "type") || !strcmp(types[i], "class")) && *after != '(') return NULL;
    if (*after == '(') return blank(skip_parens(after));
    if (*after == '*') { /* real*8 */
      after++;
      while (isdigit((unsigned char)*after)) after++;
      return blank(after);
    }
    return after;
  }
  return NULL;
}

/* A SUBROUTINE or FUNCTION statement: its kind and name. */
static bool subprogram_header(const char *norm, op2_funit_kind *kind, char *name, size_t len) {
  const char *p = norm;
  static const char *const prefixes[] = {"pure",          "impure", "elemental", "recursive",
                                         "non_recursive", "module", "simple"};
  for (bool more = true; more;) {
    more = false;
    const char *after;
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
      if (word_at(p, prefixes[i], &after)) p = after, more = true;
    const char *t = type_spec_end(p);
    if (t && t != p &&
        (word_at(t, "function", NULL) || word_at(t, "pure", NULL) ||
         word_at(t, "elemental", NULL) || word_at(t, "recursive", NULL)))
      p = t, more = true;
  }
  const char *after;
  if (word_at(p, "subroutine", &after))
    *kind = OP2_FU_SUBROUTINE;
  else if (word_at(p, "function", &after))
    *kind = OP2_FU_FUNCTION;
  else
    return false;
  const char *end = name_at(after, name, len);
  return name[0] && (*end == '\0' || *end == '(' || *end == ' ');
}

/* What an END statement closes: 0 not an END of a unit or block, 1 a unit or block. */
static bool ends_unit(const char *norm) {
  const char *after;
  if (!word_at(norm, "end", &after) && strncmp(norm, "end", 3) != 0) return false;
  if (strcmp(norm, "end") == 0) return true;
  static const char *const closes[] = {"endsubroutine", "endfunction",  "endmodule",
                                       "endprogram",    "endinterface", "endtype",
                                       "endsubmodule",  "endblockdata", "endprocedure"};
  char squeezed[64];
  size_t k = 0;
  for (const char *c = norm; *c && k + 1 < sizeof squeezed; c++)
    if (*c != ' ') squeezed[k++] = *c;
  squeezed[k] = '\0';
  for (size_t i = 0; i < sizeof closes / sizeof *closes; i++)
    if (strncmp(squeezed, closes[i], strlen(closes[i])) == 0 &&
        (strlen(norm) < 3 || !strstr(squeezed, "endtype(") /* not `end type(x)` */))
      return true;
  return false;
}

/* A block that nests like a unit but holds no subprogram of ours. */
static bool block_header(const char *norm) {
  const char *after;
  if (word_at(norm, "interface", NULL) || word_at(norm, "abstract", &after)) return true;
  if (word_at(norm, "submodule", NULL) || strncmp(norm, "block data", 10) == 0 ||
      strcmp(norm, "blockdata") == 0)
    return true;
  /* a derived-type definition: `type name`, `type :: name`, `type, bind(c) :: name` (not the
   * declaration `type(name) :: x`, nor `type is (...)` in select type) */
  if (word_at(norm, "type", &after) && norm[4] != '(' && !word_at(after, "is", NULL)) return true;
  return false;
}

static int push_unit(op2_fsource *s, int *cap, op2_funit u) {
  if (s->nunits == *cap) {
    int more_cap = *cap ? 2 * *cap : 32;
    op2_funit *more = realloc(s->units, sizeof *more * (size_t)more_cap);
    if (!more) return -1;
    s->units = more, *cap = more_cap;
  }
  s->units[s->nunits] = u;
  return s->nunits++;
}

static bool find_units(op2_fsource *s) {
  int cap = 0, stack[64], depth = 0;
  for (int i = 0; i < s->nstmts; i++) {
    const op2_fstmt *st = &s->stmts[i];
    if (st->directive) continue;
    const char *n = st->norm, *after;
    int top = depth ? stack[depth - 1] : -1;
    op2_funit u = {.first = i, .last = -1, .contains = -1, .parent = top};
    bool in_block = top >= 0 && s->units[top].kind == OP2_FU_BLOCK;
    if (ends_unit(n)) {
      if (depth) s->units[stack[--depth]].last = i;
      continue;
    }
    if (strcmp(n, "contains") == 0) {
      if (top >= 0 && s->units[top].contains < 0) s->units[top].contains = i;
      continue;
    }
    if (word_at(n, "program", &after)) {
      u.kind = OP2_FU_PROGRAM;
      name_at(after, u.name, sizeof u.name);
    } else if (word_at(n, "module", &after) && !word_at(after, "procedure", NULL) &&
               !subprogram_header(n, &u.kind, u.name, sizeof u.name)) {
      u.kind = OP2_FU_MODULE;
      name_at(after, u.name, sizeof u.name);
    } else if (!in_block && subprogram_header(n, &u.kind, u.name, sizeof u.name)) {
      /* a subprogram */
    } else if (block_header(n) || (in_block && subprogram_header(n, &u.kind, u.name, 64))) {
      u.kind = OP2_FU_BLOCK; /* an interface body nests inside its interface block too */
    } else {
      continue;
    }
    if (depth == (int)(sizeof stack / sizeof *stack)) return false;
    int k = push_unit(s, &cap, u);
    if (k < 0) return false;
    stack[depth++] = k;
  }
  return true;
}

int op2_fsource_parse(const char *name, const char *text, size_t len, op2_fsource *out) {
  memset(out, 0, sizeof *out);
  out->text = malloc(len + 1);
  if (!out->text || !(out->path = strdup(name))) {
    op2_fsource_free(out);
    return OP2_ERR_MEM;
  }
  memcpy(out->text, text, len);
  out->text[len] = '\0';
  out->len = len;
  if (!split(out) || !find_units(out)) {
    op2_fsource_free(out);
    return OP2_ERR_MEM;
  }
  return OP2_OK;
}

int op2_fsource_read(const char *path, op2_fsource *out, char *why, size_t whylen) {
  memset(out, 0, sizeof *out);
  op2_jit_error err;
  if (op2_read_regular_file(path, OP2_KERNEL_FILE_CAP, &out->text, &out->len, &err) != 0) {
    snprintf(why, whylen, "%s", err.msg);
    return OP2_ERR_IO;
  }
  if (!(out->path = strdup(path)) || !split(out) || !find_units(out)) {
    snprintf(why, whylen, "%s: out of memory or nested too deeply", path);
    op2_fsource_free(out);
    return OP2_ERR_MEM;
  }
  return OP2_OK;
}

int op2_fsource_unit(const op2_fsource *s, op2_funit_kind kind, const char *name, int parent) {
  for (int i = 0; i < s->nunits; i++)
    if (s->units[i].kind == kind && strcmp(s->units[i].name, name) == 0 &&
        (parent == -2 || s->units[i].parent == parent) && s->units[i].last >= 0)
      return i;
  return -1;
}

/* ---- statements of a specification part ---- */

bool op2_fstmt_is_use(const op2_fstmt *st) {
  return !st->directive && word_at(st->norm, "use", NULL);
}

bool op2_fstmt_is_implicit(const op2_fstmt *st) {
  return !st->directive && word_at(st->norm, "implicit", NULL);
}

void op2_fstmt_use_module(const op2_fstmt *st, char *name, size_t len) {
  name[0] = '\0';
  const char *p;
  if (st->directive || !word_at(st->norm, "use", &p)) return;
  if (*p == ',') { /* use, intrinsic :: x / use, non_intrinsic :: x */
    const char *c = strstr(p, "::");
    if (!c) return;
    p = blank(c + 2);
  } else if (p[0] == ':' && p[1] == ':') {
    p = blank(p + 2);
  }
  name_at(p, name, len);
}

bool op2_fstmt_type_decl(const op2_fstmt *st, char *type, size_t tlen, const char **rest) {
  if (st->directive) return false;
  const char *end = type_spec_end(st->norm);
  if (!end || word_at(end, "function", NULL)) return false;
  size_t n = (size_t)(end - st->norm);
  while (n && st->norm[n - 1] == ' ') n--;
  if (n >= tlen) return false;
  memcpy(type, st->norm, n);
  type[n] = '\0';
  *rest = end;
  return **rest == ',' || **rest == ':' || is_name_char(**rest);
}

int op2_fdecl_entities(const char *rest, char *attrs, size_t alen, op2_fentity *out, int max) {
  const char *colons = strstr(rest, "::"), *p = rest;
  attrs[0] = '\0';
  if (colons) {
    size_t n = (size_t)(colons - rest);
    while (n && rest[n - 1] == ' ') n--;
    if (n < alen) memcpy(attrs, rest, n), attrs[n] = '\0';
    p = blank(colons + 2);
  }
  int count = 0;
  while (*p && count < max) {
    const char *start = p;
    int depth = 0;
    char quote = 0;
    for (; *p; p++) {
      if (quote) {
        if (*p == quote) quote = 0;
        continue;
      }
      if (*p == '\'' || *p == '"') quote = *p;
      if (*p == '(' || *p == '[') depth++;
      if (*p == ')' || *p == ']') depth--;
      if (*p == ',' && depth == 0) break;
    }
    size_t n = (size_t)(p - start);
    while (n && start[n - 1] == ' ') n--;
    op2_fentity *e = &out[count];
    snprintf(e->text, sizeof e->text, "%.*s", (int)n, start);
    name_at(start, e->name, sizeof e->name);
    if (e->name[0]) count++;
    if (*p == ',') p = blank(p + 1);
  }
  return count;
}

int op2_fstmt_dummies(const op2_fstmt *st, char (*names)[64], int max) {
  const char *p = strchr(st->norm, '(');
  int n = 0;
  if (!p) return 0;
  for (p++; *p && *p != ')' && n < max;) {
    p = blank(p);
    p = name_at(p, names[n], 64);
    if (names[n][0]) n++;
    while (*p && *p != ',' && *p != ')') p++;
    if (*p == ',') p++;
  }
  return n;
}

int op2_fstmt_identifiers(const char *norm, char (*out)[64], int max) {
  int n = 0;
  char quote = 0;
  for (const char *p = norm; *p;) {
    if (quote) {
      if (*p == quote) quote = 0;
      p++;
      continue;
    }
    if (*p == '\'' || *p == '"') {
      quote = *p++;
      continue;
    }
    /* a name: not a number's exponent (1.0e5_8) nor a kind after '_' */
    if ((isalpha((unsigned char)*p)) && (p == norm || !is_name_char(p[-1])) &&
        !(p > norm && p[-1] == '.' && p > norm + 1 && isdigit((unsigned char)p[-2]))) {
      char name[64];
      p = name_at(p, name, sizeof name);
      bool seen = false;
      for (int k = 0; k < n && !seen; k++) seen = strcmp(out[k], name) == 0;
      if (!seen && n < max) snprintf(out[n++], 64, "%s", name);
      continue;
    }
    p++;
  }
  return n;
}

int op2_fcall_args(const char *open, char (*out)[64], int max) {
  if (*open != '(') return 0;
  int n = 0, depth = 0;
  char quote = 0;
  const char *start = open + 1;
  for (const char *p = open + 1; *p && n < max; p++) {
    if (quote) {
      if (*p == quote) quote = 0;
      continue;
    }
    if (*p == '\'' || *p == '"') quote = *p;
    if (*p == '(' || *p == '[') depth++;
    if ((*p == ')' || *p == ']') && depth > 0) {
      depth--;
      continue;
    }
    if ((*p == ',' && depth == 0) || (*p == ')' && depth == 0)) {
      const char *b = start, *e = p;
      while (b < e && *b == ' ') b++;
      while (e > b && e[-1] == ' ') e--;
      snprintf(out[n++], 64, "%.*s", (int)(e - b), b);
      start = p + 1;
      if (*p == ')') break;
    }
  }
  return n;
}
