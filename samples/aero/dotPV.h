/* SPDX-License-Identifier: BSD-3-Clause */
// c2 += P.V
inline void dotPV(const double *p, const double *v, double *c2) {
  *c2 += (*p) * (*v);
}
