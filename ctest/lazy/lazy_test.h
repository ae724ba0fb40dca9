/* SPDX-License-Identifier: BSD-3-Clause */
/* Support for the lazy-execution tests: op_init with OP2_* options given as argv entries (so a
 * test sets its own mode whatever the environment), and whether a loop has run yet, read where
 * no library call can run the chain: the dat's public data pointer. */
#ifndef LAZY_TEST_H
#define LAZY_TEST_H

#include <stdarg.h>

#include "test.h"

/* op_init(argc, argv) with argv = {"test", opts...}, the list ended by NULL. */
static inline void lazy_init(const char *first, ...) {
  static char *argv[16];
  int argc = 0;
  argv[argc++] = (char *)"lazy-test";
  va_list ap;
  va_start(ap, first);
  for (const char *o = first; o && argc < 15; o = va_arg(ap, const char *))
    argv[argc++] = (char *)o;
  va_end(ap);
  argv[argc] = NULL;
  op_init(argc, argv, 0);
}

/* Value i of a double dat as the library holds it now, read through the public handle (op2.h's
 * op_dat_core): no library call, so nothing runs the chain. */
static inline const char *lazy_data(op_dat d) {
  return ((const op_dat_core *)(const void *)d)->data;
}
static inline double lazy_peek(op_dat d, int i) {
  return ((const double *)lazy_data(d))[i];
}

#endif
