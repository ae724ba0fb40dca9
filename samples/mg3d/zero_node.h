/* SPDX-License-Identifier: BSD-3-Clause */
// A node's value set to zero (the Jacobi diagonal before it is assembled, a coarse level's
// right-hand side and correction before a restriction).
inline void zero_node(double *a, double *b) {
  *a = 0.0;
  *b = 0.0;
}
