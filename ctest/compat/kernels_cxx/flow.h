/* SPDX-License-Identifier: BSD-3-Clause */
// Kernels of t748-cxx-lowered, several in one header with an include guard, as OP2's programs
// keep them. flow_flux and flow_step are C once lowered (TinyCC's tier); flow_float stays C++
// (a float bound to `const double &`), and so do the kernels of flow_cxx.h.
#ifndef FLOW_H
#define FLOW_H

#include "flow_helpers.h"

inline void flow_flux(const double *w, const double *va, double *flux) {
  double rho = va[0], e = va[4];
  vec3 m = {va[1], va[2], va[3]}, v;
  velocity(rho, m, v);
  double q = speed_sqd(v);
  double p = pressure(rho, e, q);
  flux[0] = w[0] * (std::sqrt(q) + std::sqrt(double(GAMMA) * p / rho));
  flux[1] = w[0] * double(int(va[2] * 10.0) % 3) + p;
}

inline void flow_step(const int *stage, const double *flux, double *vars) {
  double factor = 0.5 / double(3 + 1 - (*stage));
  for (int i = 0; i < 5; i++) vars[i] += factor * flux[i % 2];
}

inline void flow_float(const float *f, double *out) {
  float g = f[0] * 1.5f;
  out[0] = scaled(g, 3.0);  // a float lvalue to `const double &`: a double temporary in C++
}

#endif
