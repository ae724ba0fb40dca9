/* SPDX-License-Identifier: BSD-3-Clause */
// jac2's node kernel: u, r and du hold 2, 2 and 3 floats per node; the first is the unknown.
inline void update(const float *r, float *du, float *u, float *u_sum, float *u_max) {
  *u += *du + alpha * (*r);
  *du = 0.0f;
  *u_sum += (*u) * (*u);
  *u_max = MAX(*u_max, *u);
}
