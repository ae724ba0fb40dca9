/* SPDX-License-Identifier: BSD-3-Clause */
/* The source of a kernel passed as a function (OP2's op_par_loop(res, "res", ...)), found where
 * OP2's programs keep it: its own header NAME.h, a header the calling file includes (several
 * kernels in one kernels.h), or the calling file itself. Directories are searched in order:
 * OP2_KERNEL_PATH, the current directory, the calling file's directory (__FILE__, which may be
 * relative to where the program was built), that directory under the executable's directory or
 * one of its parents (where the calling file is), the executable's own directory: so a program
 * run from elsewhere still finds its kernels. The text compiled is
 * self-contained: the app's user_types.h (found the same way) comes first, as OP2's translator
 * puts it before every kernel, and every `#include "x.h"` is replaced by the file's text, found as
 * a compiler finds it: beside the file that includes it, then in OP2_KERNEL_PATH's directories
 * (the program's -I directories); so what those files hold is part of the kernel's text, hence
 * of its cache key. Each file enters the text once, as #pragma once would have it: the files read
 * only while looking for the kernel's definition are not in the text until an included file
 * includes them. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "base/file_io.h"
#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/options.h"
#include "runtime/kernel_source.h"

enum { MAX_DIRS = 16, MAX_DEPTH = 16, MAX_CALLER_DEPTH = 4, MAX_MISSING = 8 };

/* Files, by real path. */
typedef struct path_set {
  int n, cap;
  char **path;
} path_set;

typedef struct search {
  int ndirs;
  int nkernel_path; /* dirs[0, nkernel_path): OP2_KERNEL_PATH's, also for quoted includes */
  char dirs[MAX_DIRS][OP2_PATH_MAX];
  path_set in_text; /* files whose text is in the kernel's text: each enters it once */
  path_set read;    /* files read while looking for the kernel's definition */
  int nmissing;     /* quoted includes met on the way and found nowhere, for the message */
  op2_buf missing;
  int context; /* expanding the C++ tier's context: a header found nowhere is left out */
} search;

static int set_has(const path_set *set, const char *real) {
  for (int i = 0; i < set->n; i++)
    if (strcmp(set->path[i], real) == 0) return 1;
  return 0;
}

/* Out of memory, the file is not recorded: at worst it is read twice (include guards hold). */
static void set_add(path_set *set, const char *real) {
  if (set->n == set->cap) {
    int cap = set->cap ? 2 * set->cap : 16;
    char **p = realloc(set->path, (size_t)cap * sizeof *p);
    if (!p) return;
    set->path = p, set->cap = cap;
  }
  if ((set->path[set->n] = strdup(real)) != NULL) set->n++;
}

static void search_free(search *s) {
  if (!s) return;
  for (int i = 0; i < s->in_text.n; i++) free(s->in_text.path[i]);
  for (int i = 0; i < s->read.n; i++) free(s->read.path[i]);
  free(s->in_text.path), free(s->read.path);
  op2_buf_free(&s->missing);
  free(s);
}

static void add_dir(search *s, const char *dir, size_t len) {
  char abs[OP2_PATH_MAX];
  snprintf(abs, sizeof abs, "%.*s", (int)len, dir);
  char *real = realpath(abs, NULL); /* only directories that exist, each once */
  if (!real) return;
  for (int i = 0; i < s->ndirs; i++)
    if (strcmp(s->dirs[i], real) == 0) {
      free(real);
      return;
    }
  if (s->ndirs < MAX_DIRS && strlen(real) < OP2_PATH_MAX)
    memcpy(s->dirs[s->ndirs++], real, strlen(real) + 1);
  free(real);
}

/* The directory part of `path` ("" when it has none), into `dir`. */
static void dir_of(const char *path, char *dir, size_t size) {
  const char *slash = strrchr(path, '/');
  snprintf(dir, size, "%.*s", slash ? (int)(slash - path) : 0, path);
  if (slash == path) snprintf(dir, size, "/");
}

/* OP2_KERNEL_PATH's directories: the first searched. */
static void kernel_path_dirs(search *s, const char *kernel_path) {
  for (const char *dir = kernel_path; *dir;) {
    size_t n = strcspn(dir, ":");
    if (n) add_dir(s, dir, n);
    if (!dir[n]) break;
    dir += n + 1;
  }
  s->nkernel_path = s->ndirs;
}

