/* SPDX-License-Identifier: BSD-3-Clause */
// A kernel header beside its caller (t742, t743): found through the calling file's directory.
inline void fn_scale(double *y, const double *f) {
  y[0] *= f[0];
}
