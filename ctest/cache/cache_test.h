/* SPDX-License-Identifier: BSD-3-Clause */
/* Support for the kernel cache tests. Each test is a driver that runs the program cache_prog
 * (argv[1]) and the tool op2-cache (argv[2]) as fresh processes against its own temporary cache
 * directory, and checks what they print and what they leave on disk. argv[3], when given, names
 * the one case to run (each case is registered as its own meson test).
 * Children get OP2_JIT from OP2_TEST_JIT (default "tcc", so that every kernel has exactly one
 * entry) and OP2_DIAGS=1, so a refused entry's reason lands in the test log. */
#ifndef OP2_CACHE_TEST_H
#define OP2_CACHE_TEST_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <spawn.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test.h"

extern char **environ;

#define CT_NKERNELS 4 /* the loops cache_prog runs: init, spread, fill, total */
#define CT_SKIP 77    /* meson's exit status for a skipped test */

static const char *ct_prog_path, *ct_tool_path, *ct_case;
static char ct_base[4096];

/* Formats into a fresh string; tests are short-lived, so these are never freed. */
static inline char *ct_str(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline char *ct_str(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = NULL;
  int n = vasprintf(&s, fmt, ap);
  va_end(ap);
  CHECK(n >= 0 && s);
  return s;
}

static inline void ct_setup(int argc, char **argv) {
  CHECK(argc >= 2);
  ct_prog_path = argv[1];
  ct_tool_path = argc >= 3 ? argv[2] : NULL;
  ct_case = argc >= 4 ? argv[3] : NULL;
  const char *parent = getenv("OP2_TEST_TMPDIR");
  if (!parent || !*parent) parent = getenv("TMPDIR");
  if (!parent || !*parent) parent = "/tmp";
  snprintf(ct_base, sizeof ct_base, "%s/op2-cache-test-XXXXXX", parent);
  CHECK(mkdtemp(ct_base) != NULL);
  fprintf(stderr, "test directory %s\n", ct_base);
}

/* Whether case `name` is to run. */
static inline int ct_want(const char *name) {
  if (ct_case && strcmp(ct_case, name) != 0) return 0;
  fprintf(stderr, "---- case %s\n", name);
  return 1;
}

/* ---- running programs ---- */

typedef struct ct_output {
  int status; /* exit status; 128 + signal when killed */
  char *text; /* stdout, plus stderr when merged */
} ct_output;

/* Runs exe with args (NULL-terminated). env entries "NAME=value" set a variable and "NAME" unsets
 * it; the rest of the environment is inherited. */
static inline ct_output ct_spawn(const char *exe, const char *const *args, const char *const *env,
                                 int merge_stderr) {
  const char *argv[64];
  int argc = 0;
  argv[argc++] = exe;
  for (int i = 0; args && args[i]; i++) argv[argc++] = args[i];
  argv[argc] = NULL;
  int nenv = 0, nset = 0;
  while (environ[nenv]) nenv++;
  while (env && env[nset]) nset++;
  const char **envp = calloc((size_t)(nenv + nset + 1), sizeof *envp);
  CHECK(envp);
  int k = 0;
  for (int i = 0; i < nenv; i++) {
    int overridden = 0;
    for (int j = 0; j < nset; j++) {
      size_t len = strcspn(env[j], "=");
      if (strncmp(environ[i], env[j], len) == 0 && environ[i][len] == '=') overridden = 1;
    }
    if (!overridden) envp[k++] = environ[i];
  }
  for (int j = 0; j < nset; j++)
    if (strchr(env[j], '=')) envp[k++] = env[j];
  envp[k] = NULL;

  int fds[2];
  CHECK(pipe(fds) == 0);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  if (merge_stderr) posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
  posix_spawn_file_actions_addclose(&fa, fds[1]);
  pid_t pid;
  int rc = posix_spawn(&pid, exe, &fa, NULL, (char *const *)argv, (char *const *)envp);
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  free(envp);
  if (rc != 0) fprintf(stderr, "cannot run %s: %s\n", exe, strerror(rc));
  CHECK(rc == 0);
  size_t len = 0, cap = 4096;
  char *text = malloc(cap);
  CHECK(text);
  for (;;) {
    if (len + 1 == cap) CHECK((text = realloc(text, cap *= 2)) != NULL);
    ssize_t got = read(fds[0], text + len, cap - len - 1);
    if (got < 0 && errno == EINTR) continue;
    CHECK(got >= 0);
    if (got == 0) break;
    len += (size_t)got;
  }
  text[len] = '\0';
  close(fds[0]);
  int status;
  while (waitpid(pid, &status, 0) < 0) CHECK(errno == EINTR);
  ct_output out = {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), text};
  return out;
}

