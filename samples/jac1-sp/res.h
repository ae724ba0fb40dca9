/* SPDX-License-Identifier: BSD-3-Clause */
// jac1's edge kernel: each edge adds beta * A * u(other end) to du at its first node.
inline void res(float *A, float *u, float *du, const float *beta) {
  *du += (*beta) * (*A) * (*u);
}
