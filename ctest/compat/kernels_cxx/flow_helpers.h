/* SPDX-License-Identifier: BSD-3-Clause */
// Helpers as OP2's C++ applications write them (MG-CFD's inlined_funcs.h, for one): a structure
// used without `struct`, references for parameters, functional casts, a variant per macro.
#ifndef FLOW_HELPERS_H
#define FLOW_HELPERS_H

#include <cmath>

#define GAMMA 1.4

struct vec3 {
  double x, y, z;
};

static inline double speed_sqd(vec3 &v) {
  return v.x * v.x + v.y * v.y + v.z * v.z;
}

static inline double pressure(const double &rho, double &energy, double &q) {
  return (double(GAMMA) - double(1.0)) * (energy - double(0.5) * rho * q);
}

#ifdef INVERSE_DENSITY
static inline void velocity(double &inv_rho, vec3 &m, vec3 &v) {
  v.x = m.x * inv_rho, v.y = m.y * inv_rho, v.z = m.z * inv_rho;
}
#else
static inline void velocity(double &rho, vec3 &m, vec3 &v) {
  v.x = m.x / rho;
  v.y = m.y / rho;
  v.z = m.z / rho;
}
#endif

// a reference bound to a converted temporary when the argument is a float: not C
static inline double scaled(const double &s, double f) {
  return s * f;
}

#endif
