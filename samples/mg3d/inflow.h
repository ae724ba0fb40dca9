/* SPDX-License-Identifier: BSD-3-Clause */
// The finest level's right-hand side: the advective flux that enters through each corner's
// quarter of a boundary face, carrying the inflow value g(x) = g[0] + g[1] cos(2 pi x) cos(2 pi y)
// cos(2 pi z) (g[1] = 0: a uniform free stream).
inline void inflow(const double **x, const double *bn, double **b, const double *g) {
  for (int k = 0; k < 4; k++) {
    double an = adv[0] * bn[3 * k] + adv[1] * bn[3 * k + 1] + adv[2] * bn[3 * k + 2];
    double tp = 6.283185307179586;
    double gx = g[0] + g[1] * cos(tp * x[k][0]) * cos(tp * x[k][1]) * cos(tp * x[k][2]);
    if (an < 0.0) b[k][0] -= an * gx;
  }
}
