/* SPDX-License-Identifier: BSD-3-Clause */
/* Output files written through devices, FIFOs and links, replaced atomically otherwise
 * (output_file.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "runtime/output_file.h"
#include "base/file_io.h"

/* TARGET_OWN: a link led to a name of one of this process's descriptors (/dev/stdout, ...). */
enum target_kind { TARGET_NEW, TARGET_REGULAR, TARGET_OTHER, TARGET_OWN };

/* The descriptor a name of this process's own descriptors means (/dev/stdout, /dev/stderr,
 * /dev/fd/N, /proc/self/fd/N), else -1. Such an output is written to that descriptor: reopening
 * the file it leads to would start at its beginning (a redirected log overwritten), and
 * replacing that file would cut the descriptor off from it. */
static int own_descriptor(const char *path) {
  if (strcmp(path, "/dev/stdout") == 0) return STDOUT_FILENO;
  if (strcmp(path, "/dev/stderr") == 0) return STDERR_FILENO;
  const char *num = strncmp(path, "/dev/fd/", 8) == 0          ? path + 8
                    : strncmp(path, "/proc/self/fd/", 14) == 0 ? path + 14
                                                               : NULL;
  if (!num || !*num) return -1;
  char *end;
  long fd = strtol(num, &end, 10);
  return *end || fd < 0 || fd > INT_MAX ? -1 : (int)fd;
}

/* What `path` names, into `out` and *kind (its status in *st unless new), following symbolic
 * links at its last component by hand, one at a time, each read through the descriptor its
 * status was taken from: a link is followed only when it belongs to this user or to root, so a
 * link another user planted (or swapped in while we look) in a directory others may write never
 * leads our output to a file of theirs choosing. A device or FIFO keeps its path (opened as the
 * user asked); a regular file or a new name is the one to create or rename over; a name of one of
 * this process's descriptors stops the walk (TARGET_OWN, `out` that name): /proc/self/fd/N reads
 * "pipe:[N]" or the redirected file, neither of which may be opened again by name. Directories on
 * the way are the kernel's to resolve. */
static int resolve(const char *path, char *out, size_t len, struct stat *st, int *kind,
                   op2_jit_error *why) {
  if ((size_t)snprintf(out, len, "%s", path) >= len) {
    op2_jit_error_set(why, OP2_ERR_IO, "%s: the path is too long", path);
    return errno = ENAMETOOLONG, -1;
  }
  for (int hops = 0; hops < 40; hops++) {
    if (hops > 0 && own_descriptor(out) >= 0) return *kind = TARGET_OWN, 0;
    int fd = open(out, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOENT) return *kind = TARGET_NEW, 0;
      int err = errno;
      op2_jit_error_set(why, OP2_ERR_IO, "%s: %s", out, strerror(err));
      return errno = err, -1;
    }
    if (fstat(fd, st) != 0) {
      int err = errno;
      close(fd);
      op2_jit_error_set(why, OP2_ERR_IO, "%s: %s", out, strerror(err));
      return errno = err, -1;
    }
    if (!S_ISLNK(st->st_mode)) {
      close(fd);
      *kind = S_ISREG(st->st_mode) ? TARGET_REGULAR : TARGET_OTHER;
      return 0;
    }
    if (st->st_uid != geteuid() && st->st_uid != 0) {
      close(fd);
      op2_jit_error_set(why, OP2_ERR_IO,
                        "%s is a symbolic link that belongs to another user (uid %u): not followed",
                        out, (unsigned)st->st_uid);
      return errno = EPERM, -1;
    }
    char link[OP2_PATH_MAX];
    ssize_t n = readlinkat(fd, "", link, sizeof link - 1);
    int err = errno;
    close(fd);
    if (n < 0) {
      op2_jit_error_set(why, OP2_ERR_IO, "%s: cannot read the link: %s", out, strerror(err));
      return errno = err, -1;
    }
    link[n] = '\0';
    char *slash = strrchr(out, '/');
    char next[OP2_PATH_MAX];
    int fit = link[0] == '/' || !slash
                  ? snprintf(next, sizeof next, "%s", link)
                  : snprintf(next, sizeof next, "%.*s/%s", (int)(slash - out), out, link);
    if (fit < 0 || (size_t)fit >= sizeof next || (size_t)fit >= len) {
      op2_jit_error_set(why, OP2_ERR_IO, "%s: the link's target path is too long", path);
      return errno = ENAMETOOLONG, -1;
    }
    memcpy(out, next, (size_t)fit + 1);
  }
  op2_jit_error_set(why, OP2_ERR_IO, "%s: too many levels of symbolic links", path);
  return errno = ELOOP, -1;
}

