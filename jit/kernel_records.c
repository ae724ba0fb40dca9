/* SPDX-License-Identifier: BSD-3-Clause */
/* Small records about one kernel's build, kept beside the cache's entries as
 * ROOT/KIND/NAME-KEY16.txt and keyed like the build they speak of (source, compiler identity,
 * flags), so that a later run knows without compiling:
 *   warnings  the warnings check's lines about the kernel (OP2_DIAGS >= 1), empty when none
 *   failures  an optimised build the compiler rejected (build_failures.c): not tried again until
 *             the source, compiler or flags change, or `op2-cache retry` removes the record
 *   loader    a kernel object the direct loader left to dlopen, and why (OP2_DIAGS=2 says it)
 * Records are written whole (temporary file, rename) in a private directory and read only from
 * one. A record that cannot be read is as none: the library does what it would do without it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache_entry.h"
#include "jit_internal.h"

/* ROOT/KIND opened (created when `create`), or -1 when missing or not private (why not in
 * *err). */
static int open_dir(const char *root, const char *kind, int create, op2_jit_error *err) {
  char dir[OP2_PATH_BUF];
  snprintf(dir, sizeof dir, "%s/%s", root, kind);
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

int op2_kernel_record_read(const char *root, const char *kind, const char *name,
                           const op2_cache_key *key, char **text) {
  *text = NULL;
  char file[300];
  op2_jit_error why;
  int dfd = open_dir(root, kind, 0, &why); /* none yet */
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

int op2_kernel_record_write(const char *root, const char *kind, const char *name,
                            const op2_cache_key *key, const char *text, size_t len,
                            op2_jit_error *why) {
  int dfd = open_dir(root, kind, 1, why), rc = OP2_ERR_IO;
  if (dfd >= 0) {
    char file[300];
    record_name(name, key, file, sizeof file);
    rc = op2_write_atomic_at(dfd, file, text, len, why);
    close(dfd);
  }
  return rc;
}
