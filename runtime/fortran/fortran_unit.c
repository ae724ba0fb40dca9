/* SPDX-License-Identifier: BSD-3-Clause */
/* The optimised tier's inputs for a Fortran kernel (jit/fortran_unit.h), found in the program's
 * own source files. Where: the directories of OP2_KERNEL_PATH, the current directory and the
 * executable's; which files: those the program's symbol table names (STT_FILE: every source file
 * it was compiled from), then any free-form Fortran file there. What:
 *   - a module procedure (__MODULE_MOD_NAME): its text inside its module, the module's USE and
 *     IMPLICIT statements (the loop uses the module itself for its public names);
 *   - an internal procedure of the main program (a local "name.N" symbol, its file named by the
 *     symbol table): its text, the program's USE and IMPLICIT statements, the program's
 *     parameters it names (copied), and the program's variables it reads, bound to the program's
 *     own by the addresses op_decl_const was given (matched to the program's op_decl_const
 *     statements in order: one statement per call site, call sites in code order);
 *   - the source of every module those statements use (its own uses first), compiled only for
 *     its .mod file.
 * Every name the kernel uses must be declared (IMPLICIT NONE in the kernel, its module or host):
 * otherwise a name of the host would silently become a local of the copy. Conditional
 * preprocessor lines are dropped from copied statements and module sources (all branches kept,
 * so a definition in two branches is a compile error, never the other branch silently); a kernel
 * with conditional lines of its own is not copied. Whatever is missing or not understood leaves
 * the kernel on its first tier, and why is said once (fortran_loop.c). */
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/fortran/fortran.h"
#include "base/fortran_source.h"
#include "runtime/context.h"
#include "runtime/options.h"
#include "base/fortran_unit.h"

enum { MAX_DIRS = 16, MAX_NAMES = 512, MAX_MODULES = 64, MAX_HOST = 64 };

/* What a search has found and read, for one kernel. */
typedef struct search {
  op2_context *ctx;
  op2_fortran_kernel *k;
  char dirs[MAX_DIRS][PATH_MAX];
  int ndirs;
  char *program_files; /* the symbol table's source file names, '\n'-separated */
  op2_fsource *files;  /* read so far */
  int nfiles, cap;
  char why[1024]; /* why the unit cannot be made */
} search;

static bool fail(search *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(search *s, const char *fmt, ...) {
  if (s->why[0]) return false;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->why, sizeof s->why, fmt, ap);
  va_end(ap);
  return false;
}

/* ---- where ---- */

static void add_dir(search *s, const char *dir, size_t len) {
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%.*s", (int)len, dir);
  char *real = realpath(path, NULL);
  if (!real) return;
  for (int i = 0; i < s->ndirs; i++)
    if (strcmp(s->dirs[i], real) == 0) {
      free(real);
      return;
    }
  if (s->ndirs < MAX_DIRS && strlen(real) < PATH_MAX)
    snprintf(s->dirs[s->ndirs++], PATH_MAX, "%s", real);
  free(real);
}

static void find_dirs(search *s) {
  for (const char *p = s->ctx->opt.kernel_path; *p;) {
    const char *end = strchr(p, ':');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    if (n) add_dir(s, p, n);
    p += n + (end != NULL);
  }
  add_dir(s, ".", 1);
  const char *object = s->k->where.object;
  const char *slash = strrchr(object, '/');
  if (slash) add_dir(s, object, (size_t)(slash - object));
}

static bool fortran_free_form(const char *name) {
  const char *dot = strrchr(name, '.');
  static const char *const exts[] = {".f90", ".F90", ".f95", ".F95",
                                     ".f03", ".F03", ".f08", ".F08"};
  for (size_t i = 0; dot && i < sizeof exts / sizeof *exts; i++)
    if (strcmp(dot, exts[i]) == 0) return true;
  return false;
}

