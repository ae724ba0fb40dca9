/* SPDX-License-Identifier: BSD-3-Clause */
/* gfortran as a tier: the optimised build of a Fortran kernel's loop (fortran_codegen.c). Its
 * identity (for the cache key) is the compiler's, as the C optimising tier's (binary, size,
 * mtime, this CPU for -march=native). Its compile step splits the generated source at
 * OP2_FORTRAN_LOOP_MARKER in a private directory: the modules before it are compiled with
 * -fsyntax-only, for their .mod files only (their variables and procedures stay the program's,
 * which the loaded loop reaches through the program's exported symbols), then the loop module is
 * built into the shared object, with those .mod files, OP2's and MPI's module directories and
 * the directories of the program's sources (their include files) on its search path. A loop
 * whose element loop is C's (OP2_FORTRAN_C_MARKER) is built in three steps instead: the kernel's
 * copies and the C loop compiled to objects for link-time optimisation (the C half by the command
 * its marker line gives: OP2_CC, which must be the gcc of gfortran's version for their objects to
 * join), then linked by gfortran. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fortran_codegen.h"

/* Removes the private build directory and the files the compilers left in it (no
 * subdirectories). */
static void remove_dir(const char *dir) {
  DIR *d = opendir(dir);
  for (struct dirent *e; d && (e = readdir(d));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    unlinkat(dirfd(d), e->d_name, 0);
  }
  if (d) closedir(d);
  rmdir(dir);
}

/* Writes `len` bytes of `data` to dir/name. 0 or -1. */
static int write_file(const char *dir, const char *name, const char *data, size_t len) {
  char path[OP2_PATH_BUF];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  int ok = fwrite(data, 1, len, f) == len;
  return fclose(f) == 0 && ok ? 0 : -1;
}

/* argv: the compiler, the tier's flags (without `skip`), -I and -J for `moddir`, -I for each
 * ':'-separated directory of `dirs` and of the source's "!op2jit:include" lines. */
typedef struct args {
  char *v[256];
  int n;
  char flags[1024];
  char store[8192];
  size_t used;
} args;

static void add_arg(args *a, const char *s) {
  size_t n = strlen(s) + 1;
  if (a->n >= 250 || a->used + n > sizeof a->store) return;
  memcpy(a->store + a->used, s, n);
  a->v[a->n++] = a->store + a->used;
  a->used += n;
}

static void add_dirs(args *a, const char *dirs, size_t len) {
  for (size_t i = 0; i < len;) {
    size_t j = i;
    while (j < len && dirs[j] != ':' && dirs[j] != '\n') j++;
    if (j > i) {
      char opt[OP2_PATH_BUF];
      snprintf(opt, sizeof opt, "-I%.*s", (int)(j - i), dirs + i);
      add_arg(a, opt);
    }
    i = j + 1;
  }
}

static void make_args(args *a, const op2_tier *t, const char *skip, const char *moddir,
                      const char *source) {
  memset(a, 0, sizeof *a);
  a->v[a->n++] = (char *)t->path;
  snprintf(a->flags, sizeof a->flags, "%s", t->flags);
  for (char *save = NULL, *tok = strtok_r(a->flags, " \t", &save); tok && a->n < 120;
       tok = strtok_r(NULL, " \t", &save))
    if (!skip || strcmp(tok, skip) != 0) a->v[a->n++] = tok;
  char opt[OP2_PATH_BUF];
  snprintf(opt, sizeof opt, "-J%s", moddir);
  add_arg(a, opt);
  snprintf(opt, sizeof opt, "-I%s", moddir);
  add_arg(a, opt);
  add_dirs(a, t->extra_dirs, strlen(t->extra_dirs));
  static const char inc[] = "!op2jit:include ";
  for (const char *p = strstr(source, inc); p; p = strstr(p + 1, inc)) {
    const char *start = p + sizeof inc - 1, *eol = strchr(start, '\n');
    add_dirs(a, start, eol ? (size_t)(eol - start) : strlen(start));
  }
}

static int run(args *a, op2_buf *log, int timeout_s) {
  a->v[a->n] = NULL;
  return op2_spawn_capture(a->v[0], a->v, timeout_s, log);
}

/* A loop whose element loop is C's (OP2_FORTRAN_C_MARKER at `cline`): the kernel's copies
 * (loop.F90, written to the marker) and the C loop (after its line, which is the C compiler's
 * command) compiled to objects for link-time optimisation, then linked by gfortran into the shared
 * object, which inlines the copies into the C loop. Both halves without semantic interposition
 * (exported functions called directly, so inlined) and the C loop's math flags on the Fortran
 * half too (gcc does not inline a function built with other floating-point options). */