/* What a non-regular file is, for messages. */
static const char *kind_of(mode_t mode) {
  return S_ISDIR(mode)    ? "directory"
         : S_ISFIFO(mode) ? "FIFO"
         : S_ISCHR(mode)  ? "character device"
         : S_ISBLK(mode)  ? "block device"
         : S_ISSOCK(mode) ? "socket"
                          : "special file";
}

/* The directory part of `target` opened, its last component into `base`. */
static int open_directory(const char *target, char *base, size_t baselen, op2_jit_error *why) {
  const char *slash = strrchr(target, '/');
  const char *name = slash ? slash + 1 : target;
  if (!*name || (size_t)snprintf(base, baselen, "%s", name) >= baselen) {
    op2_jit_error_set(why, OP2_ERR_IO, "%s: not a usable file name", target);
    return errno = EINVAL, -1;
  }
  char dir[OP2_PATH_MAX];
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else if (slash == target)
    snprintf(dir, sizeof dir, "/");
  else
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - target), target);
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    op2_jit_error_set(why, OP2_ERR_IO, "its directory %s cannot be opened: %s", dir, strerror(err));
    errno = err;
  }
  return fd;
}

/* A device or FIFO opened for writing without blocking: a FIFO nobody has open for reading
 * (ENXIO) is waited for a moment (a reader starting at the same time), then refused. */
static int open_special(const char *target, const char *it, op2_jit_error *why) {
  for (int tries = 0;; tries++) {
    int fd = open(target, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd >= 0) {
      int fl = fcntl(fd, F_GETFL);
      if (fl >= 0) (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK); /* then written as usual */
      return fd;
    }
    if (errno != ENXIO || tries == 200) {
      int err = errno;
      if (err == ENXIO)
        op2_jit_error_set(why, OP2_ERR_IO, "%s is a FIFO that no process has open for reading", it);
      else
        op2_jit_error_set(why, OP2_ERR_IO, "%s cannot be opened for writing: %s", it,
                          strerror(err));
      return errno = err, -1;
    }
    nanosleep(&(struct timespec){.tv_nsec = 10 * 1000 * 1000}, NULL);
  }
}

static int output_open(op2_output *o, const char *path, int regular_only, op2_jit_error *why) {
  memset(o, 0, sizeof *o);
  o->dirfd = -1;
  snprintf(o->path, sizeof o->path, "%s", path);
  int own = own_descriptor(path);
  char target[OP2_PATH_MAX];
  struct stat st;
  int kind = TARGET_NEW;
  if (own < 0) {
    if (resolve(path, target, sizeof target, &st, &kind, why) != 0) return -1;
    if (kind == TARGET_OWN) own = own_descriptor(target);
  }
  if (own >= 0 && regular_only) {
    op2_jit_error_set(why, OP2_ERR_IO, "it is not a regular file (descriptor %d of this process)",
                      own);
    return errno = EINVAL, -1;
  }
  if (own >= 0) {
    fflush(NULL); /* what the program printed before comes first */
    int fd = fcntl(own, F_DUPFD_CLOEXEC, 0);
    if (fd < 0) {
      int err = errno;
      op2_jit_error_set(why, OP2_ERR_IO, "descriptor %d cannot be used: %s", own, strerror(err));
      return errno = err, -1;
    }
    if (!(o->f = fdopen(fd, "w"))) {
      int err = errno;
      close(fd);
      op2_jit_error_set(why, OP2_ERR_IO, "%s", strerror(err));
      return errno = err, -1;
    }
    return 0;
  }
  int fd = -1;
  /* What the messages call the file: "it", or where the links lead. */
  char it[OP2_PATH_MAX + 8];
  snprintf(it, sizeof it, "%s", strcmp(target, path) == 0 ? "it" : target);
  if (kind == TARGET_OTHER && regular_only) {
    op2_jit_error_set(why, OP2_ERR_IO, "%s is not a regular file (a %s)", it, kind_of(st.st_mode));
    return errno = EINVAL, -1;
  }
  if (kind == TARGET_OTHER) {
    if (S_ISDIR(st.st_mode)) {
      op2_jit_error_set(why, OP2_ERR_IO, "%s is a directory", it);
      return errno = EISDIR, -1;
    }
    if ((fd = open_special(target, it, why)) < 0) return -1;
    /* Replaced by a regular file between the look and the open: writing through would leave
     * its old tail behind. */
    struct stat now;
    if (fstat(fd, &now) != 0 || S_ISREG(now.st_mode)) {
      close(fd);
      op2_jit_error_set(why, OP2_ERR_IO, "%s changed while it was opened", it);
      return errno = EAGAIN, -1;
    }
  } else {
    o->dirfd = open_directory(target, o->base, sizeof o->base, why);
    if (o->dirfd < 0) return -1;
    /* A new file gets the usual mode (0666 less the umask); a replaced one keeps its mode. */
    fd = op2_temp_create_at(o->dirfd, o->base, 0666, o->tmp, sizeof o->tmp);
    if (fd >= 0 && kind == TARGET_REGULAR) (void)fchmod(fd, st.st_mode & 0777);
    struct stat mine;
    if (fd >= 0 && fstat(fd, &mine) == 0) o->tmp_dev = mine.st_dev, o->tmp_ino = mine.st_ino;
    o->replaces = kind == TARGET_REGULAR;
    if (fd < 0) {
      int err = errno;
      op2_jit_error_set(why, OP2_ERR_IO, "cannot create a temporary file beside %s: %s", it,
                        strerror(err));
      close(o->dirfd), o->dirfd = -1, o->tmp[0] = '\0';
      return errno = err, -1;
    }
  }
  if (!(o->f = fdopen(fd, "w"))) {
    int err = errno;
    close(fd);
    op2_output_close(o, 1, why);
    op2_jit_error_set(why, OP2_ERR_IO, "%s", strerror(err));
    return errno = err, -1;
  }
  return 0;
}