/* The parsed file at `path` (read once per search), or NULL. */
static op2_fsource *source_at(search *s, const char *path) {
  char *real = realpath(path, NULL);
  if (!real) return NULL;
  for (int i = 0; i < s->nfiles; i++)
    if (strcmp(s->files[i].path, real) == 0) {
      free(real);
      return &s->files[i];
    }
  if (s->nfiles == s->cap) {
    int cap = s->cap ? 2 * s->cap : 16;
    op2_fsource *more = realloc(s->files, sizeof *more * (size_t)cap);
    if (!more) return free(real), NULL;
    s->files = more, s->cap = cap;
  }
  char why[512];
  op2_fsource *f = &s->files[s->nfiles];
  int rc = op2_fsource_read(real, f, why, sizeof why);
  free(real);
  if (rc != 0) return NULL;
  s->nfiles++;
  return f;
}

/* Calls found(file, arg) for each free-form Fortran file of the search, the program's own first;
 * stops when it returns true. */
static op2_fsource *each_file(search *s, bool (*found)(op2_fsource *, void *), void *arg) {
  char path[PATH_MAX * 2];
  for (int d = 0; d < s->ndirs; d++)
    for (const char *n = s->program_files; n && *n;) {
      const char *end = strchr(n, '\n');
      size_t len = end ? (size_t)(end - n) : strlen(n);
      snprintf(path, sizeof path, "%s/%.*s", s->dirs[d], (int)len, n);
      n += len + (end != NULL);
      op2_fsource *f =
          fortran_free_form(path) && access(path, R_OK) == 0 ? source_at(s, path) : NULL;
      if (f && found(f, arg)) return f;
    }
  for (int d = 0; d < s->ndirs; d++) {
    DIR *dir = opendir(s->dirs[d]);
    for (struct dirent *e; dir && (e = readdir(dir));) {
      if (!fortran_free_form(e->d_name)) continue;
      snprintf(path, sizeof path, "%s/%s", s->dirs[d], e->d_name);
      op2_fsource *f = source_at(s, path);
      if (f && found(f, arg)) {
        closedir(dir);
        return f;
      }
    }
    if (dir) closedir(dir);
  }
  return NULL;
}

typedef struct unit_query {
  op2_funit_kind kind;
  const char *name;
  int unit; /* found */
} unit_query;

static bool has_module(op2_fsource *f, void *arg) {
  unit_query *q = arg;
  q->unit = op2_fsource_unit(f, OP2_FU_MODULE, q->name, -2);
  return q->unit >= 0;
}

/* ---- text ---- */

typedef struct text {
  char *s;
  size_t len, cap;
  bool failed;
} text;

static void add(text *t, const char *s, size_t n) {
  if (t->failed) return;
  if (t->len + n + 2 > t->cap) {
    size_t cap = (t->len + n + 2) * 2;
    char *more = realloc(t->s, cap);
    if (!more) {
      t->failed = true;
      return;
    }
    t->s = more, t->cap = cap;
  }
  memcpy(t->s + t->len, s, n);
  t->len += n;
  t->s[t->len] = '\0';
}

static void addf(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void addf(text *t, const char *fmt, ...) {
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n >= (int)sizeof buf) t->failed = true;
  if (n > 0) add(t, buf, (size_t)n);
}

/* A statement's lines as the file holds them, ending with a newline. */
static void add_statement(text *t, const op2_fsource *f, const op2_fstmt *st) {
  add(t, f->text + st->begin, st->end - st->begin);
  add(t, "\n", 1);
}

static bool conditional(const op2_fstmt *st) {
  if (!st->directive) return false;
  const char *p = st->norm + 1;
  while (*p == ' ') p++;
  return strncmp(p, "if", 2) == 0 || strncmp(p, "el", 2) == 0 || strncmp(p, "endif", 5) == 0;
}