static void search_dirs(const op2_context *ctx, const char *caller_file, search *s) {
  kernel_path_dirs(s, ctx->opt.kernel_path);
  add_dir(s, ".", 1);
  char caller_dir[OP2_PATH_MAX] = "", exe[OP2_PATH_MAX], exe_dir[OP2_PATH_MAX] = "",
       joined[2 * OP2_PATH_MAX];
  if (caller_file) dir_of(caller_file, caller_dir, sizeof caller_dir);
  if (*caller_dir) add_dir(s, caller_dir, strlen(caller_dir));
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = 0;
    dir_of(exe, exe_dir, sizeof exe_dir);
  }
  /* A relative __FILE__ is relative to where the program was compiled: the executable's
   * directory (a Makefile building in place) or one above it (a build tree), where the calling
   * file is found again. */
  const char *base = caller_file ? strrchr(caller_file, '/') : NULL;
  if (*exe_dir && *caller_dir && caller_dir[0] != '/') {
    char up[OP2_PATH_MAX];
    snprintf(up, sizeof up, "%s", exe_dir);
    for (int level = 0; level < 5; level++) {
      snprintf(joined, sizeof joined, "%s/%s/%s", up, caller_dir, base + 1);
      if (access(joined, F_OK) == 0) {
        snprintf(joined, sizeof joined, "%s/%s", up, caller_dir);
        add_dir(s, joined, strlen(joined));
        break;
      }
      char *slash = strrchr(up, '/');
      if (!slash || slash == up) break;
      *slash = 0;
    }
  }
  if (*exe_dir) add_dir(s, exe_dir, strlen(exe_dir));
}

char *op2_kernel_file_read(const char *path, size_t *len) {
  char *data;
  size_t n;
  /* the caller words the failure from errno (op2_kernel_file_failure) */
  if (op2_read_regular_file(path, OP2_KERNEL_FILE_CAP, &data, &n, NULL) != 0) {
    if (errno == EINVAL) errno = ENODEV; /* not a regular file; EINVAL means a NUL below */
    return NULL;
  }
  if (strlen(data) != n) { /* a NUL inside: the kernel would end there */
    free(data);
    errno = EINVAL;
    return NULL;
  }
  if (n >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0) memmove(data, data + 3, (n -= 3) + 1);
  if (len) *len = n;
  return data;
}

const char *op2_kernel_file_failure(int err) {
  if (err == ENODEV) return "it is not a regular file (a FIFO, device or directory)";
  if (err == EFBIG) return "it is larger than the 64 MiB a kernel file may have";
  return err == EINVAL ? "it contains a NUL byte" : strerror(err);
}

static char *read_text(const char *path) {
  return op2_kernel_file_read(path, NULL);
}

/* `name` in the search directories: its text and real path (*real, malloc'ed); NULL when found
 * nowhere (*err ENOENT) or found but unreadable (*err, *real names it). */
static char *find_file(const search *s, const char *name, char **real, int *err) {
  char path[2 * OP2_PATH_MAX];
  *err = ENOENT;
  *real = NULL;
  for (int i = 0; i < s->ndirs; i++) {
    snprintf(path, sizeof path, "%s/%s", s->dirs[i], name);
    if (access(path, F_OK) != 0) continue;
    *real = realpath(path, NULL);
    char *text = *real ? read_text(*real) : NULL;
    if (!text) *err = errno;
    return text;
  }
  return NULL;
}

/* OP2's own headers, which a kernel header may include for the program's sake: the kernel's
 * prelude stands for them. */
