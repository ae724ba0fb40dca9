/* SPDX-License-Identifier: BSD-3-Clause */
// A node whose potential is held fixed: its entry of a vector is zero.
inline void dirichlet(double *r) {
  *r = 0.0;
}