/* Statements [first, last] as the file holds them, conditional preprocessor lines left out. */
static void add_range(text *t, const op2_fsource *f, int first, int last) {
  for (int i = first; i <= last; i++) {
    const op2_fstmt *st = &f->stmts[i];
    if (conditional(st)) continue;
    /* statements sharing a line (`a; b`) share its bytes: the line once */
    if (i > first && st->begin == f->stmts[i - 1].begin) continue;
    add_statement(t, f, st);
  }
}

/* ---- the modules the loop needs ---- */

static bool provided_module(const char *name) {
  static const char *const known[] = {"iso_c_binding",
                                      "iso_fortran_env",
                                      "ieee_arithmetic",
                                      "ieee_exceptions",
                                      "ieee_features",
                                      "omp_lib",
                                      "omp_lib_kinds",
                                      "openacc",
                                      "mpi",
                                      "mpi_f08",
                                      "op2_fortran_declarations",
                                      "op2_fortran_reference",
                                      "op2_fortran_rt_support",
                                      "op2_fortran_hdf5_declarations"};
  for (size_t i = 0; i < sizeof known / sizeof *known; i++)
    if (strcmp(name, known[i]) == 0) return true;
  return false;
}

typedef struct modules {
  char done[MAX_MODULES][64];
  int ndone;
  char visiting[MAX_MODULES][64];
  int nvisiting;
  text source;
} modules;

static bool seen(char (*list)[64], int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp(list[i], name) == 0) return true;
  return false;
}

/* Module `name` and the modules it uses, each after those it uses, into m->source. */
static bool need_module(search *s, modules *m, const char *name);

/* The modules every USE statement of statements [first, last] of f names. */
static bool need_uses(search *s, modules *m, const op2_fsource *f, int first, int last) {
  for (int i = first; i <= last; i++) {
    char used[64];
    op2_fstmt_use_module(&f->stmts[i], used, sizeof used);
    if (used[0] && !strstr(f->stmts[i].norm, "intrinsic ::") && !need_module(s, m, used))
      return false;
  }
  return true;
}

static bool need_module(search *s, modules *m, const char *name) {
  if (provided_module(name) || seen(m->done, m->ndone, name)) return true;
  if (seen(m->visiting, m->nvisiting, name) || m->nvisiting == MAX_MODULES)
    return fail(s, "module %s uses itself, or modules nest too deeply", name);
  unit_query q = {OP2_FU_MODULE, name, -1};
  op2_fsource *f = each_file(s, has_module, &q);
  if (!f) return fail(s, "the source of module %s was not found", name);
  snprintf(m->visiting[m->nvisiting++], 64, "%s", name);
  const op2_funit *u = &f->units[q.unit];
  bool ok = need_uses(s, m, f, u->first, u->last);
  m->nvisiting--;
  if (!ok) return false;
  addf(&m->source, "! module %s, from %s\n", name, strrchr(f->path, '/') + 1);
  add_range(&m->source, f, u->first, u->last);
  if (m->ndone < MAX_MODULES) snprintf(m->done[m->ndone++], 64, "%s", name);
  return true;
}

/* ---- names ---- */

/* The names a subprogram declares itself: its dummies, its result, and every entity of its type
 * declarations and attribute statements. */
static int local_names(const op2_fsource *f, const op2_funit *u, char (*names)[64], int max) {
  int n = op2_fstmt_dummies(&f->stmts[u->first], names, max);
  snprintf(names[n < max ? n++ : max - 1], 64, "%s", u->name);
  int end = u->contains >= 0 ? u->contains : u->last;
  for (int i = u->first + 1; i < end && n < max; i++) {
    const op2_fstmt *st = &f->stmts[i];
    char type[128], attrs[256];
    const char *rest;
    op2_fentity ents[64];
    int ne = 0;
    if (op2_fstmt_type_decl(st, type, sizeof type, &rest))
      ne = op2_fdecl_entities(rest, attrs, sizeof attrs, ents, 64);
    else if (!strncmp(st->norm, "dimension", 9) || !strncmp(st->norm, "parameter", 9) ||
             !strncmp(st->norm, "intent", 6) || !strncmp(st->norm, "external", 8) ||
             !strncmp(st->norm, "save", 4) || !strncmp(st->norm, "target", 6))
      ne = op2_fdecl_entities(strchr(st->norm, ' ') ? strchr(st->norm, ' ') + 1 : "", attrs,
                              sizeof attrs, ents, 64);
    for (int e = 0; e < ne && n < max; e++)
      if (!seen(names, n, ents[e].name)) snprintf(names[n++], 64, "%s", ents[e].name);
  }
  return n;
}