static int c_loop_compile(const op2_tier *t, const char *source, const char *dir, const char *cline,
                          const char *so_path, op2_buf *out) {
  static const char *const lto[] = {"-flto", "-fno-semantic-interposition", "-fno-math-errno",
                                    "-fno-trapping-math"};
  const char *eol = strchr(cline, '\n');
  char fpath[OP2_PATH_BUF], cpath[OP2_PATH_BUF], fobj[OP2_PATH_BUF], cobj[OP2_PATH_BUF];
  snprintf(fpath, sizeof fpath, "%s/loop.F90", dir);
  snprintf(cpath, sizeof cpath, "%s/loop.c", dir);
  snprintf(fobj, sizeof fobj, "%s/kernels.o", dir);
  snprintf(cobj, sizeof cobj, "%s/loop_c.o", dir);
  const char *loop = strstr(source, OP2_FORTRAN_LOOP_MARKER "\n") + sizeof OP2_FORTRAN_LOOP_MARKER;
  if (!eol || write_file(dir, "loop.F90", loop, (size_t)(cline - loop)) ||
      write_file(dir, "loop.c", eol + 1, strlen(eol + 1))) {
    op2_buf_printf(out, "cannot write into %s: %s\n", dir, strerror(errno));
    return -1;
  }
  args a;
  make_args(&a, t, "-shared", dir, source); /* the kernel's copies */
  for (size_t i = 0; i < sizeof lto / sizeof *lto; i++) add_arg(&a, lto[i]);
  add_arg(&a, "-c"), add_arg(&a, "-o"), add_arg(&a, fobj), add_arg(&a, fpath);
  if (run(&a, out, t->timeout_s) != 0) return -1;
  memset(&a, 0, sizeof a); /* the C loop, by the command its line gives */
  snprintf(a.flags, sizeof a.flags, "%.*s", (int)(eol - cline - sizeof OP2_FORTRAN_C_MARKER),
           cline + sizeof OP2_FORTRAN_C_MARKER);
  for (char *save = NULL, *tok = strtok_r(a.flags, " \t", &save); tok && a.n < 120;
       tok = strtok_r(NULL, " \t", &save))
    a.v[a.n++] = tok;
  add_arg(&a, "-flto"), add_arg(&a, "-c"), add_arg(&a, "-o"), add_arg(&a, cobj);
  add_arg(&a, cpath);
  char cc[OP2_PATH_BUF];
  if (a.n < 2 || op2_find_program(a.v[0], cc, sizeof cc) != 0) {
    op2_buf_printf(out, "C compiler '%s' not found (OP2_CC)\n", a.n ? a.v[0] : "");
    return -1;
  }
  a.v[0] = cc;
  if (run(&a, out, t->timeout_s) != 0) return -1;
  memset(&a, 0, sizeof a); /* linked, the copies inlined */
  a.v[a.n++] = (char *)t->path;
  snprintf(a.flags, sizeof a.flags, "%s", t->flags);
  for (char *save = NULL, *tok = strtok_r(a.flags, " \t", &save); tok && a.n < 120;
       tok = strtok_r(NULL, " \t", &save))
    a.v[a.n++] = tok;
  for (size_t i = 0; i < sizeof lto / sizeof *lto; i++) add_arg(&a, lto[i]);
  add_arg(&a, "-o"), add_arg(&a, so_path), add_arg(&a, fobj), add_arg(&a, cobj);
  return run(&a, out, t->timeout_s);
}

static int fortran_compile(const op2_tier *t, const char *source, const char *src_path,
                           const char *so_path, char **log, char *flags_used, size_t flags_len) {
  (void)src_path; /* the two parts are written apart */
  snprintf(flags_used, flags_len, "%s", t->flags);
  op2_buf out = {0};
  char dir[OP2_PATH_BUF];
  snprintf(dir, sizeof dir, "%s/op2-fortran-XXXXXX", op2_temp_dir());
  const char *marker = strstr(source, OP2_FORTRAN_LOOP_MARKER "\n");
  int rc = -1;
  if (!marker) {
    op2_buf_printf(&out, "no %s line in the generated source\n", OP2_FORTRAN_LOOP_MARKER);
  } else if (!mkdtemp(dir)) {
    op2_buf_printf(&out, "cannot create a build directory in %s: %s\n", op2_temp_dir(),
                   strerror(errno));
  } else {
    const char *loop = marker + sizeof OP2_FORTRAN_LOOP_MARKER;
    size_t ilen = (size_t)(marker - source);
    args a;
    rc = write_file(dir, "interfaces.F90", source, ilen) ||
                 write_file(dir, "loop.F90", loop, strlen(loop))
             ? (op2_buf_printf(&out, "cannot write into %s: %s\n", dir, strerror(errno)), -1)
             : 0;
    if (rc == 0) { /* the modules, for their .mod files */
      make_args(&a, t, "-shared", dir, source);
      add_arg(&a, "-fsyntax-only");
      char path[OP2_PATH_BUF];
      snprintf(path, sizeof path, "%s/interfaces.F90", dir);
      add_arg(&a, path);
      rc = run(&a, &out, t->timeout_s);
    }
    const char *cline = strstr(loop, "\n" OP2_FORTRAN_C_MARKER " ");
    if (rc == 0 && !cline) { /* the loop */
      make_args(&a, t, NULL, dir, source);
      char path[OP2_PATH_BUF];
      add_arg(&a, "-o");
      add_arg(&a, so_path);
      snprintf(path, sizeof path, "%s/loop.F90", dir);
      add_arg(&a, path);
      rc = run(&a, &out, t->timeout_s);
    } else if (rc == 0) {
      rc = c_loop_compile(t, source, dir, cline + 1, so_path, &out);
    }
    remove_dir(dir);
  }
  *log = out.data ? out.data : calloc(1, 1);
  return rc;
}