typedef struct ct_counts {
  int compiled, disk, refused;
  char result[512];
} ct_counts;

/* Copies the line of `text` that starts with `prefix` (the test fails if there is none). */
static inline void ct_line(const char *text, const char *prefix, char *out, size_t len) {
  const char *p = strstr(text, prefix);
  while (p && p != text && p[-1] != '\n') p = strstr(p + 1, prefix);
  if (!p) fprintf(stderr, "no line starting with '%s' in:\n%s\n", prefix, text);
  CHECK(p != NULL);
  size_t n = strcspn(p, "\n");
  CHECK(n < len);
  memcpy(out, p, n);
  out[n] = '\0';
}

/* Runs cache_prog with the cache at `dir` (NULL: OP2_CACHE_DIR unset), OP2_CACHE=mode (NULL:
 * unset), extra environment `env` and program arguments `args`; it must succeed. */
/* Monotonic seconds. */
static inline double ct_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline ct_counts ct_prog_env(const char *dir, const char *mode, const char *const *env,
                                    const char *const *args) {
  const char *jit = getenv("OP2_TEST_JIT");
  const char *all[32];
  int n = 0;
  all[n++] = dir ? ct_str("OP2_CACHE_DIR=%s", dir) : "OP2_CACHE_DIR";
  all[n++] = mode ? ct_str("OP2_CACHE=%s", mode) : "OP2_CACHE";
  all[n++] = ct_str("OP2_JIT=%s", jit && *jit ? jit : "tcc");
  all[n++] = "OP2_DIAGS=1";
  for (int i = 0; env && env[i] && n < 31; i++) all[n++] = env[i];
  all[n] = NULL;
  ct_output out = ct_spawn(ct_prog_path, args, all, 0);
  if (out.status != 0) fprintf(stderr, "cache_prog exited with %d:\n%s\n", out.status, out.text);
  CHECK_EQ_INT(out.status, 0);
  ct_counts c;
  char line[512];
  ct_line(out.text, "counters ", line, sizeof line);
  CHECK_EQ_INT(
      sscanf(line, "counters compiled %d disk %d refused %d", &c.compiled, &c.disk, &c.refused), 3);
  /* The public summary must say the same. */
  const char *t = strstr(out.text, "kernels compiled ");
  int tc, td, tr;
  CHECK(t && sscanf(t, "kernels compiled %d, from disk cache %d, cache entries refused %d", &tc,
                    &td, &tr) == 3);
  CHECK_EQ_INT(tc, c.compiled);
  CHECK_EQ_INT(td, c.disk);
  CHECK_EQ_INT(tr, c.refused);
  ct_line(out.text, "result ", c.result, sizeof c.result);
  fprintf(stderr, "cache_prog%s%s: compiled %d, disk %d, refused %d\n", args && args[0] ? " " : "",
          args && args[0] ? args[0] : "", c.compiled, c.disk, c.refused);
  free(out.text);
  return c;
}

static inline ct_counts ct_prog(const char *dir, const char *mode, const char *const *args) {
  return ct_prog_env(dir, mode, NULL, args);
}

/* Expects the counters of a run. */
#define CT_EXPECT(c, ncompiled, ndisk, nrefused) \
  do {                                           \
    CHECK_EQ_INT((c).compiled, ncompiled);       \
    CHECK_EQ_INT((c).disk, ndisk);               \
    CHECK_EQ_INT((c).refused, nrefused);         \
  } while (0)

/* Runs op2-cache with `args` (NULL-terminated), stdout and stderr together. */
static inline ct_output ct_tool_env(const char *const *env, const char *const *args) {
  CHECK(ct_tool_path != NULL);
  return ct_spawn(ct_tool_path, args, env, 1);
}

static inline ct_output ct_tool(const char *const *args) {
  return ct_tool_env(NULL, args);
}

/* ---- files and directories ---- */

/* LOOP-<16 hex digits> */
static inline int ct_is_entry_name(const char *d) {
  size_t n = strlen(d);
  if (n < 18 || d[n - 17] != '-') return 0;
  for (size_t i = n - 16; i < n; i++)
    if (!strchr("0123456789abcdef", d[i])) return 0;
  return 1;
}

/* The names of root's entry directories, sorted, as one newline-separated string. */
static inline char *ct_entries(const char *root) {
  struct dirent **list;
  int n = scandir(root, &list, NULL, alphasort);
  char *s = ct_str("%s", "");
  for (int i = 0; i < n; i++) {
    if (ct_is_entry_name(list[i]->d_name)) s = ct_str("%s%s\n", s, list[i]->d_name);
    free(list[i]);
  }
  if (n > 0) free(list);
  return s;
}

