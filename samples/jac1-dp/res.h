/* SPDX-License-Identifier: BSD-3-Clause */
// jac1's edge kernel: each edge adds beta * A * u(other end) to du at its first node.
inline void res(double *A, double *u, double *du, const double *beta) {
  *du += (*beta) * (*A) * (*u);
}
