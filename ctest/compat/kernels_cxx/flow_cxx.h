/* SPDX-License-Identifier: BSD-3-Clause */
// Kernels of t748-cxx-lowered that stay C++: `auto` (first: nothing else here makes its text
// C++), a helper whose reference parameter a nested declaration shadows (not lowered, and so
// not the kernels whose text includes it).
#ifndef FLOW_CXX_H
#define FLOW_CXX_H

inline void flow_auto(const double *a, double *out) {
  auto y = a[0] * 1.5;  // a double: C would declare an int
  out[0] = y;
}

// a C++ standard header, as MG-CFD's config.h includes them: the C++ tier includes it before its
// `extern "C"` block, where its templates may be declared
#include <string>

// the parameter's name declared again in a nested block: not lowered
static inline void shadowed(double &x, double &out) {
  out = x;
  for (int i = 0; i < 2; i++) {
    double x = 0.25 * i;
    out += x;
  }
}

inline void flow_shadow(const double *a, double *out) {
  double x = a[0];
  shadowed(x, out[0]);
}

#endif
