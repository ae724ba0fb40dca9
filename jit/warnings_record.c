/* SPDX-License-Identifier: BSD-3-Clause */
/* The result of a kernel's warnings check (OP2_DIAGS >= 1: a full compile by the system compiler
 * for each kernel), kept as a record ROOT/warnings/NAME-KEY16.txt keyed like the optimised
 * build (source, compiler identity, flags): the check runs once per kernel, not on every run
 * from a warm cache. A record holds the warning lines found, empty when there were none. Records
 * are written whole (temporary file, rename) in a private directory and read only from one. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache_entry.h"
#include "jit_internal.h"

/* ROOT/warnings opened (created when `create`), or -1 when missing or not private (why not in
 * *err). */
static int open_dir(const char *root, int create, op2_jit_error *err) {
  char dir[OP2_PATH_BUF];
  snprintf(dir, sizeof dir, "%s/warnings", root);
  if (create && mkdir(dir, 0700) != 0 && errno != EEXIST)
    return op2_jit_error_set(err, OP2_ERR_IO, "cannot create %s: %s", dir, strerror(errno)), -1;
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  struct stat st;
  if (fd < 0) op2_jit_error_set(err, OP2_ERR_IO, "cannot open %s: %s", dir, strerror(errno));
  if (fd >= 0 && (fstat(fd, &st) != 0 || op2_cache_private(&st, dir, err) != OP2_OK)) {
    close(fd);
    fd = -1;
  }
  return fd;
}

static void record_name(const char *name, const op2_cache_key *key, char *out, size_t len) {
  snprintf(out, len, "%.200s-%.16s.txt", name, key->hex);
}

int op2_warnings_record_read(const char *root, const char *name, const op2_cache_key *key,
                             char **text) {
  *text = NULL;
  char file[300];
  op2_jit_error why;
  int dfd = open_dir(root, 0, &why); /* none yet: the check runs */
  if (dfd < 0) return -1;
  record_name(name, key, file, sizeof file);
  int fd = openat(dfd, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  close(dfd);
  struct stat st;
  size_t len;
  int ok = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
           op2_cache_private(&st, file, &why) == OP2_OK && st.st_size < (1 << 20) &&
           op2_read_fd(fd, text, &len) == 0;
  if (fd >= 0) close(fd);
  if (ok && strlen(*text) != len) ok = 0;
  if (!ok) free(*text), *text = NULL;
  return ok ? 0 : -1;
}

void op2_warnings_record_write(op2_jit *jit, const char *root, const char *name,
                               const op2_cache_key *key, const char *text, size_t len) {
  op2_jit_error why;
  int dfd = open_dir(root, 1, &why), rc = OP2_ERR_IO;
  if (dfd >= 0) {
    char file[300];
    record_name(name, key, file, sizeof file);
    rc = op2_write_atomic_at(dfd, file, text, len, &why);
    close(dfd);
  }
  /* no record: the check runs again next time */
  if (rc != OP2_OK)
    op2_jit_diag(jit, 1, "loop '%s': the warnings check's result is not kept (%s)", name, why.msg);
}
