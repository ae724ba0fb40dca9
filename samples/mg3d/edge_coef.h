/* SPDX-License-Identifier: BSD-3-Clause */
// An edge's two coefficients, from its dual-face area vector w (first node towards second) and
// its ends' positions: ek[0] = adv . w, the advective flux per unit value; ek[1] = nu |w|^2 /
// (w . d), d = x1 - x0, the diffusive conductance (the two-point flux, exact on an orthogonal
// mesh).
inline void edge_coef(const double *x0, const double *x1, const double *w, double *ek) {
  double d0 = x1[0] - x0[0], d1 = x1[1] - x0[1], d2 = x1[2] - x0[2];
  double ww = w[0] * w[0] + w[1] * w[1] + w[2] * w[2];
  ek[0] = adv[0] * w[0] + adv[1] * w[1] + adv[2] * w[2];
  ek[1] = nu * ww / (w[0] * d0 + w[1] * d1 + w[2] * d2);
}