static inline int ct_count_lines(const char *s) {
  int n = 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}

static inline int ct_count_entries(const char *root) {
  return ct_count_lines(ct_entries(root));
}

/* Entries of `after` that are not in `before` (both from ct_entries). */
static inline char *ct_new_entries(const char *before, const char *after) {
  char *s = ct_str("%s", ""), *hay = ct_str("\n%s", before);
  for (const char *p = after; *p;) {
    size_t n = strcspn(p, "\n");
    if (!strstr(hay, ct_str("\n%.*s\n", (int)n, p))) s = ct_str("%s%.*s\n", s, (int)n, p);
    p += n + (p[n] == '\n');
  }
  return s;
}

/* The path of loop `loop`'s only entry in root; the test fails unless there is exactly one. */
static inline char *ct_entry_of(const char *root, const char *loop) {
  char *all = ct_entries(root), *found = NULL;
  size_t len = strlen(loop);
  int count = 0;
  for (const char *p = all; *p;) {
    size_t n = strcspn(p, "\n");
    if (n == len + 17 && strncmp(p, loop, len) == 0) {
      found = ct_str("%s/%.*s", root, (int)n, p);
      count++;
    }
    p += n + 1;
  }
  if (count != 1) fprintf(stderr, "%d entries for loop '%s' in %s:\n%s", count, loop, root, all);
  CHECK_EQ_INT(count, 1);
  return found;
}

static inline char *ct_read(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) fprintf(stderr, "cannot read %s: %s\n", path, strerror(errno));
  CHECK(f != NULL);
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  CHECK(buf);
  for (size_t got; (got = fread(buf + n, 1, cap - n - 1, f)) > 0;) {
    n += got;
    if (n + 1 == cap) CHECK((buf = realloc(buf, cap *= 2)) != NULL);
  }
  CHECK(!ferror(f));
  fclose(f);
  buf[n] = '\0';
  if (len) *len = n;
  return buf;
}

static inline void ct_write(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f) fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
  CHECK(f != NULL);
  CHECK(fwrite(data, 1, len, f) == len);
  CHECK(fclose(f) == 0);
}

static inline void ct_set_mtime(const char *path, time_t t) {
  struct timespec ts[2] = {{t, 0}, {t, 0}};
  CHECK(utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW) == 0);
}

static inline time_t ct_mtime(const char *path) {
  struct stat st;
  CHECK(lstat(path, &st) == 0);
  return st.st_mtime;
}

/* A tree's state: every path with its type, mode, owner, size, inode and modification time, so
 * that any write, replacement or touch shows up as a difference. */
static char *ct_snap_text;
static size_t ct_snap_skip;

static inline int ct_snap_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)flag, (void)ftw;
  ct_snap_text =
      ct_str("%s%s %o %d %lld %llu %lld.%09ld\n", ct_snap_text, path + ct_snap_skip,
             (unsigned)st->st_mode, (int)st->st_uid, (long long)st->st_size,
             (unsigned long long)st->st_ino, (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec);
  return 0;
}

static inline char *ct_snapshot(const char *dir) {
  ct_snap_text = ct_str("%s", "");
  ct_snap_skip = strlen(dir);
  CHECK(nftw(dir, ct_snap_one, 16, FTW_PHYS) == 0);
  return ct_snap_text;
}

#define CHECK_SAME_TREE(before, after)                                              \
  do {                                                                              \
    if (strcmp(before, after) != 0)                                                 \
      fprintf(stderr, "tree changed:\n--- before\n%s--- after\n%s", before, after); \
    CHECK(strcmp(before, after) == 0);                                              \
  } while (0)

/* Cleanup: owner-writable directories first (a test may have made some read-only), then remove
 * everything bottom-up without following links. */
static inline int ct_unlock_one(const char *path, const struct stat *st, int flag,
                                struct FTW *ftw) {
  (void)ftw, (void)flag;
  if (S_ISDIR(st->st_mode)) chmod(path, 0700);
  return 0;
}

static inline int ct_remove_one(const char *path, const struct stat *st, int flag,
                                struct FTW *ftw) {
  (void)st, (void)ftw;
  if (remove(path) != 0) fprintf(stderr, "cannot remove %s (%d)\n", path, flag);
  return 0;
}

static inline void ct_cleanup(void) {
  nftw(ct_base, ct_unlock_one, 16, FTW_PHYS);
  nftw(ct_base, ct_remove_one, 16, FTW_PHYS | FTW_DEPTH);
}

#endif
