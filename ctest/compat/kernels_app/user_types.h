/* SPDX-License-Identifier: BSD-3-Clause */
// What OP2's translator puts before every kernel of the program: helpers and types the kernels use.
#ifndef KAPP_FUN_PREFIX
#define KAPP_FUN_PREFIX
#endif
typedef struct pair_t {
  double lo, hi;
} pair_t;
static inline KAPP_FUN_PREFIX double maxfun(double a, double b) {
  return a > b ? a : b;
}
