/* SPDX-License-Identifier: BSD-3-Clause */
/* A broken invariant (OP2_ASSERT, invariant.h): a bug of the library, reported and aborted on. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "runtime/invariant.h"
#include "runtime/error.h"

void op2_invariant_broken(const char *file, int line, const char *cond, const char *fmt, ...) {
  char what[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  op2_error_final("internal error: invariant broken at %s:%d: %s: %s", file, line, cond, what);
  abort();
}
