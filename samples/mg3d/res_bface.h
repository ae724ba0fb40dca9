/* SPDX-License-Identifier: BSD-3-Clause */
// Outflow through each corner's quarter of a boundary face leaves the corner's residual; the
// total leaving the domain is summed for the conservation check.
inline void res_bface(const double **u, const double *bn, double **r, double *outflow) {
  for (int k = 0; k < 4; k++) {
    double an = adv[0] * bn[3 * k] + adv[1] * bn[3 * k + 1] + adv[2] * bn[3 * k + 2];
    if (an > 0.0) {
      double q = an * u[k][0];
      r[k][0] -= q;
      *outflow += q;
    }
  }
}
