/* SPDX-License-Identifier: BSD-3-Clause */
// U += alpha P, R -= alpha V, and V cleared for the next product.
inline void updateUR(double *u, double *r, const double *p, double *v, const double *alpha) {
  *u += (*alpha) * (*p);
  *r -= (*alpha) * (*v);
  *v = 0.0;
}
