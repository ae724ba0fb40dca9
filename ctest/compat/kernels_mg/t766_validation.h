/* SPDX-License-Identifier: BSD-3-Clause */
// A header of kernels not named after any (as MG-CFD's validation.h): found through the calling
// file; it uses NCOMP, which it does not include but its calling file does first (t766_const.h),
// beside C++ the kernel does not reach.
#ifndef T766_VALIDATION_H
#define T766_VALIDATION_H
inline void change_kernel(const double *old_q, const double *q, double *change) {
  for (int c = 0; c < NCOMP; c++) change[c] = q[c] - old_q[c];
}
#endif
