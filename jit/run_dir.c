/* SPDX-License-Identifier: BSD-3-Clause */
/* A private directory for one run of a tool (a compiler's syntax or warnings check, ptxas): made
 * with mkdtemp under TMPDIR (0700, a name no one can predict), the tool's input written into it
 * and its output named inside it, then removed whole. A tool is never given a path the library
 * did not create for that run: not /dev/null (a compiler that unlinks its output first, as
 * TinyCC's command line does, would replace the machine's /dev/null with a regular file), nor a
 * guessable name in a shared directory. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jit_internal.h"

int op2_run_dir_open(op2_run_dir *d, op2_buf *why) {
  snprintf(d->path, sizeof d->path, "%s/op2-run-XXXXXX", op2_temp_dir());
  d->fd = -1;
  const char *made = mkdtemp(d->path);
  if (made) d->fd = open(made, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (d->fd >= 0) return 0;
  int err = errno;
  op2_buf_printf(why, "cannot %s a private directory in %s: %s\n", made ? "open" : "create",
                 op2_temp_dir(), strerror(err));
  if (made) rmdir(made);
  d->path[0] = '\0';
  return -1;
}

void op2_run_dir_file(const op2_run_dir *d, const char *file, char *out, size_t len) {
  snprintf(out, len, "%s/%s", d->path, file);
}

int op2_run_dir_write(const op2_run_dir *d, const char *file, const void *data, size_t len,
                      op2_buf *why) {
  int fd = openat(d->fd, file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  const char *p = data;
  size_t left = len;
  while (fd >= 0 && left > 0) {
    ssize_t n = write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    p += n, left -= (size_t)n;
  }
  int err = fd < 0 || left ? errno : 0;
  if (fd >= 0 && close(fd) != 0 && !err) err = errno;
  if (!err) return 0;
  op2_buf_printf(why, "cannot write %s/%s: %s\n", d->path, file, strerror(err ? err : EIO));
  return -1;
}

/* Everything in it, then the directory: what the tool left there is its own (files only: a
 * subdirectory a tool made would stay, and so would the directory). */
void op2_run_dir_close(op2_run_dir *d) {
  if (d->fd < 0) return;
  int fd = dup(d->fd);
  DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
  if (!dir && fd >= 0) close(fd);
  for (struct dirent *de; dir && (de = readdir(dir)) != NULL;)
    if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
      unlinkat(d->fd, de->d_name, 0);
  if (dir) closedir(dir);
  close(d->fd);
  d->fd = -1;
  rmdir(d->path);
}
