/* SPDX-License-Identifier: BSD-3-Clause */
/* Bounded reads of regular files, temporary files with unpredictable names, atomic writes, the
 * default cache root and programs on PATH (file_io.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/file_io.h"

int op2_open_regular(int dirfd, const char *path, int nofollow, struct stat *st,
                     op2_jit_error *why) {
  /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever. */
  int fd = openat(dirfd, path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
  if (fd < 0) {
    int err = errno;
    if (err == ENOENT)
      op2_jit_error_set(why, OP2_ERR_IO, "%s: no such file", path);
    else if (err == ELOOP && nofollow)
      op2_jit_error_set(why, OP2_ERR_IO, "%s is a symbolic link", path);
    else
      op2_jit_error_set(why, OP2_ERR_IO, "cannot open %s: %s", path, strerror(err));
    errno = err;
    return -1;
  }
  if (fstat(fd, st) != 0) {
    int err = errno;
    close(fd);
    op2_jit_error_set(why, OP2_ERR_IO, "cannot read %s: %s", path, strerror(err));
    errno = err;
    return -1;
  }
  if (!S_ISREG(st->st_mode)) {
    close(fd);
    mode_t m = st->st_mode;
    op2_jit_error_set(why, OP2_ERR_IO, "%s is not a regular file (a %s)", path,
                      S_ISFIFO(m)   ? "FIFO"
                      : S_ISCHR(m)  ? "character device"
                      : S_ISBLK(m)  ? "block device"
                      : S_ISDIR(m)  ? "directory"
                      : S_ISSOCK(m) ? "socket"
                                    : "special file");
    errno = EINVAL;
    return -1;
  }
  /* A regular file never blocks; a later read is plain. */
  int fl = fcntl(fd, F_GETFL);
  if (fl >= 0) (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  return fd;
}

static int too_big(const char *path, size_t cap, op2_jit_error *why) {
  op2_jit_error_set(why, OP2_ERR_IO,
                    "%s is larger than the %zu bytes (%zu MiB) the library reads from such a file",
                    path, cap, cap >> 20);
  errno = EFBIG;
  return -1;
}

int op2_read_regular_at(int dirfd, const char *path, int nofollow, size_t cap, char **data,
                        size_t *len, op2_jit_error *why) {
  *data = NULL;
  *len = 0;
  struct stat st;
  int fd = op2_open_regular(dirfd, path, nofollow, &st, why);
  if (fd < 0) return -1;
  if (st.st_size < 0 || (unsigned long long)st.st_size > cap) {
    close(fd);
    return too_big(path, cap, why);
  }
  /* The size is a hint only (/proc files say 0; a file may grow while it is read): read until
   * the end, never past the cap, in a loop (read returns less than asked for large files). */
  size_t n = 0, room = (size_t)st.st_size + 1 < 4096 ? 4096 : (size_t)st.st_size + 1;
  char *buf = malloc(room);
  int err = buf ? 0 : ENOMEM;
  while (!err) {
    if (n + 1 >= room) {
      if (n >= cap + 1) break;
      size_t bigger = room * 2 > cap + 2 ? cap + 2 : room * 2;
      char *nb = realloc(buf, bigger);
      if (!nb) {
        err = ENOMEM;
        break;
      }
      buf = nb, room = bigger;
    }
    ssize_t got = read(fd, buf + n, room - n - 1);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) err = errno;
    if (got <= 0) break;
    n += (size_t)got;
  }
  close(fd);
  if (!err && n > cap) {
    free(buf);
    return too_big(path, cap, why);
  }
  if (err) {
    free(buf);
    op2_jit_error_set(why, OP2_ERR_IO, "cannot read %s: %s", path, strerror(err));
    errno = err;
    return -1;
  }
  buf[n] = '\0';
  *data = buf;
  *len = n;
  return 0;
}

int op2_read_regular_file(const char *path, size_t cap, char **data, size_t *len,
                          op2_jit_error *why) {
  return op2_read_regular_at(AT_FDCWD, path, 0, cap, data, len, why);
}