static bool has_implicit_none(const op2_fsource *f, int first, int last) {
  for (int i = first; i <= last; i++)
    if (op2_fstmt_is_implicit(&f->stmts[i]) && strstr(f->stmts[i].norm, "none")) return true;
  return false;
}

/* ---- the host's entities (an internal procedure's program) ---- */

typedef struct host_entity {
  char name[64];
  char type[128];
  char attrs[256];
  char text[1024];
  bool parameter;
  int stmt;
} host_entity;

typedef struct host {
  host_entity *e;
  int n;
} host;

static int host_entities(const op2_fsource *f, const op2_funit *u, host *h) {
  int end = u->contains >= 0 ? u->contains : u->last, cap = 0;
  h->e = NULL, h->n = 0;
  for (int i = u->first + 1; i < end; i++) {
    char type[128], attrs[256];
    const char *rest;
    op2_fentity ents[64];
    if (!op2_fstmt_type_decl(&f->stmts[i], type, sizeof type, &rest)) continue;
    int ne = op2_fdecl_entities(rest, attrs, sizeof attrs, ents, 64);
    for (int k = 0; k < ne; k++) {
      if (h->n == cap) {
        cap = cap ? 2 * cap : 32;
        host_entity *more = realloc(h->e, sizeof *more * (size_t)cap);
        if (!more) return -1;
        h->e = more;
      }
      host_entity *e = &h->e[h->n++];
      snprintf(e->name, sizeof e->name, "%s", ents[k].name);
      snprintf(e->type, sizeof e->type, "%s", type);
      snprintf(e->attrs, sizeof e->attrs, "%s", attrs);
      snprintf(e->text, sizeof e->text, "%s", ents[k].text);
      e->parameter = strstr(attrs, "parameter") != NULL;
      e->stmt = i;
    }
  }
  return 0;
}

static const host_entity *host_find(const host *h, const char *name) {
  for (int i = 0; i < h->n; i++)
    if (strcmp(h->e[i].name, name) == 0) return &h->e[i];
  return NULL;
}

/* The host's parameters `text` names, each with those it names first, into ctx (once). */
static void need_parameters(const host *h, const char *words, text *out, char (*done)[64],
                            int *ndone) {
  char ids[MAX_NAMES][64];
  int n = op2_fstmt_identifiers(words, ids, MAX_NAMES);
  for (int i = 0; i < n; i++) {
    const host_entity *e = host_find(h, ids[i]);
    if (!e || !e->parameter || seen(done, *ndone, e->name) || *ndone >= MAX_NAMES) continue;
    snprintf(done[(*ndone)++], 64, "%s", e->name);
    const char *value = strchr(e->text, '=');
    if (value) need_parameters(h, value, out, done, ndone);
    addf(out, "%s, %s :: %s\n", e->type, e->attrs, e->text);
  }
}

/* ---- the program's variables by address ---- */

/* The op_decl_const statements of the host: their first argument's name, dim and type text. */
typedef struct decl_call {
  char name[64];
  char dim[32];
  char type[64];
} decl_call;

