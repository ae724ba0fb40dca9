/* SPDX-License-Identifier: BSD-3-Clause */
// Kernels of bench/cxx_cold.cpp, written as OP2's C++ applications write theirs (a 3-D flux code
// in the style of MG-CFD): a struct used without `struct`, helpers taking references, functional
// casts. Not C: before lowering (jit/cxx_lower.c) each went to the system C++ compiler.
#ifndef CXX_COLD_KERNELS_H
#define CXX_COLD_KERNELS_H

#include <cmath>

#define GAMMA 1.4
#define NVAR 5

struct vec3 {
  double x, y, z;
};

static inline void velocity_of(double &density, vec3 &momentum, vec3 &velocity) {
  velocity.x = momentum.x / density;
  velocity.y = momentum.y / density;
  velocity.z = momentum.z / density;
}

static inline double speed_sqd_of(vec3 &velocity) {
  return velocity.x * velocity.x + velocity.y * velocity.y + velocity.z * velocity.z;
}

static inline double pressure_of(double &density, double &energy, double &speed_sqd) {
  return (double(GAMMA) - double(1.0)) * (energy - double(0.5) * density * speed_sqd);
}

static inline double sound_speed_of(double &density, double &pressure) {
  return std::sqrt(double(GAMMA) * pressure / density);
}

inline void init_vars(const double *coord, double *vars) {
  vars[0] = 1.0 + 0.1 * std::sin(coord[0]);
  vars[1] = 0.2 * vars[0];
  vars[2] = 0.1 * std::cos(coord[1]);
  vars[3] = 0.05 * double(int(coord[2] * 10.0) % 3);
  vars[4] = 2.5 + 0.01 * coord[0];
}

inline void zero_flux(double *flux) {
  for (int i = 0; i < NVAR; i++) flux[i] = 0.0;
}

inline void calc_dt(const double *vars, const double *vol, double *dt) {
  double density = vars[0], energy = vars[4];
  vec3 momentum = {vars[1], vars[2], vars[3]}, velocity;
  velocity_of(density, momentum, velocity);
  double speed_sqd = speed_sqd_of(velocity);
  double pressure = pressure_of(density, energy, speed_sqd);
  double c = sound_speed_of(density, pressure);
  *dt = double(0.5) * (std::cbrt(*vol) / (std::sqrt(speed_sqd) + c));
}

inline void flux_edge(const double *w, const double *va, const double *vb, double *fa, double *fb) {
  double da = va[0], ea = va[4], db = vb[0], eb = vb[4];
  vec3 ma = {va[1], va[2], va[3]}, mb = {vb[1], vb[2], vb[3]}, ua, ub;
  velocity_of(da, ma, ua);
  velocity_of(db, mb, ub);
  double qa = speed_sqd_of(ua), qb = speed_sqd_of(ub);
  double pa = pressure_of(da, ea, qa), pb = pressure_of(db, eb, qb);
  double ca = sound_speed_of(da, pa), cb = sound_speed_of(db, pb);
  double s = -0.5 * w[0] * (std::sqrt(qa) + std::sqrt(qb) + ca + cb);
  double f[NVAR] = {s * (da - db), s * (ma.x - mb.x), s * (ma.y - mb.y), s * (ma.z - mb.z),
                    s * (ea - eb)};
  for (int i = 0; i < NVAR; i++) {
    fa[i] += f[i] + 0.5 * w[1] * (pa + pb);
    fb[i] -= f[i];
  }
}

inline void time_step(const int *stage, const double *dt, const double *flux, double *vars) {
  double factor = (*dt) / double(3 + 1 - (*stage));
  for (int i = 0; i < NVAR; i++) vars[i] += 1e-6 * factor * flux[i];
}

inline void residual(const double *flux, double *rms) {
  for (int i = 0; i < NVAR; i++) *rms += flux[i] * flux[i];
}

#endif
