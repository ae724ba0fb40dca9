/* SPDX-License-Identifier: BSD-3-Clause */
/* What a call prints: stdout or stderr sent to a temporary file for its duration, read back. */
#ifndef COMPAT_CAPTURE_H
#define COMPAT_CAPTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"

typedef struct capture {
  int fd, saved, stream_fd;
  char path[64];
} capture;

static inline void capture_begin(capture *c, int stream_fd) {
  snprintf(c->path, sizeof c->path, "/tmp/op2-capture-XXXXXX");
  c->fd = mkstemp(c->path);
  CHECK(c->fd >= 0);
  c->stream_fd = stream_fd;
  fflush(stdout), fflush(stderr);
  c->saved = dup(stream_fd);
  CHECK(c->saved >= 0 && dup2(c->fd, stream_fd) >= 0);
}

/* Ends the capture; returns what was printed (malloc'd, NUL-terminated), echoed to stderr so
 * the test log still shows it. */
static inline char *capture_end(capture *c) {
  fflush(stdout), fflush(stderr);
  dup2(c->saved, c->stream_fd);
  close(c->saved);
  off_t n = lseek(c->fd, 0, SEEK_END);
  char *text = malloc((size_t)n + 1);
  CHECK(text != NULL);
  CHECK(pread(c->fd, text, (size_t)n, 0) == n);
  text[n] = 0;
  close(c->fd);
  unlink(c->path);
  fputs(text, stderr);
  return text;
}

static inline char *read_whole_file(const char *path, long *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  char *buf = malloc((size_t)n + 1);
  CHECK(buf && fread(buf, 1, (size_t)n, f) == (size_t)n);
  buf[n] = 0;
  fclose(f);
  if (size) *size = n;
  return buf;
}

#endif
