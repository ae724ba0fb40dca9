/* SPDX-License-Identifier: BSD-3-Clause */
// jac2's edge kernel: a double matrix entry (3 per edge, the first used) times a float u.
inline void res(const double *A, const float *u, float *du, const float *beta) {
  *du += (float)((*beta) * (*A) * (*u));
}
