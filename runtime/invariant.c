/* SPDX-License-Identifier: BSD-3-Clause */
/* A broken invariant (OP2_ASSERT, invariant.h): a bug of the library, reported and aborted on. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "runtime/invariant.h"

void op2_invariant_broken(const char *file, int line, const char *cond, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "op2: internal error: invariant broken at %s:%d: %s: ", file, line, cond);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  abort();
}
