/* SPDX-License-Identifier: BSD-3-Clause */
// A kernel header whose kernel calls the helpers of inlined.h (each declared another way).
#ifndef T755_STEP_H
#define T755_STEP_H
#include "inlined.h"
inline void step_kernel(const double *x, double *y) {
  double v = x[0];
  v = h_static_macro_inline(v);
  v = h_static_inline_macro(v);
  v = h_inline_static(v);
  v = h_macro_inline(v);
  v = h_gnu_inline(v);
  v = h_macro_is_inline(v);
  v = h_macro_is_static_inline(v);
  v = h_attribute_first(v);
  y[0] = h_plain(v);
}
#endif