static int decl_calls(const op2_fsource *f, const op2_funit *u, decl_call *out, int max) {
  int n = 0, end = u->contains >= 0 ? u->contains : u->last;
  for (int i = u->first + 1; i < end && n < max; i++) {
    const char *p = f->stmts[i].norm;
    if (strncmp(p, "call op_decl_const", 18) != 0) continue;
    p += 18;
    while (*p == ' ') p++;
    if (*p != '(') continue;
    char argv[3][64];
    int na = op2_fcall_args(p, argv, 3);
    decl_call *c = &out[n++];
    memset(c, 0, sizeof *c);
    if (na > 0) snprintf(c->name, sizeof c->name, "%s", argv[0]);
    for (const char *q = c->name; *q; q++) /* a variable's name, nothing else */
      if (!isalnum((unsigned char)*q) && *q != '_') c->name[0] = '\0';
    if (na > 1) snprintf(c->dim, sizeof c->dim, "%s", argv[1]);
    if (na > 2) snprintf(c->type, sizeof c->type, "%s", argv[2]);
  }
  return n;
}

static int by_site(const void *a, const void *b) {
  const op2_fortran_const *x = *(op2_fortran_const *const *)a, *y = *(op2_fortran_const *const *)b;
  return x->site < y->site ? -1 : x->site > y->site;
}

/* The address of the host's variable `name`, declared by one of the host's op_decl_const
 * statements: the k-th statement in the text is the k-th call site in the host's code. */
static void *declared_address(search *s, const op2_fsource *f, const op2_funit *host_unit,
                              const char *name) {
  decl_call calls[MAX_HOST];
  int ncalls = decl_calls(f, host_unit, calls, MAX_HOST), k = -1;
  for (int i = 0; i < ncalls && k < 0; i++)
    if (strcmp(calls[i].name, name) == 0) k = i;
  if (k < 0) {
    fail(s, "it reads the program's variable %s, which no op_decl_const statement declares", name);
    return NULL;
  }
  op2_fortran *f90 = s->ctx->fortran;
  const op2_fortran_const *sites[MAX_HOST];
  int nsites = 0;
  char host_symbol[256] = "";
  for (int i = 0; f90 && i < f90->nconsts; i++) {
    char sym[256];
    op2_symbol_containing(f90->consts[i].site, sym, sizeof sym);
    if (strcmp(sym, "MAIN__") != 0) continue; /* declared elsewhere than in the program */
    snprintf(host_symbol, sizeof host_symbol, "%s", sym);
    bool dup = false;
    for (int j = 0; j < nsites && !dup; j++) dup = sites[j]->site == f90->consts[i].site;
    if (!dup && nsites < MAX_HOST) sites[nsites++] = &f90->consts[i];
  }
  if (nsites != ncalls) {
    fail(s,
         "it reads the program's variable %s: the program's %d op_decl_const statements and the "
         "%d calls made so far from it cannot be matched",
         name, ncalls, nsites);
    return NULL;
  }
  qsort(sites, (size_t)nsites, sizeof *sites, by_site);
  for (int i = 0; i < ncalls; i++) { /* every pair must agree, or the order is not the text's */
    char want[32];
    snprintf(want, sizeof want, "%d", sites[i]->dim);
    op2_type t;
    if (strcmp(calls[i].dim, want) != 0 ||
        op2_fortran_type_of(calls[i].type + 1, strlen(calls[i].type) - 2, &t) != OP2_OK ||
        t != sites[i]->type) {
      fail(s,
           "it reads the program's variable %s: op_decl_const statement %d (%s, %s, %s) does not "
           "match the call it should be",
           name, i + 1, calls[i].name, calls[i].dim, calls[i].type);
      return NULL;
    }
  }
  return sites[k]->data;
}

/* ---- the unit ---- */

typedef struct found {
  op2_fsource *file;
  int unit;
} found;