static int op2_header(const char *name, size_t len) {
  static const char *const names[] = {"op_seq.h",     "op_lib_cpp.h",  "op_lib_c.h", "op2.h",
                                      "op_lib_mpi.h", "op_lib_core.h", "op_hdf5.h",  "op_profile.h",
                                      "op_util.h",    "op_mpi_core.h"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (strlen(names[i]) == len && strncmp(names[i], name, len) == 0) return 1;
  return 0;
}

/* At the start of a line: the file name of an `#include "NAME"` (close '"') or `#include <NAME>`
 * (close '>'), or NULL. */
static const char *include_of(const char *line, char close, size_t *len) {
  const char *p = line;
  while (*p == ' ' || *p == '\t') p++;
  if (*p++ != '#') return NULL;
  while (*p == ' ' || *p == '\t') p++;
  if (strncmp(p, "include", 7) != 0) return NULL;
  p += 7;
  while (*p == ' ' || *p == '\t') p++;
  if (*p != (close == '"' ? '"' : '<')) return NULL;
  const char *e = strchr(p + 1, close);
  if (!e || memchr(p, '\n', (size_t)(e - p))) return NULL;
  *len = (size_t)(e - p - 1);
  return p + 1;
}

static const char *quoted_include(const char *line, size_t *len) {
  return include_of(line, '"', len);
}

/* How #line names a file: `shown`, unless a character would end the directive. Names are the
 * files' as the kernel's text reaches them (the header's own name, then the include paths as
 * written), not where they lie: the text, so the cache key and the agreement of MPI ranks on the
 * source, do not depend on the directory the program was installed in. */
static void line_directive(op2_buf *out, int line, const char *shown) {
  op2_buf_printf(out, "#line %d \"%s\"\n", line, strpbrk(shown, "\"\\\n") ? "kernel" : shown);
}

/* The file that `#include "name"` (nlen bytes) in a file of directory `dir` names, as a compiler
 * finds it: beside that file, then in OP2_KERNEL_PATH's directories (as -I directories). Its
 * real path (malloc'ed), or NULL when it is in none of them. */
static char *resolve_include(const search *s, const char *dir, const char *name, size_t nlen) {
  char path[2 * OP2_PATH_MAX];
  if (name[0] == '/') {
    snprintf(path, sizeof path, "%.*s", (int)nlen, name);
    return realpath(path, NULL);
  }
  snprintf(path, sizeof path, "%s/%.*s", dir, (int)nlen, name);
  char *real = realpath(path, NULL);
  for (int i = 0; !real && i < s->nkernel_path; i++) {
    snprintf(path, sizeof path, "%s/%.*s", s->dirs[i], (int)nlen, name);
    real = realpath(path, NULL);
  }
  return real;
}

/* Where a quoted include of a file in `dir` is looked for, in words. */
static void searched_dirs(const search *s, const char *dir, op2_buf *b) {
  op2_buf_printf(b, "%s", dir);
  for (int i = 0; i < s->nkernel_path; i++)
    op2_buf_printf(b, "%s%s", i ? ", " : ", then OP2_KERNEL_PATH's ", s->dirs[i]);
  if (!s->nkernel_path) op2_buf_printf(b, " (OP2_KERNEL_PATH unset)");
}

/* What a quoted include found nowhere says: the header, where it is included, where it was
 * looked for. */
static void missing_words(const search *s, op2_buf *b, const char *name, size_t nlen,
                          const char *shown, int line, const char *dir) {
  op2_buf_printf(b, "header '%.*s' (included by %s line %d) is not in ", (int)nlen, name, shown,
                 line);
  searched_dirs(s, dir, b);
}

/* A quoted include found nowhere (line `line` of the file shown as `shown`, in `dir`): the line
 * stays, for the compiler to look among its own headers; a compiler with __has_include that
 * does not find it either stops with missing_words()'s message before its own. */
static void missing_include(const search *s, op2_buf *out, const char *include_line,
                            size_t line_len, const char *name, size_t nlen, const char *shown,
                            int line, const char *dir) {
  op2_buf msg = {0};
  missing_words(s, &msg, name, nlen, shown, line, dir);
  for (size_t i = 0; msg.data && i < msg.len; i++) /* inside a string literal below */
    if (msg.data[i] == '"' || msg.data[i] == '\\' || msg.data[i] == '\n') msg.data[i] = '?';
  op2_buf_printf(out, "#if defined(__has_include)\n#if !__has_include(\"%.*s\")\n", (int)nlen,
                 name);
  line_directive(out, line, shown);
  op2_buf_printf(out, "#error \"op2: %s\"\n#endif\n#endif\n", msg.data ? msg.data : "");
  line_directive(out, line, shown);
  op2_buf_append(out, include_line, line_len);
  op2_buf_free(&msg);
}

/* A file's identity in the kernel's text: the hash of its whole text (not of its path, which
 * would make the text depend on where the program lies). */
static uint64_t file_id(const char *text) {
  return XXH3_64bits(text, strlen(text));
}

/* At the start of a line: the name of its preprocessor directive (*len bytes), or NULL. */
static const char *directive_word(const char *line, size_t *len) {
  const char *p = line + strspn(line, " \t");
  if (*p != '#') return NULL;
  p += 1 + strspn(p + 1, " \t");
  *len = strspn(p, "abcdefghijklmnopqrstuvwxyz");
  return p;
}

static int word_is(const char *w, size_t len, const char *word) {
  return strlen(word) == len && strncmp(w, word, len) == 0;
}

/* The files being expanded, innermost first: a file that includes one of them again is already
 * in the text there (its guard, or its OP2_ONCE, skips it). */
typedef struct frame {
  const char *real;
  const struct frame *up;
} frame;

static int expanding(const frame *f, const char *real) {
  for (; f; f = f->up)
    if (strcmp(f->real, real) == 0) return 1;
  return 0;
}

/* `text` (of file `real`, shown as `shown`, its first `len` bytes; `id` its file_id) into `out`
 * under #line directives, each `#include "x"` replaced by x's text (resolve_include). The whole is
 * guarded by the file's id, as #pragma once would: a file enters the text once when it is
 * included where the preprocessor surely reads it (outside any conditional but an include guard),
 * again at each later include otherwise (MG-CFD's euler3d.cpp includes papi_funcs.h, which
 * includes const.h, under #ifdef PAPI: its const.h must not stand for the later one), the
 * preprocessor keeping the first copy it reads; the C++ tier's context (caller_context) and the
 * kernel's text may hold the same file. `conditional`: the text itself is read only under a
 * condition. */
static void expand(search *s, op2_buf *out, const char *text, size_t len, const char *real,
                   const char *shown, uint64_t id, int conditional, const frame *up) {
  char dir[OP2_PATH_MAX], shown_dir[OP2_PATH_MAX], inc_shown[2 * OP2_PATH_MAX];
  frame self = {real, up};
  int depth = 0;
  for (const frame *f = up; f; f = f->up) depth++;
  dir_of(real, dir, sizeof dir);
  dir_of(shown, shown_dir, sizeof shown_dir);
  if (!conditional) set_add(&s->in_text, real);
  op2_buf_printf(out, "#ifndef OP2_ONCE_%016llx\n#define OP2_ONCE_%016llx\n",
                 (unsigned long long)id, (unsigned long long)id);
  line_directive(out, 1, shown);
  int line = 1, open = 0, directives = 0, guard = 0; /* guard: #ifndef X, #define X first */
  const char *guard_name = NULL;
  size_t guard_len = 0;
  for (const char *p = text, *end = text + len; p < end; line++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *next = nl ? nl + 1 : end;
    size_t wlen, nlen;
    const char *w = directive_word(p, &wlen);
    if (w) {
      const char *arg = w + wlen + strspn(w + wlen, " \t");
      size_t alen = strcspn(arg, " \t\r\n");
      if (++directives == 1 && word_is(w, wlen, "ifndef")) guard_name = arg, guard_len = alen;
      if (directives == 2 && guard_name && word_is(w, wlen, "define") && alen == guard_len &&
          strncmp(arg, guard_name, alen) == 0)
        guard = 1;
      if (word_is(w, wlen, "if") || word_is(w, wlen, "ifdef") || word_is(w, wlen, "ifndef")) open++;
      if (word_is(w, wlen, "endif") && open > 0) open--;
    }
    const char *name = quoted_include(p, &nlen);
    if (name && (nlen >= OP2_PATH_MAX || depth >= MAX_DEPTH)) name = NULL;
    char *inc_real = name ? resolve_include(s, dir, name, nlen) : NULL;
    if (inc_real && !set_has(&s->in_text, inc_real) && !expanding(&self, inc_real)) {
      int err = 0;
      char *inc = read_text(inc_real);
      if (!inc) err = errno;
      if (inc) {
        snprintf(inc_shown, sizeof inc_shown, "%s%s%.*s", name[0] == '/' ? "" : shown_dir,
                 name[0] != '/' && *shown_dir ? "/" : "", (int)nlen, name);
        expand(s, out, inc, strlen(inc), inc_real, inc_shown, file_id(inc),
               conditional || open > (guard ? 1 : 0), &self);
      } else { /* a compile error that says why */
        line_directive(out, line, shown);
        op2_buf_printf(out, "#error \"op2: cannot read header '%.*s' (%s)\"\n", (int)nlen, name,
                       op2_kernel_file_failure(err));
      }
      line_directive(out, line + 1, shown);
      free(inc);
    } else if (inc_real || (name && op2_header(name, nlen))) {
      op2_buf_append(out, "\n", 1); /* already in the text, or OP2's own header */
    } else if (name && s->context) {
      op2_buf_append(out, "\n", 1); /* the program's -I directories are not known */
    } else if (name) {
      missing_include(s, out, p, (size_t)(next - p), name, nlen, shown, line, dir);
      if (!nl) op2_buf_append(out, "\n", 1);
    } else {
      op2_buf_append(out, p, (size_t)(next - p));
      if (!nl) op2_buf_append(out, "\n", 1);
    }
    free(inc_real);
    p = next;
  }
  op2_buf_printf(out, "#endif\n");
}

/* The definition of `name` in the headers `text` (of file `real`, shown as `shown`) includes
 * with quotes, depth first: 1 with the header's text (up to the kernel's end), its file_id and
 * real path, and in *via the line of `text` whose include leads there. The headers read here are
 * not in the kernel's text: the kernel's header brings in what it includes itself. */
static int in_included(search *s, const char *text, const char *real, const char *shown,
                       const char *name, int depth, char **htext, uint64_t *hid, char **hreal,
                       int *via) {
  char dir[OP2_PATH_MAX];
  dir_of(real, dir, sizeof dir);
  int line = 1;
  for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL, line++) {
    size_t nlen;
    const char *inc = quoted_include(p, &nlen);
    if (!inc || nlen >= OP2_PATH_MAX) continue;
    char *r = resolve_include(s, dir, inc, nlen);
    if (!r && !op2_header(inc, nlen) && s->nmissing++ < MAX_MISSING) {
      op2_buf_printf(&s->missing, "%s", s->nmissing > 1 ? "; " : "");
      missing_words(s, &s->missing, inc, nlen, shown, line, dir);
    }
    char *t = r && !set_has(&s->read, r) ? read_text(r) : NULL;
    if (t) set_add(&s->read, r);
    const char *b, *e;
    if (t && op2_kernel_definition(t, name, &b, &e)) {
      *hid = file_id(t);
      t[e - t] = 0; /* what comes before the kernel is what it may use */
      *htext = t, *hreal = r, *via = line;
      return 1;
    }
    const char *base = r ? strrchr(r, '/') : NULL;
    int found = t && depth < MAX_CALLER_DEPTH &&
                in_included(s, t, r, base ? base + 1 : r, name, depth + 1, htext, hid, hreal, via);
    free(t), free(r);
    if (found) {
      *via = line;
      return 1;
    }
  }
  return 0;
}

