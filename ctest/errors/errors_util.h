/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers shared by the error-path tests: reading files back, capturing what the library prints,
 * scratch directories that are removed afterwards. */
#ifndef OP2_ERRORS_UTIL_H
#define OP2_ERRORS_UTIL_H

#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"

/* The whole file as a string (malloc'ed), or NULL when it cannot be read. */
static inline char *eu_read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  size_t n;
  while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
    len += n;
    if (cap - len - 1 == 0) {
      char *nb = realloc(buf, cap *= 2);
      if (!nb) free(buf);
      buf = nb;
    }
  }
  fclose(f);
  if (buf) buf[len] = '\0';
  return buf;
}

/* Runs body(arg) in a child process with stderr in a file, the child exiting 0 after it; returns
 * the child's wait status and what it printed (*err, malloc'ed). */
static inline int eu_in_child(void (*body)(const void *), const void *arg, char **err) {
  char path[] = "/tmp/op2-child-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  fflush(NULL);
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    dup2(fd, STDERR_FILENO);
    body(arg);
    _exit(0);
  }
  int status = 0;
  CHECK(waitpid(pid, &status, 0) == pid);
  close(fd);
  *err = eu_read_file(path);
  CHECK(*err != NULL);
  unlink(path);
  return status;
}

static inline int eu_is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Number of entries in a directory other than . and .., or -1 when it cannot be opened. */
static inline int eu_count_entries(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  for (struct dirent *e; (e = readdir(d));)
    n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
  closedir(d);
  return n;
}

/* Creates a fresh directory under TMPDIR (or /tmp) and writes its path to out. */
static inline void eu_make_scratch(char *out, size_t len, const char *tag) {
  const char *tmp = getenv("TMPDIR");
  snprintf(out, len, "%s/op2-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", tag);
  CHECK(mkdtemp(out) != NULL);
}

static inline int eu_remove_one(const char *path, const struct stat *st, int flag,
                                struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

static inline void eu_remove_tree(const char *dir) {
  nftw(dir, eu_remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Runs fn() with stdout sent to a temporary file and returns what it printed (malloc'ed). */
static inline char *eu_capture_stdout(void (*fn)(void)) {
  fflush(stdout);
  FILE *tmp = tmpfile();
  CHECK(tmp != NULL);
  int saved = dup(STDOUT_FILENO);
  CHECK(saved >= 0);
  CHECK(dup2(fileno(tmp), STDOUT_FILENO) >= 0);
  fn();
  fflush(stdout);
  CHECK(dup2(saved, STDOUT_FILENO) >= 0);
  close(saved);
  long len = ftell(tmp);
  CHECK(len >= 0);
  char *buf = malloc((size_t)len + 1);
  CHECK(buf != NULL);
  rewind(tmp);
  CHECK(fread(buf, 1, (size_t)len, tmp) == (size_t)len);
  buf[len] = '\0';
  fclose(tmp);
  return buf;
}

#endif
