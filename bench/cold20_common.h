/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers and constants shared by bench/cold20_kernels.h, as a 3-D finite-volume code keeps them
 * in one header that every kernel header includes (the program includes it too). */
#ifndef COLD20_COMMON_H
#define COLD20_COMMON_H

#include <math.h>

#define NVAR 5
#define VAR_DENSITY 0
#define VAR_MOMENTUM 1
#define VAR_ENERGY 4
#define GAMMA 1.4
#define CFL 0.2
#define DISSIPATION 0.5
/* the grid spacing: a constant of the program (op_decl_const) */
extern double spacing;
#define SPACING spacing

static inline double pressure_of(const double *v) {
  double rho = v[VAR_DENSITY];
  double ke = 0.5 * (v[1] * v[1] + v[2] * v[2] + v[3] * v[3]) / rho;
  return (GAMMA - 1.0) * (v[VAR_ENERGY] - ke);
}

static inline double sound_speed_of(const double *v) {
  double p = pressure_of(v);
  return sqrt(GAMMA * fabs(p) / v[VAR_DENSITY]);
}

static inline double speed_of(const double *v) {
  double rho = v[VAR_DENSITY];
  return sqrt(v[1] * v[1] + v[2] * v[2] + v[3] * v[3]) / rho;
}

/* The Euler flux of state v through the face of normal n (not unit: its area). */
static inline void euler_flux(const double *v, const double *n, double *f) {
  double rho = v[VAR_DENSITY], p = pressure_of(v);
  double un = (v[1] * n[0] + v[2] * n[1] + v[3] * n[2]) / rho;
  f[0] = rho * un;
  f[1] = v[1] * un + p * n[0];
  f[2] = v[2] * un + p * n[1];
  f[3] = v[3] * un + p * n[2];
  f[4] = (v[VAR_ENERGY] + p) * un;
}

static inline double norm3(const double *n) {
  return sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
}

#endif
