/* SPDX-License-Identifier: BSD-3-Clause */
// V += K P, one cell's 4x4 block at a time (K is never assembled into a global matrix).
inline void spMV(double **v, const double *K, const double **p) {
  for (int j = 0; j < 4; j++) {
    double sum = 0.0;
    for (int k = 0; k < 4; k++) sum += OP2_STRIDE(K, 4 * j + k) * p[k][0];
    v[j][0] += sum;
  }
}
