/* SPDX-License-Identifier: BSD-3-Clause */
// Start of the conjugate-gradient solve K U = R: c1 = R.R, the search direction P = R, and the
// solution U and the product V = K P cleared.
inline void init_cg(const double *r, double *c1, double *u, double *v, double *p) {
  *c1 += (*r) * (*r);
  *p = *r;
  *u = 0.0;
  *v = 0.0;
}
