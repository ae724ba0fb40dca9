/* SPDX-License-Identifier: BSD-3-Clause */
// jac1's node kernel: one Jacobi update, with the sum of squares and the largest value of u.
inline void update(double *r, double *du, double *u, double *u_sum, double *u_max) {
  *u += *du + alpha * (*r);
  *du = 0.0;
  *u_sum += (*u) * (*u);
  *u_max = MAX(*u_max, *u);
}
