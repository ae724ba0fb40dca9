/* SPDX-License-Identifier: BSD-3-Clause */
// One damped Jacobi step at a node, u += omega r / diag, with the residual's sum of squares and
// largest magnitude before the step.
inline void smooth(double *u, const double *r, const double *d, double *rsq, double *rmax) {
  *rsq += r[0] * r[0];
  *rmax = MAX(*rmax, fabs(r[0]));
  u[0] += omega * r[0] / d[0];
}
