/* SPDX-License-Identifier: BSD-3-Clause */
/* Durable checkpoint files. The HDF5 file starts with a user block (HDF5 skips it and finds its
 * superblock after it) whose header records the file's length and the xxHash of every byte after
 * the block. A checkpoint is built in memory, sealed there, written through a temporary file
 * beside the target (an unpredictable name, created exclusively, never reopened by name:
 * output_file.h), flushed to disk and renamed over the target, and the directory is flushed: a
 * process killed at any moment leaves the previous checkpoint whole. A file whose header, length
 * or checksum is wrong is refused, never loaded. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "runtime/checkpoint.h"
#include "runtime/output_file.h"
#include "base/file_io.h"
#include "runtime/error.h"

static const char header_magic[16] = "op2jit ckpt v1\n";

typedef struct header {
  char magic[16];
  uint64_t file_bytes;
  uint64_t hash; /* XXH3-64 of bytes [OP2_CKPT_HEADER_BYTES, file_bytes) */
} header;

static int read_all(int fd, char *buf, size_t len, off_t at) {
  while (len) {
    ssize_t n = pread(fd, buf, len, at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    buf += n, len -= (size_t)n, at += n;
  }
  return 0;
}

/* A run killed while writing leaves its temporary file (FILE.tmp and random characters, so that
 * no other user can plant a link at its name). Once a checkpoint is in place, such files of ours
 * beside it that nobody has written to for an hour are removed: a checkpoint being written is
 * written to all along, so only a dead run's file is that old. */
enum { STALE_SECONDS = 3600 };

static void remove_stale_temps(int dirfd, const char *base) {
  int dfd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0); /* closedir closes it */
  DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
  if (!d) {
    if (dfd >= 0) close(dfd);
    return;
  }
  size_t n = strlen(base);
  time_t now = time(NULL);
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    struct stat st;
    if (strncmp(e->d_name, base, n) != 0 || !op2_is_temp_suffix(e->d_name + n) ||
        fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
      continue;
    if (S_ISREG(st.st_mode) && st.st_uid == geteuid() && now - st.st_mtime > STALE_SECONDS)
      unlinkat(dfd, e->d_name, 0);
  }
  closedir(d);
}

int op2_ckpt_write(const char *file, op2_output *out, const char *image, size_t len) {
  op2_jit_error why;
  /* the user block: the header, then zeros */
  char block[OP2_CKPT_HEADER_BYTES] = {0};
  header h = {.file_bytes = (uint64_t)(OP2_CKPT_HEADER_BYTES + len),
              .hash = XXH3_64bits(image, len)};
  memcpy(h.magic, header_magic, sizeof h.magic);
  memcpy(block, &h, sizeof h);
  /* the target's directory, kept for what follows the rename */
  int dirfd = out->dirfd >= 0 ? fcntl(out->dirfd, F_DUPFD_CLOEXEC, 0) : -1;
  char base[sizeof out->base];
  snprintf(base, sizeof base, "%s", out->base);
  int failed = fwrite(block, 1, sizeof block, out->f) != sizeof block ||
               fwrite(image, 1, len, out->f) != len;
  if (op2_output_close(out, failed, &why) != 0) {
    if (dirfd >= 0) close(dirfd);
    return op2_error(OP2_ERR_IO, "checkpoint %s: %s", file, why.msg);
  }
  int synced = dirfd >= 0 && fsync(dirfd) == 0;
  int err = dirfd >= 0 ? errno : EBADF;
  if (dirfd >= 0) remove_stale_temps(dirfd, base), close(dirfd);
  if (!synced)
    return op2_error(OP2_ERR_IO, "checkpoint %s: cannot flush its directory: %s", file,
                     strerror(err));
  return OP2_OK;
}

int op2_ckpt_load_verified(const char *file, char **image, size_t *len, int *exists) {
  *image = NULL;
  *len = 0;
  *exists = 0;
  /* O_NONBLOCK: a FIFO at the checkpoint's name must not block (the fstat below refuses it). */
  int fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return OP2_OK;
    return op2_error(OP2_ERR_IO, "checkpoint %s: cannot open it: %s", file, strerror(errno));
  }
  *exists = 1;
  struct stat st;
  header h;
  char *buf = NULL;
  const char *problem = NULL;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    problem = "it is not a readable regular file";
  else if (st.st_size < OP2_CKPT_HEADER_BYTES || read_all(fd, (char *)&h, sizeof h, 0) != 0 ||
           memcmp(h.magic, header_magic, sizeof h.magic) != 0)
    problem = "it has no op2jit checkpoint header (not a checkpoint, or its start is damaged)";
  else if (h.file_bytes != (uint64_t)st.st_size)
    problem =
        "its length differs from the length recorded in its header (truncated or "
        "extended)";
  else if (!(buf = malloc((size_t)st.st_size)))
    problem = "out of memory reading it";
  else if (read_all(fd, buf, (size_t)st.st_size, 0) != 0)
    problem = "reading it failed";
  else if (XXH3_64bits(buf + OP2_CKPT_HEADER_BYTES, (size_t)st.st_size - OP2_CKPT_HEADER_BYTES) !=
           h.hash)
    problem = "its checksum does not match its contents (corrupted)";
  close(fd);
  if (problem) {
    free(buf);
    return op2_error(OP2_ERR_IO, "checkpoint %s: refused: %s", file, problem);
  }
  *image = buf;
  *len = (size_t)st.st_size;
  return OP2_OK;
}

int op2_ckpt_header_check(const char *file, op2_jit_error *why) {
  /* O_NONBLOCK: a FIFO named here must not block op_init; it is refused as not regular. */
  int fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return op2_jit_error_set(why, OP2_ERR_IO, "cannot open it: %s", strerror(errno));
  struct stat st;
  header h;
  const char *problem = NULL;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    problem = "it is not a regular file";
  else if (st.st_size < OP2_CKPT_HEADER_BYTES || read_all(fd, (char *)&h, sizeof h, 0) != 0 ||
           memcmp(h.magic, header_magic, sizeof h.magic) != 0)
    problem = "it has no op2jit checkpoint header (not a checkpoint, or its start is damaged)";
  else if (h.file_bytes != (uint64_t)st.st_size)
    problem = "its length differs from the length recorded in its header (truncated or extended)";
  close(fd);
  return problem ? op2_jit_error_set(why, OP2_ERR_IO, "%s", problem) : OP2_OK;
}
