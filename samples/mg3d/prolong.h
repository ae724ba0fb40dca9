/* SPDX-License-Identifier: BSD-3-Clause */
// Prolongation: a fine node gains the trilinear interpolation of the coarse correction from the
// 8 corners of the coarse cell holding it.
inline void prolong(double *u, const double *pw, const double **uc) {
  double du = 0.0;
  for (int k = 0; k < 8; k++) du += pw[k] * uc[k][0];
  u[0] += du;
}