int op2_fortran_tier(const char *fc, const char *flags, const char *moddirs, int timeout_s,
                     op2_tier *t) {
  if (op2_cc_tier(fc, flags, timeout_s, t) != 0) return -1;
  t->name = "gfortran";
  t->src_ext = "F90";
  t->compile = fortran_compile;
  size_t n = 0; /* the directories that are there (the library may not be installed) */
  t->extra_dirs[0] = '\0';
  for (const char *d = moddirs; *d;) {
    const char *end = strchr(d, ':');
    size_t len = end ? (size_t)(end - d) : strlen(d);
    char dir[OP2_PATH_BUF];
    snprintf(dir, sizeof dir, "%.*s", (int)len, d);
    struct stat st;
    if (len && stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && n + len + 2 < sizeof t->extra_dirs)
      n += (size_t)snprintf(t->extra_dirs + n, sizeof t->extra_dirs - n, "%s%s", n ? ":" : "", dir);
    d += len + (end != NULL);
  }
  return 0;
}

void op2_fortran_upgrade(op2_jit *jit, const op2_jit_request *rq, op2_jit_counters *cnt,
                         op2_kernel *k, const op2_generated *gen) {
  if (jit->cfg.mode == OP2_JIT_TCC) return; /* OP2_JIT=tcc: the first tier only */
  if (!jit->fortran_state)
    jit->fortran_state = op2_fortran_tier(jit->cfg.fc, jit->cfg.fflags, jit->cfg.fortran_moddirs,
                                          jit->cfg.compile_timeout, &jit->fortran) == 0
                             ? 1
                             : -1;
  if (jit->fortran_state < 0) {
    if (!jit->told_no_fortran++)
      op2_jit_diag(jit, 1,
                   "Fortran compiler '%s' not found: Fortran kernels stay the program's "
                   "procedures (OP2_FC)",
                   jit->cfg.fc);
    return;
  }
  const op2_tier *t = &jit->fortran;
  const char *root = op2_jit_cache_root(jit);
  char entry[OP2_PATH_BUF] = "";
  op2_cache_key key;
  op2_jit_tier_key(t, gen, &key);
  if (root) {
    op2_cache_entry_dir(root, k->name, &key, entry, sizeof entry);
    op2_jit_error why;
    int rc = op2_jit_load_entry_ext(jit, entry, k->name, "F90", &key, gen->source.data,
                                    gen->source.len, &k->dl_handle, &k->fn, &why);
    if (rc == OP2_OK) {
      cnt->disk_hits++;
      k->tier = OP2_TIER_CC;
      k->origin = OP2_FROM_DISK;
      char src[OP2_PATH_BUF];
      snprintf(src, sizeof src, "%s/%s.F90", entry, k->name);
      free(k->source_path);
      k->source_path = strdup(src);
      return;
    }
    if (rc != OP2_ENTRY_ABSENT) {
      cnt->disk_rejects++;
      op2_jit_diag(jit, 1,
                   "kernel cache: entry for Fortran loop '%s' refused (%s); building it again",
                   k->name, why.msg);
    }
  }
  int may_write = root && op2_jit_may_write(jit, entry);
  if (jit->cfg.mode == OP2_JIT_CC && !jit->node_follower) { /* OP2_JIT=cc: built now */
    op2_build_request req;
    op2_build_result res;
    op2_jit_prepare_build(jit, rq, t, gen, entry, may_write, &req);
    int rc = op2_build_into_entry(&req, &res);
    if (res.not_stored) op2_jit_cache_unwritable(jit, cnt, res.why.msg);
    if (rc == OP2_BUILD_OK) {
      op2_jit_adopt_build(k, &res, OP2_TIER_CC);
      k->cc_compile_ms = res.compile_ms;
      if (res.reused)
        cnt->disk_hits++, k->origin = OP2_FROM_DISK;
      else
        cnt->cc_compiles++;
    } else {
      cnt->cc_failures++;
      op2_jit_diag(jit, 0,
                   "optimised build of Fortran loop '%s' failed (%s): the program's procedure "
                   "runs by its address (OP2_FC=%s OP2_FFLAGS=%s)%s%s",
                   k->name, res.why.msg, jit->cfg.fc, jit->cfg.fflags,
                   res.log && *res.log ? "\n" : "", res.log ? res.log : "");
    }
    op2_build_result_clear(&res);
    return;
  }
  op2_jit_upgrade_with(jit, rq, cnt, t, k, gen, root ? entry : "", may_write);
}
