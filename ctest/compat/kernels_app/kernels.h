/* SPDX-License-Identifier: BSD-3-Clause */
// Several kernels in one header, as OP2's programs keep them; the program includes it (after
// user_types.h, which these kernels use without including it).
#include "sub/helpers.h"

// scaled by ff[0], capped by ff[1]: both from op_decl_const (declared in sub/consts.h)
inline void k_scale(double *y, const double *x) {
  pair_t p = {ff[0] * x[0], ff[1]};
  y[0] = maxfun(p.lo, -p.hi) + twice(x[0]);
}

inline void k_sum(const double *y, double *total) {
  total[0] += clamp_add(y[0]);
}