/* The calling file's text and real path: __FILE__ as given, else under the executable's
 * directory and the other search directories. */
static char *read_caller(const search *s, const char *caller_file, char **real) {
  *real = NULL;
  if (!caller_file || !*caller_file) return NULL;
  if (access(caller_file, R_OK) == 0 && (*real = realpath(caller_file, NULL)) != NULL)
    return read_text(*real);
  if (caller_file[0] == '/') return NULL;
  const char *base = strrchr(caller_file, '/');
  int err;
  char *text = find_file(s, base ? base + 1 : caller_file, real, &err);
  return text;
}

/* How many of the directives in `text` open a conditional that none closes. */
static int open_conditionals(const char *text) {
  int open = 0;
  for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
    const char *d = p + strspn(p, " \t");
    if (*d != '#') continue;
    d += 1 + strspn(d + 1, " \t");
    size_t n = strspn(d, "abcdefghijklmnopqrstuvwxyz");
    if ((n == 2 && !strncmp(d, "if", 2)) || (n == 5 && !strncmp(d, "ifdef", 5)) ||
        (n == 6 && !strncmp(d, "ifndef", 6)))
      open++;
    if (n == 5 && !strncmp(d, "endif", 5) && open > 0) open--;
  }
  return open;
}

/* The C++ tier's context (below) as one comment at the head of the kernel's text: no C
 * compiler, nor NVRTC, nor any reader of the kernel's text sees it (a template there would make
 * the kernel C++; a constant named there, used). jit/kernel_text.c (op2_kernel_context) takes it
 * out: a comment starting with OP2_CONTEXT_MARK at the text's start, its text escaped so that it
 * holds no comment delimiter ('@' as "@@", "*" "/" as "*@/", "/" "*" as "/@*"). */
