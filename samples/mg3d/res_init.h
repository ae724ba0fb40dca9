/* SPDX-License-Identifier: BSD-3-Clause */
// The residual r = b - A u starts from the right-hand side.
inline void res_init(const double *b, double *r) {
  *r = *b;
}
