/* SPDX-License-Identifier: BSD-3-Clause */
/* A growable text buffer (code generation, messages, reports). Allocation failure is sticky, so
 * generators can append freely and check once at the end. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

static int reserve(op2_buf *b, size_t extra) {
  if (b->failed) return 0;
  if (b->len + extra + 1 <= b->cap) return 1;
  size_t cap = b->cap ? b->cap : 1024;
  while (cap < b->len + extra + 1) cap *= 2;
  char *data = realloc(b->data, cap);
  if (!data) return b->failed = 1, 0;
  b->data = data;
  b->cap = cap;
  return 1;
}

void op2_buf_append(op2_buf *b, const char *s, size_t len) {
  if (!reserve(b, len)) return;
  memcpy(b->data + b->len, s, len);
  b->len += len;
  b->data[b->len] = '\0';
}

void op2_buf_printf(op2_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0 || !reserve(b, (size_t)n)) return;
  va_start(ap, fmt);
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

void op2_buf_free(op2_buf *b) {
  free(b->data);
  memset(b, 0, sizeof *b);
}