static const char name_chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/* 8 characters no other user can predict: from the kernel's random source, else (a kernel
 * without getrandom) from the clock and the process id mixed, which O_EXCL still makes safe. */
static void random_suffix(char out[9]) {
  unsigned char r[8];
  if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    unsigned long long x = (unsigned long long)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^
                           (unsigned long long)getpid() << 32 ^ (unsigned long long)ts.tv_sec;
    for (int i = 0; i < 8; i++) r[i] = (unsigned char)(x >> (8 * i));
  }
  for (int i = 0; i < 8; i++) out[i] = name_chars[r[i] % (sizeof name_chars - 1)];
  out[8] = '\0';
}

int op2_temp_create_at(int dirfd, const char *base, mode_t mode, char *name, size_t namelen) {
  for (int attempt = 0; attempt < 100; attempt++) {
    char suffix[9];
    random_suffix(suffix);
    if ((size_t)snprintf(name, namelen, "%s.tmp%s", base, suffix) >= namelen) {
      errno = ENAMETOOLONG;
      return -1;
    }
    int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

int op2_is_temp_suffix(const char *suffix) {
  if (strncmp(suffix, ".tmp", 4) != 0 || !suffix[4]) return 0;
  for (const char *p = suffix + 4; *p; p++)
    if (!isalnum((unsigned char)*p)) return 0;
  return 1;
}

int op2_write_atomic_at(int dirfd, const char *file, const void *data, size_t len,
                        op2_jit_error *e) {
  /* An unpredictable name, created exclusively: a link or file planted at a guessable name
   * (FILE.tmpPID in a shared directory) is never written through. */
  char tmp[OP2_PATH_BUF];
  int fd = op2_temp_create_at(dirfd, file, 0600, tmp, sizeof tmp);
  if (fd < 0)
    return op2_jit_error_set(e, OP2_ERR_IO, "cannot create a temporary file for %s: %s", file,
                             strerror(errno));
  const char *p = data;
  size_t left = len;
  int err = 0;
  while (left > 0) {
    ssize_t w = write(fd, p, left);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      err = w < 0 ? errno : ENOSPC;
      break;
    }
    p += w, left -= (size_t)w;
  }
  if (close(fd) != 0 && !err) err = errno;
  if (!err && renameat(dirfd, tmp, dirfd, file) != 0) err = errno;
  if (err) {
    unlinkat(dirfd, tmp, 0);
    return op2_jit_error_set(e, OP2_ERR_IO, "cannot write %s: %s", file, strerror(err));
  }
  return OP2_OK;
}

int op2_write_file_atomic(const char *path, const void *data, size_t len, op2_jit_error *err) {
  return op2_write_atomic_at(AT_FDCWD, path, data, len, err);
}

int op2_cache_default_root(char *out, size_t len) {
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  int n;
  if (xdg && *xdg)
    n = snprintf(out, len, "%s/op2", xdg);
  else if (home && *home)
    n = snprintf(out, len, "%s/.cache/op2", home);
  else
    n = snprintf(out, len, "/tmp/op2-cache-%d", (int)getuid());
  return n > 0 && (size_t)n < len ? 0 : -1;
}

/* An executable regular file (a directory passes access(X_OK)). */
static int is_program(const char *path) {
  struct stat st;
  return access(path, X_OK) == 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int op2_find_program(const char *name, char *out, size_t len) {
  if (!*name) return -1;
  if (strchr(name, '/')) return realpath(name, out) && is_program(out) ? 0 : -1;
  const char *path = getenv("PATH");
  if (!path) path = "/usr/bin:/bin";
  while (*path) {
    const char *end = strchr(path, ':');
    size_t n = end ? (size_t)(end - path) : strlen(path);
    char candidate[OP2_PATH_BUF];
    snprintf(candidate, sizeof candidate, "%.*s/%s", (int)n, n ? path : ".", name);
    if (is_program(candidate) && realpath(candidate, out)) return 0;
    path += n + (end != NULL);
  }
  (void)len;
  return -1;
}