#define OP2_CONTEXT_MARK "/* op2 context:"
static void context_comment(const op2_buf *context, op2_buf *out) {
  op2_buf_printf(out, "%s the calling file before the kernel's header, for the C++ tier\n",
                 OP2_CONTEXT_MARK);
  for (size_t i = 0; i < context->len; i++) {
    char c = context->data[i], next = i + 1 < context->len ? context->data[i + 1] : 0;
    op2_buf_append(out, &c, 1);
    if (c == '@' || (c == '*' && next == '/') || (c == '/' && next == '*'))
      op2_buf_append(out, "@", 1);
  }
  op2_buf_printf(out, "\n*/\n");
}

/* What the C++ tier compiles before a kernel found through the calling file, as OP2 compiles
 * the kernel inside that file: the calling file's preprocessor lines before line `upto` (its
 * includes, standard ones too, its #defines and conditionals; its code left out), each file in
 * it once. Real headers rely on what the calling file included before them (MG-CFD's
 * validation.h uses NVAR from the const.h that euler3d.cpp includes first, and utils.h
 * std::ostringstream from its <sstream>). Its angle includes come first, each where the
 * compiler has it (__has_include: a program's <mpi.h> or <papi.h> is not the kernel's concern);
 * a quoted include found nowhere is left out. NVRTC compiles the kernel's own headers only;
 * TinyCC and the optimising C compiler get what the kernel reaches of this context
 * (jit/kernel_text.c, jit/cxx_prune.c). */
