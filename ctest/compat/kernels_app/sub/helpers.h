/* SPDX-License-Identifier: BSD-3-Clause */
// Included by kernels.h as "sub/helpers.h": its own includes are relative to sub/.
#include <cmath>
#include "consts.h"

inline double twice(double x) {
  return 2.0 * std::sqrt(x * x);
}
inline double clamp_add(double v) {
  return v < ff[1] ? v : ff[1];
}
