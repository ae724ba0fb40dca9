/* SPDX-License-Identifier: BSD-3-Clause */
// The flux over an edge's dual face, from its first node to its second: first-order upwind
// advection minus diffusion; it leaves the first node's residual and enters the second's.
inline void res_edge(const double *u0, const double *u1, const double *ek, double *r0, double *r1) {
  double f = ek[0] > 0.0 ? ek[0] * u0[0] : ek[0] * u1[0];
  f -= ek[1] * (u1[0] - u0[0]);
  *r0 -= f;
  *r1 += f;
}
