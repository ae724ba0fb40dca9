/* SPDX-License-Identifier: BSD-3-Clause */
/* The source of a kernel passed as a function (OP2's op_par_loop(res, "res", ...)), found where
 * OP2's programs keep it: its own header NAME.h, a header the calling file includes (several
 * kernels in one kernels.h), or the calling file itself. Directories are searched in order:
 * OP2_KERNEL_PATH, the current directory, the calling file's directory (__FILE__, which may be
 * relative to where the program was built), that directory under the executable's directory or
 * one of its parents (where the calling file is), the executable's own directory: so a program
 * run from elsewhere still finds its kernels. The text compiled is
 * self-contained: the app's user_types.h (found the same way) comes first, as OP2's translator
 * puts it before every kernel, and every `#include "x.h"` is replaced by the file's text, resolved
 * against the directory of the file that includes it; so what those files hold is part of the
 * kernel's text, hence of its cache key. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/options.h"
#include "runtime/kernel_source.h"

enum { MAX_DIRS = 16, MAX_FILES = 64, MAX_DEPTH = 16, MAX_CALLER_DEPTH = 4 };

typedef struct search {
  int ndirs;
  char dirs[MAX_DIRS][OP2_PATH_MAX];
  int nseen; /* files already in the text (as #pragma once would): their real paths */
  char *seen[MAX_FILES];
} search;

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

