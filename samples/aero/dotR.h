/* SPDX-License-Identifier: BSD-3-Clause */
// c3 += R.R
inline void dotR(const double *r, double *c3) {
  *c3 += (*r) * (*r);
}
