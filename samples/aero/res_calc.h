/* SPDX-License-Identifier: BSD-3-Clause */
// One quadrilateral's share of the potential-flow residual and its Newton matrix.
// At each of the cell's 2x2 Gauss points: the map from the reference square gives the shape
// functions' physical gradients (nx, ny); the velocity is the potential's gradient; the density
// follows from the isentropic relation. The residual of corner j gains w rho (u . grad N_j); the
// 4x4 matrix K is the derivative of those residuals with respect to the corner potentials.
inline void res_calc(const double **x, const double **phim, double *K, double **res) {
  for (int e = 0; e < 16; e++) OP2_STRIDE(K, e) = 0.0;
  for (int g = 0; g < 4; g++) {
    const double *dxi = Ng2_xi + 4 * g;        // dN_m/dxi at Gauss point g
    const double *deta = Ng2_xi + 16 + 4 * g;  // dN_m/deta
    double x_xi = 0.0, x_eta = 0.0, y_xi = 0.0, y_eta = 0.0;
    for (int m = 0; m < 4; m++) {
      x_xi += dxi[m] * x[m][0];
      x_eta += deta[m] * x[m][0];
      y_xi += dxi[m] * x[m][1];
      y_eta += deta[m] * x[m][1];
    }
    double det = x_xi * y_eta - x_eta * y_xi;
    double nx[4], ny[4];
    for (int m = 0; m < 4; m++) {
      nx[m] = (y_eta * dxi[m] - y_xi * deta[m]) / det;
      ny[m] = (x_xi * deta[m] - x_eta * dxi[m]) / det;
    }
    double u = 0.0, v = 0.0;
    for (int m = 0; m < 4; m++) {
      u += nx[m] * phim[m][0];
      v += ny[m] * phim[m][0];
    }
    double d = 1.0 + 0.5 * gm1 * (m2 - (u * u + v * v));
    double rho = pow(d, gm1i);
    double w = wtg2[g] * det;
    double un[4];  // u . grad N_j
    for (int j = 0; j < 4; j++) {
      un[j] = u * nx[j] + v * ny[j];
      res[j][0] += w * rho * un[j];
    }
    // d(rho)/d(phi_k) = -(rho / d) un[k]
    for (int j = 0; j < 4; j++)
      for (int k = 0; k < 4; k++)
        OP2_STRIDE(K, 4 * j + k) +=
            w * (rho * (nx[j] * nx[k] + ny[j] * ny[k]) - (rho / d) * un[j] * un[k]);
  }
}
