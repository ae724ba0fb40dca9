/* SPDX-License-Identifier: BSD-3-Clause */
// A boundary face's share of its corners' Jacobi diagonals: the outflow through each corner's
// quarter of the face (inflow is data, diffusion has no flux through the boundary).
inline void diag_bface(const double *bn, double **d) {
  for (int k = 0; k < 4; k++) {
    double an = adv[0] * bn[3 * k] + adv[1] * bn[3 * k + 1] + adv[2] * bn[3 * k + 2];
    if (an > 0.0) d[k][0] += an;
  }
}