static void search_dirs(const op2_context *ctx, const char *caller_file, search *s) {
  const char *path = ctx->opt.kernel_path;
  for (const char *dir = path; *dir;) {
    size_t n = strcspn(dir, ":");
    if (n) add_dir(s, dir, n);
    if (!dir[n]) break;
    dir += n + 1;
  }
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

static int seen(search *s, const char *real) {
  for (int i = 0; i < s->nseen; i++)
    if (strcmp(s->seen[i], real) == 0) return 1;
  return 0;
}

static void mark_seen(search *s, const char *real) {
  char *copy = s->nseen < MAX_FILES ? strdup(real) : NULL;
  if (copy) s->seen[s->nseen++] = copy;
}

/* OP2's own headers, which a kernel header may include for the program's sake: the kernel's
 * prelude stands for them. */
static int op2_header(const char *name, size_t len) {
  static const char *const names[] = {"op_seq.h", "op_lib_cpp.h", "op_lib_c.h", "op2.h",
                                      "op_lib_mpi.h"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (strlen(names[i]) == len && strncmp(names[i], name, len) == 0) return 1;
  return 0;
}

/* At the start of a line: the file name of an `#include "NAME"`, or NULL. */
static const char *quoted_include(const char *line, size_t *len) {
  const char *p = line;
  while (*p == ' ' || *p == '\t') p++;
  if (*p++ != '#') return NULL;
  while (*p == ' ' || *p == '\t') p++;
  if (strncmp(p, "include", 7) != 0) return NULL;
  p += 7;
  while (*p == ' ' || *p == '\t') p++;
  if (*p != '"') return NULL;
  const char *e = strchr(p + 1, '"');
  if (!e || memchr(p, '\n', (size_t)(e - p))) return NULL;
  *len = (size_t)(e - p - 1);
  return p + 1;
}

/* How #line names a file: `shown`, unless a character would end the directive. Names are the
 * files' as the kernel's text reaches them (the header's own name, then the include paths as
 * written), not where they lie: the text, so the cache key and the agreement of MPI ranks on the
 * source, do not depend on the directory the program was installed in. */
static void line_directive(op2_buf *out, int line, const char *shown) {
  op2_buf_printf(out, "#line %d \"%s\"\n", line, strpbrk(shown, "\"\\\n") ? "kernel" : shown);
}

/* `text` (of file `real`, shown as `shown`, its first `len` bytes) into `out` under #line
 * directives, each `#include "x"` replaced by x's text (resolved against real's directory) the
 * first time. */
static void expand(search *s, op2_buf *out, const char *text, size_t len, const char *real,
                   const char *shown, int depth) {
  char dir[OP2_PATH_MAX], path[2 * OP2_PATH_MAX], shown_dir[OP2_PATH_MAX],
      inc_shown[2 * OP2_PATH_MAX];
  dir_of(real, dir, sizeof dir);
  dir_of(shown, shown_dir, sizeof shown_dir);
  line_directive(out, 1, shown);
  int line = 1;
  for (const char *p = text, *end = text + len; p < end; line++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *next = nl ? nl + 1 : end;
    size_t nlen;
    const char *name = quoted_include(p, &nlen);
    char *inc_real = NULL, *inc = NULL;
    int unreadable = 0;
    if (name && nlen < OP2_PATH_MAX && depth < MAX_DEPTH) {
      snprintf(path, sizeof path, "%s%s%.*s", name[0] == '/' ? "" : dir, name[0] == '/' ? "" : "/",
               (int)nlen, name);
      inc_real = realpath(path, NULL);
      if (inc_real && !seen(s, inc_real)) {
        mark_seen(s, inc_real);
        if (!(inc = read_text(inc_real))) unreadable = errno;
      }
    }
    if (inc) {
      snprintf(inc_shown, sizeof inc_shown, "%s%s%.*s", name[0] == '/' ? "" : shown_dir,
               name[0] != '/' && *shown_dir ? "/" : "", (int)nlen, name);
      expand(s, out, inc, strlen(inc), inc_real, inc_shown, depth + 1);
      line_directive(out, line + 1, shown);
    } else if (unreadable) { /* said where the compiler stops, not dropped without a word */
      int plain = !memchr(name, '\'', nlen) && !memchr(name, '\\', nlen);
      op2_buf_printf(out, "#error the included file %.*s was skipped: %s\n", plain ? (int)nlen : 0,
                     name, op2_kernel_file_failure(unreadable));
    } else if (inc_real || (name && op2_header(name, nlen))) {
      op2_buf_append(out, "\n", 1); /* already in the text, or OP2's own header */
    } else {
      op2_buf_append(out, p, (size_t)(next - p));
      if (!nl) op2_buf_append(out, "\n", 1);
    }
    free(inc), free(inc_real);
    p = next;
  }
}

/* The definition of `name` in the headers `text` (of file `real`) includes with quotes, depth
 * first: 1 with the header's text and real path when found. */
static int in_included(search *s, const char *text, const char *real, const char *name, int depth,
                       char **htext, char **hreal) {
  char dir[OP2_PATH_MAX], path[2 * OP2_PATH_MAX];
  dir_of(real, dir, sizeof dir);
  for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
    size_t nlen;
    const char *inc = quoted_include(p, &nlen);
    if (!inc || nlen >= OP2_PATH_MAX) continue;
    snprintf(path, sizeof path, "%s/%.*s", dir, (int)nlen, inc);
    char *r = realpath(path, NULL);
    char *t = r && !seen(s, r) ? read_text(r) : NULL;
    if (t) mark_seen(s, r);
    const char *b, *e;
    if (t && op2_kernel_definition(t, name, &b, &e)) {
      t[e - t] = 0; /* what comes before the kernel is what it may use */
      *htext = t, *hreal = r;
      return 1;
    }
    int found =
        t && depth < MAX_CALLER_DEPTH && in_included(s, t, r, name, depth + 1, htext, hreal);
    free(t), free(r);
    if (found) return 1;
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

static void not_found(const op2_context *ctx, const search *s, const char *name,
                      const char *file_name, const char *caller_file) {
  op2_buf dirs = {0};
  for (int i = 0; i < s->ndirs; i++) op2_buf_printf(&dirs, "%s%s", i ? ", " : "", s->dirs[i]);
  op2_error(OP2_ERR_IO,
            "op_par_loop '%s': the kernel is a function, so its source is read from its header "
            "%s, or its definition in the calling file %s or a header it includes; none was "
            "found. Directories searched: %s (OP2_KERNEL_PATH: %s; then the current directory, "
            "the calling file's and the executable's)",
            name, file_name, caller_file ? caller_file : "(unknown)",
            dirs.data ? dirs.data : "none", *ctx->opt.kernel_path ? ctx->opt.kernel_path : "unset");
  op2_buf_free(&dirs);
}

char *op2_kernel_expand_includes(const char *text, const char *path, const char *shown) {
  search *s = calloc(1, sizeof *s);
  char *real = s ? realpath(path, NULL) : NULL;
  op2_buf out = {0};
  if (real) {
    mark_seen(s, real);
    expand(s, &out, text, strlen(text), real, shown, 0);
  }
  for (int i = 0; s && i < s->nseen; i++) free(s->seen[i]);
  free(s), free(real);
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
  if (types) {
    mark_seen(s, types_real);
    expand(s, &out, types, strlen(types), types_real, "user_types.h", 0);
  }
  char *real = NULL, *text = find_file(s, file_name, &real, &err), *caller_real = NULL;
  if (text) { /* NAME.h, whole */
    mark_seen(s, real);
    expand(s, &out, text, strlen(text), real, file_name, 0);
  } else if (err != ENOENT) {
    op2_error(OP2_ERR_IO, "op_par_loop '%s': cannot read kernel header %s: %s", name, real,
              op2_kernel_file_failure(err));
  } else if ((text = read_caller(s, caller_file, &caller_real)) != NULL) {
    const char *b, *e;
    char *htext = NULL, *hreal = NULL;
    if (op2_kernel_definition(text, name, &b, &e)) { /* the function only: the rest is main */
      int line = 1;
      for (const char *c = text; c < b; c++) line += *c == '\n';
      line_directive(&out, line, caller_file);
      op2_buf_printf(&out, "%.*s\n", (int)(e - b), b);
    } else if (in_included(s, text, caller_real, name, 0, &htext, &hreal)) {
      const char *base = strrchr(hreal, '/');
      expand(s, &out, htext, strlen(htext), hreal, base ? base + 1 : hreal, 0);
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
  for (int i = 0; i < s->nseen; i++) free(s->seen[i]);
  free(s);
  if (out.failed) {
    op2_buf_free(&out);
    op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory", name);
  }
  return out.data;
fail:
  free(types), free(types_real);
  for (int i = 0; i < s->nseen; i++) free(s->seen[i]);
  free(s);
  op2_buf_free(&out);
  return NULL;
}