int op2_output_open(op2_output *o, const char *path, op2_jit_error *why) {
  if (output_open(o, path, 0, why) == 0) return 0;
  int err = errno;
  if (why) { /* the file first, then what is wrong with it; the place stays the finder's */
    char detail[sizeof why->msg];
    memcpy(detail, why->msg, sizeof detail);
    snprintf(why->msg, sizeof why->msg, "cannot write %s: %.1900s", path, detail);
  }
  return errno = err, -1;
}

int op2_output_open_regular(op2_output *o, const char *path, op2_jit_error *why) {
  return output_open(o, path, 1, why);
}

int op2_output_read_target(const op2_output *o, char **bytes, size_t *len, op2_jit_error *why) {
  *bytes = NULL, *len = 0;
  if (!o->replaces) return 0;
  /* the name as the directory holds it now: a link swapped in since is not followed */
  op2_jit_error err = {.code = 0};
  if (op2_read_regular_at(o->dirfd, o->base, 1, SIZE_MAX / 2, bytes, len, &err) == 0) return 0;
  int e = errno;
  op2_jit_error_set(why, OP2_ERR_IO, "cannot read %s: %s", o->path, err.msg);
  return errno = e, -1;
}

int op2_output_close(op2_output *o, int failed, op2_jit_error *why) {
  int err = 0;
  if (o->f) {
    errno = 0;
    if (fflush(o->f) != 0 || ferror(o->f)) err = errno ? errno : EIO;
    /* A replacement reaches the disk before it takes the target's name. */
    if (!err && o->tmp[0] && fsync(fileno(o->f)) != 0) err = errno;
    if (fclose(o->f) != 0 && !err) err = errno;
    o->f = NULL;
  }
  if (o->tmp[0]) {
    /* the name still ours: in a directory others may write, it could have been swapped */
    struct stat named;
    if (!err && !failed &&
        (fstatat(o->dirfd, o->tmp, &named, AT_SYMLINK_NOFOLLOW) != 0 || o->tmp_ino == 0 ||
         named.st_ino != o->tmp_ino || named.st_dev != o->tmp_dev))
      err = EAGAIN;
    if (!err && !failed && renameat(o->dirfd, o->tmp, o->dirfd, o->base) != 0) err = errno;
    if (err || failed) unlinkat(o->dirfd, o->tmp, 0);
    o->tmp[0] = '\0';
  }
  if (o->dirfd >= 0) close(o->dirfd), o->dirfd = -1;
  if (err == EAGAIN)
    op2_jit_error_set(why, OP2_ERR_IO,
                      "cannot write %s: its temporary file was replaced while it was written",
                      o->path);
  else if (err)
    op2_jit_error_set(why, OP2_ERR_IO, "cannot write %s: %s", o->path, strerror(err));
  if (err || failed) return errno = err ? err : EIO, -1;
  return 0;
}