static bool has_internal(op2_fsource *f, void *arg) {
  unit_query *q = arg;
  int hits = 0;
  for (int i = 0; i < f->nunits; i++) {
    const op2_funit *u = &f->units[i];
    if ((u->kind == OP2_FU_SUBROUTINE || u->kind == OP2_FU_FUNCTION) &&
        strcmp(u->name, q->name) == 0 && u->parent >= 0 &&
        f->units[u->parent].kind != OP2_FU_MODULE && f->units[u->parent].kind != OP2_FU_BLOCK)
      hits++, q->unit = i;
  }
  if (hits > 1) q->unit = -2; /* several internal procedures of that name: which one is unknown */
  return hits > 0;
}

static bool kernel_text(search *s, const op2_fsource *f, const op2_funit *u,
                        op2_fortran_unit *out) {
  if (u->contains >= 0)
    return fail(s, "it has internal procedures of its own (a copy cannot nest them)");
  for (int i = u->first; i <= u->last; i++)
    if (f->stmts[i].directive)
      return fail(s, "it has preprocessor lines (%s:%d), whose definitions are unknown here",
                  strrchr(f->path, '/') + 1, f->stmts[i].line);
  size_t begin = f->stmts[u->first].begin, end = f->stmts[u->last].end;
  out->kernel = malloc(end - begin + 2);
  if (!out->kernel) return fail(s, "out of memory");
  memcpy(out->kernel, f->text + begin, end - begin);
  out->kernel[end - begin] = '\n';
  out->kernel[end - begin + 1] = '\0';
  snprintf(out->file, sizeof out->file, "%s", strrchr(f->path, '/') + 1);
  out->line = f->stmts[u->first].line;
  snprintf(out->procedure, sizeof out->procedure, "%s", u->name);
  return true;
}

/* The USE and IMPLICIT statements of unit u's specification part. */
static void context_statements(const op2_fsource *f, const op2_funit *u, text *out) {
  int end = u->contains >= 0 ? u->contains : u->last;
  for (int i = u->first + 1; i < end; i++)
    if (op2_fstmt_is_use(&f->stmts[i]) || op2_fstmt_is_implicit(&f->stmts[i]))
      add_statement(out, f, &f->stmts[i]);
}

static bool module_kernel(search *s, op2_fortran_unit *out, modules *m, text *ctx) {
  const op2_fortran_kernel *k = s->k;
  unit_query q = {OP2_FU_MODULE, k->module, -1};
  op2_fsource *f = each_file(s, has_module, &q);
  if (!f) return fail(s, "the source of module %s was not found", k->module);
  const op2_funit *mod = &f->units[q.unit];
  int u = op2_fsource_unit(f, OP2_FU_SUBROUTINE, k->procedure, q.unit);
  if (u < 0)
    return fail(s, "module %s (%s) has no subroutine %s", k->module, f->path, k->procedure);
  const op2_funit *proc = &f->units[u];
  if (!kernel_text(s, f, proc, out)) return false;
  if (!has_implicit_none(f, mod->first, mod->contains >= 0 ? mod->contains : mod->last) &&
      !has_implicit_none(f, proc->first, proc->last))
    return fail(s,
                "neither it nor module %s says IMPLICIT NONE (a name it does not declare "
                "could be the module's)",
                k->module);
  out->kind = 'm';
  snprintf(out->module, sizeof out->module, "%s", k->module);
  addf(ctx, "use %s\n", k->module);
  context_statements(f, mod, ctx);
  return need_module(s, m, k->module) &&
         need_uses(s, m, f, mod->first, mod->contains >= 0 ? mod->contains : mod->last);
}

static bool internal_names(search *s, const op2_fsource *f, const op2_funit *proc,
                           const op2_funit *hostu, const host *hp, char (*locals)[64],
                           char (*used)[64], char (*params)[64], op2_fortran_unit *out, text *ctx);

