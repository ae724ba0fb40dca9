/* SPDX-License-Identifier: BSD-3-Clause */
// An OP2-style kernel header: an inline function, C library calls, and "quotes" \ ?? in a comment.
inline void axpy(const double *x, double *y) {
  y[0] = 2.0 * x[0] + fabs(y[0]) + sqrt(4.0) + fmin(x[0], 0.0);
}
