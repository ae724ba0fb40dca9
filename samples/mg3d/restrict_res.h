/* SPDX-License-Identifier: BSD-3-Clause */
// Restriction: a fine node's residual (a flux balance, already integrated over its dual cell)
// is shared among the 8 corners of the coarse cell holding it, with the prolongation's weights.
inline void restrict_res(const double *r, const double *pw, double **bc) {
  for (int k = 0; k < 8; k++) bc[k][0] += pw[k] * r[0];
}