static void caller_context(search *s, op2_buf *out, const char *text, const char *real,
                           const char *shown, int upto) {
  op2_buf kept = {0}, angle = {0}; /* its directives line for line; its angle includes */
  int line = 1;
  for (const char *p = text; p && *p && line < upto; line++) {
    const char *nl = strchr(p, '\n');
    const char *next = nl ? nl + 1 : p + strlen(p);
    const char *d = p + strspn(p, " \t");
    size_t len;
    const char *name = include_of(p, '>', &len);
    if (name) {
      op2_buf_printf(&angle, "#if __has_include(<%.*s>)\n#include <%.*s>\n#endif\n", (int)len, name,
                     (int)len, name);
      op2_buf_append(&kept, "\n", 1);
    } else if (*d == '#') { /* the directive with its continuation lines */
      for (;;) {
        op2_buf_append(&kept, p, (size_t)(next - p));
        if (!nl || next - p < 2 || nl[-1] != '\\') break;
        p = next, line++;
        nl = strchr(p, '\n');
        next = nl ? nl + 1 : p + strlen(p);
      }
      if (!nl) op2_buf_append(&kept, "\n", 1);
    } else {
      op2_buf_append(&kept, "\n", 1);
    }
    p = next;
  }
  for (int n = kept.data ? open_conditionals(kept.data) : 0; n > 0; n--)
    op2_buf_printf(&kept, "#endif\n");
  if (kept.data && !kept.failed) {
    path_set in_text = s->in_text; /* its files, once each, apart from the kernel's */
    s->in_text = (path_set){0};
    s->context = 1;
    op2_buf context = {0};
    if (angle.len) op2_buf_append(&context, angle.data, angle.len);
    expand(s, &context, kept.data, kept.len, real, shown, file_id(kept.data), 0, NULL);
    if (!context.failed) context_comment(&context, out);
    op2_buf_free(&context);
    s->context = 0;
    for (int i = 0; i < s->in_text.n; i++) free(s->in_text.path[i]);
    free(s->in_text.path);
    s->in_text = in_text;
  }
  op2_buf_free(&kept), op2_buf_free(&angle);
}

/* `head` before what `out` holds. */
static void prepend(op2_buf *out, op2_buf *head) {
  if (out->len) op2_buf_append(head, out->data, out->len);
  op2_buf_free(out);
  *out = *head;
}