static bool internal_kernel(search *s, op2_fortran_unit *out, modules *m, text *ctx) {
  const op2_fortran_kernel *k = s->k;
  unit_query q = {OP2_FU_SUBROUTINE, k->procedure, -1};
  op2_fsource *f = each_file(s, has_internal, &q);
  if (!f) return fail(s, "no source file holds an internal subroutine %s", k->procedure);
  if (q.unit == -2) return fail(s, "%s has several internal subroutines %s", f->path, k->procedure);
  const op2_funit *proc = &f->units[q.unit], *hostu = &f->units[proc->parent];
  if (hostu->kind != OP2_FU_PROGRAM)
    return fail(s,
                "its host %s is not the main program (only the program's internal procedures "
                "are built)",
                hostu->name);
  if (!kernel_text(s, f, proc, out)) return false;
  int host_end = hostu->contains >= 0 ? hostu->contains : hostu->last;
  if (!has_implicit_none(f, hostu->first, host_end) &&
      !has_implicit_none(f, proc->first, proc->last))
    return fail(s,
                "neither it nor program %s says IMPLICIT NONE (a name it does not declare "
                "could be the program's)",
                hostu->name);
  out->kind = 'i';
  context_statements(f, hostu, ctx);
  if (!need_uses(s, m, f, hostu->first, host_end)) return false;

  host h;
  typedef char name_list[MAX_NAMES][64];
  name_list *locals = malloc(sizeof *locals), *used = malloc(sizeof *used),
            *params = malloc(sizeof *params);
  if (!locals || !used || !params || host_entities(f, hostu, &h) != 0) {
    free(locals), free(used), free(params);
    return fail(s, "out of memory");
  }
  bool ok = internal_names(s, f, proc, hostu, &h, *locals, *used, *params, out, ctx);
  free(h.e);
  free(locals), free(used), free(params);
  return ok;
}

/* The program's entities the kernel names: parameters copied into ctx, variables bound by
 * address (out->host_*, k->host_addrs); anything else of the program it names is refused. */
static bool internal_names(search *s, const op2_fsource *f, const op2_funit *proc,
                           const op2_funit *hostu, const host *hp, char (*locals)[64],
                           char (*used)[64], char (*params)[64], op2_fortran_unit *out, text *ctx) {
  const host h = *hp;
  int nlocal = local_names(f, proc, locals, MAX_NAMES), nused = 0, nparams = 0;
  for (int i = proc->first + 1; i <= proc->last && nused < MAX_NAMES; i++) {
    char ids[MAX_NAMES][64];
    int n = op2_fstmt_identifiers(f->stmts[i].norm, ids, MAX_NAMES);
    for (int j = 0; j < n && nused < MAX_NAMES; j++)
      if (!seen(locals, nlocal, ids[j]) && !seen(used, nused, ids[j]))
        snprintf(used[nused++], 64, "%s", ids[j]);
  }
  bool ok = true;
  out->host_names = calloc(MAX_HOST, sizeof *out->host_names);
  out->host_decls = calloc(MAX_HOST, sizeof *out->host_decls);
  if (!out->host_names || !out->host_decls) ok = fail(s, "out of memory");
  for (int i = 0; ok && i < nused; i++) {
    for (int u = 0; u < f->nunits; u++)
      if (f->units[u].parent == proc->parent && strcmp(f->units[u].name, used[i]) == 0)
        ok = fail(s, "it calls %s, another internal procedure of the program", used[i]);
    const host_entity *e = host_find(&h, used[i]);
    if (!ok || !e) continue;
    if (e->parameter) {
      need_parameters(&h, e->name, ctx, params, &nparams);
      continue;
    }
    if (strstr(e->attrs, "allocatable") || strstr(e->attrs, "pointer") || strchr(e->text, ':') ||
        strchr(e->text, '*') || out->nhost == MAX_HOST) {
      ok = fail(s, "it reads the program's variable %s, which is not of a fixed size", e->name);
      continue;
    }
    void *addr = declared_address(s, f, hostu, e->name);
    if (!addr) {
      ok = false;
      continue;
    }
    /* the declaration, without an initial value, the attributes a dummy argument may have */
    char entity[1024];
    snprintf(entity, sizeof entity, "%s", e->text);
    char *eq = strchr(entity, '=');
    if (eq) *eq = '\0';
    char dims[256] = "";
    const char *d = strstr(e->attrs, "dimension");
    if (d) {
      const char *open = strchr(d, '(');
      int depth = 0;
      const char *c = open;
      for (; c && *c; c++) {
        if (*c == '(') depth++;
        if (*c == ')' && --depth == 0) break;
      }
      if (open && c && *c)
        snprintf(dims, sizeof dims, ", dimension%.*s", (int)(c - open + 1), open);
    }
    char decl[2048];
    snprintf(decl, sizeof decl, "%s%s :: %s", e->type, dims, entity);
    int n = out->nhost;
    out->host_names[n] = strdup(e->name);
    out->host_decls[n] = strdup(decl);
    if (!out->host_names[n] || !out->host_decls[n]) {
      ok = fail(s, "out of memory");
      continue;
    }
    out->nhost++;
    need_parameters(&h, decl, ctx, params, &nparams); /* kinds and bounds it names */
    s->k->host_addrs[n] = addr;
  }
  return ok;
}

