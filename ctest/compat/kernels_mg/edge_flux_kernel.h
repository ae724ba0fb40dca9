/* SPDX-License-Identifier: BSD-3-Clause */
// A kernel header laid out as MG-CFD's flux.h: it includes the program's C++ header
// (cxx_helpers.h: a namespace, templates, a class, overloads) for nothing the kernel calls, and
// helpers with C++ habits that have a C form (a structure used without `struct`, reference
// parameters). The kernel is C once what it does not reach is left out.
#ifndef T766_EDGE_FLUX_KERNEL_H
#define T766_EDGE_FLUX_KERNEL_H
#include <iostream>
#include <string>

#include "cxx_helpers.h"

struct vec2 {
  double x, y;
};
enum Face { Inner = 1, Wall = 2 };
static inline std::string face_name(Face f) {
  return f == Wall ? "wall" : "inner";
}
static inline void edge_velocity(const double &rho, const vec2 &m, vec2 &v) {
  v.x = m.x / rho;
  v.y = m.y / rho;
}
inline void edge_flux_kernel(const double *q, const double *w, double *flux) {
  vec2 m = {q[1], q[2]}, v;
  edge_velocity(q[0], m, v);
  flux[0] += w[0] * (v.x * v.x + v.y * v.y) * (q[0] > 1.0 ? Wall : Inner);
}
#endif
