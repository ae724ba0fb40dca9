/* SPDX-License-Identifier: BSD-3-Clause */
// A kernel header as MG-CFD's misc.h: it includes const.h, which the calling file has included
// before it (so the kernel search reads const.h first), and uses what const.h and dims.h define.
#ifndef T754_MISC_H
#define T754_MISC_H
#ifdef T754_NEVER  // dims.h under a condition first, then unconditionally through const.h
#include "dims.h"
#endif
#include "const.h"
inline void init_vars(double *v, const double *x) {
  for (int i = 0; i < NVAR; i++) v[i] = x[0] * (i + 1) + NDIM;
}
#endif