int op2_fortran_unit_make(op2_context *ctx, op2_fortran_kernel *k, op2_fortran_unit **out,
                          op2_jit_error *failure) {
  *out = NULL;
  search *s = calloc(1, sizeof *s);
  op2_fortran_unit *u = calloc(1, sizeof *u);
  if (!s || !u) {
    free(s), free(u);
    return op2_jit_error_set(failure, OP2_ERR_MEM, "out of memory");
  }
  s->ctx = ctx, s->k = k;
  find_dirs(s);
  s->program_files = op2_program_source_files(k->where.object);
  modules m = {0};
  text ctx_text = {0};
  bool ok = k->kind == 'm'   ? module_kernel(s, u, &m, &ctx_text)
            : k->kind == 'i' ? internal_kernel(s, u, &m, &ctx_text)
                             : fail(s,
                                    "it is neither a module procedure nor an internal "
                                    "procedure of the program (symbol %s)",
                                    k->where.symbol[0] ? k->where.symbol : "unknown");
  text dirs = {0};
  for (int i = 0; i < s->ndirs; i++) addf(&dirs, "%s%s", i ? ":" : "", s->dirs[i]);
  if (ok && (m.source.failed || ctx_text.failed || dirs.failed)) ok = fail(s, "out of memory");
  if (ok) {
    u->context = ctx_text.s ? ctx_text.s : strdup("");
    u->interfaces = m.source.s ? m.source.s : strdup("");
    u->include_dirs = dirs.s ? dirs.s : strdup("");
    ctx_text.s = m.source.s = dirs.s = NULL;
    if (!u->context || !u->interfaces || !u->include_dirs) ok = fail(s, "out of memory");
  }
  if (!ok && !s->why[0]) fail(s, "its source could not be read");
  if (!ok) op2_jit_error_set(failure, OP2_ERR_ARG, "%s", s->why);
  free(ctx_text.s), free(m.source.s), free(dirs.s);
  for (int i = 0; i < s->nfiles; i++) op2_fsource_free(&s->files[i]);
  free(s->files), free(s->program_files), free(s);
  if (!ok) {
    op2_fortran_unit_free(u);
    return OP2_ERR_ARG;
  }
  *out = u;
  return OP2_OK;
}

void op2_fortran_unit_free(op2_fortran_unit *u) {
  if (!u) return;
  for (int i = 0; i < u->nhost; i++) free(u->host_names[i]), free(u->host_decls[i]);
  free(u->host_names), free(u->host_decls);
  free(u->kernel), free(u->context), free(u->interfaces), free(u->include_dirs);
  free(u);
}
