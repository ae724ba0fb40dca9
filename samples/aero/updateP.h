/* SPDX-License-Identifier: BSD-3-Clause */
// The next search direction: P = R + beta P.
inline void updateP(const double *r, double *p, const double *beta) {
  *p = (*r) + (*beta) * (*p);
}
