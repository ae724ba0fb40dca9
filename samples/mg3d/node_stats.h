/* SPDX-License-Identifier: BSD-3-Clause */
// The figures a run reports and checks: the node count, the integral of u, the extremes of u and
// the sums of the residual and of the right-hand side (a conservation balance).
inline void node_stats(const double *u, const double *vol, const double *r, const double *b,
                       double *count, double *mass, double *umin, double *umax, double *rsum,
                       double *bsum) {
  *count += 1.0;
  *mass += u[0] * vol[0];
  *umin = MIN(*umin, u[0]);
  *umax = MAX(*umax, u[0]);
  *rsum += r[0];
  *bsum += b[0];
}
