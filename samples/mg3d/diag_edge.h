/* SPDX-License-Identifier: BSD-3-Clause */
// An edge's share of its ends' Jacobi diagonals: the upwind outflow coefficient and the
// conductance.
inline void diag_edge(const double *ek, double *d0, double *d1) {
  *d0 += MAX(ek[0], 0.0) + ek[1];
  *d1 += MAX(-ek[0], 0.0) + ek[1];
}