static void not_found(const op2_context *ctx, const search *s, const char *name,
                      const char *file_name, const char *caller_file) {
  op2_buf dirs = {0};
  for (int i = 0; i < s->ndirs; i++) op2_buf_printf(&dirs, "%s%s", i ? ", " : "", s->dirs[i]);
  op2_error(OP2_ERR_IO,
            "op_par_loop '%s': the kernel is a function, so its source is read from its header "
            "%s, or its definition in the calling file %s or a header it includes; none was "
            "found. Directories searched: %s (OP2_KERNEL_PATH: %s; then the current directory, "
            "the calling file's and the executable's)%s%s%s",
            name, file_name, caller_file ? caller_file : "(unknown)",
            dirs.data ? dirs.data : "none", *ctx->opt.kernel_path ? ctx->opt.kernel_path : "unset",
            s->nmissing ? ". Of the headers included on the way, " : "",
            s->missing.data ? s->missing.data : "", s->nmissing > MAX_MISSING ? "; and more" : "");
  op2_buf_free(&dirs);
}

char *op2_kernel_expand_includes(const char *text, const char *path, const char *shown,
                                 const char *kernel_path) {
  search *s = calloc(1, sizeof *s);
  char *real = s ? realpath(path, NULL) : NULL;
  op2_buf out = {0};
  if (real) {
    kernel_path_dirs(s, kernel_path);
    expand(s, &out, text, strlen(text), real, shown, file_id(text), 0, NULL);
  }
  search_free(s);
  free(real);
  if (out.failed) op2_buf_free(&out);
  return out.data;
}

char *op2_kernel_function_source(const op2_context *ctx, const char *caller_file,
                                 const char *name) {
  search *s = calloc(1, sizeof *s);
  if (!s) {
    op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory", name);
    return NULL;
  }
  search_dirs(ctx, caller_file, s);
  char file_name[1100];
  snprintf(file_name, sizeof file_name, "%s.h", name);
  op2_buf out = {0};
  int err;
  char *types_real = NULL, *types = find_file(s, "user_types.h", &types_real, &err);
  if (!types && err != ENOENT) {
    op2_error(OP2_ERR_IO, "op_par_loop '%s': cannot read %s: %s", name, types_real,
              op2_kernel_file_failure(err));
    goto fail;
  }
  if (types)
    expand(s, &out, types, strlen(types), types_real, "user_types.h", file_id(types), 0, NULL);
  char *real = NULL, *text = find_file(s, file_name, &real, &err), *caller_real = NULL;
  if (text) { /* NAME.h, whole */
    expand(s, &out, text, strlen(text), real, file_name, file_id(text), 0, NULL);
  } else if (err != ENOENT) {
    op2_error(OP2_ERR_IO, "op_par_loop '%s': cannot read kernel header %s: %s", name, real,
              op2_kernel_file_failure(err));
  } else if ((text = read_caller(s, caller_file, &caller_real)) != NULL) {
    const char *b, *e;
    char *htext = NULL, *hreal = NULL;
    uint64_t hid;
    int via;
    op2_buf head = {0}; /* the C++ tier's context, before user_types.h */
    if (op2_kernel_definition(text, name, &b, &e)) { /* the function only: the rest is main */
      int line = 1;
      for (const char *c = text; c < b; c++) line += *c == '\n';
      caller_context(s, &head, text, caller_real, caller_file, line);
      prepend(&out, &head);
      line_directive(&out, line, caller_file);
      op2_buf_printf(&out, "%.*s\n", (int)(e - b), b);
    } else if (in_included(s, text, caller_real, caller_file, name, 0, &htext, &hid, &hreal,
                           &via)) {
      caller_context(s, &head, text, caller_real, caller_file, via);
      prepend(&out, &head);
      const char *base = strrchr(hreal, '/');
      expand(s, &out, htext, strlen(htext), hreal, base ? base + 1 : hreal, hid, 0, NULL);
      free(htext), free(hreal);
    } else {
      free(text);
      text = NULL;
    }
  }
  free(real), free(caller_real);
  if (!text && err == ENOENT) not_found(ctx, s, name, file_name, caller_file);
  if (!text) goto fail;
  free(text), free(types), free(types_real);
  search_free(s);
  if (out.failed) {
    op2_buf_free(&out);
    op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory", name);
  }
  return out.data;
fail:
  free(types), free(types_real);
  search_free(s);
  op2_buf_free(&out);
  return NULL;
}
