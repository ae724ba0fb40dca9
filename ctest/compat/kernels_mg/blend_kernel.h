/* SPDX-License-Identifier: BSD-3-Clause */
// A kernel whose header includes C++ helpers: it is C++ (TinyCC rejects it), built by the C++ tier.
#ifndef T756_BLEND_KERNEL_H
#define T756_BLEND_KERNEL_H
#include "cxx_helpers.h"
inline void blend_kernel(const double *x, const float *f, double *y) {
  Sum<double, 3> acc = {{0.0, 0.0, 0.0}};
  for (int i = 0; i < 4; i++) acc.add(i, squared(x[0] + i));
  t756::Mode mode = x[0] > 0 ? t756::Weighted : t756::Plain;
  y[0] = blend(acc.total(), 1.0) + blend(f[0], 2.0f) + (mode == t756::Weighted ? 1.0 : 0.0);
}
#endif
