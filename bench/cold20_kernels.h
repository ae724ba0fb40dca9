/* SPDX-License-Identifier: BSD-3-Clause */
/* The 20 kernels of bench/cold20.c, written as OP2 programs write theirs: plain functions in a
 * header the program includes, helpers from a shared header (cold20_common.h). In the style of a
 * 3-D multigrid Euler code: flux, time-step, restriction and prolongation, reductions. */
#ifndef COLD20_KERNELS_H
#define COLD20_KERNELS_H

#include "cold20_common.h"

/* ---- set-up ---- */
static inline void init_vars(const double *x, double *v) {
  v[0] = 1.0 + 0.1 * sin(x[0]) * cos(x[1]);
  v[1] = 0.3 * v[0];
  v[2] = 0.05 * cos(x[2]);
  v[3] = 0.02 * sin(x[0] + x[2]);
  v[4] = 2.5 + 0.5 * (v[1] * v[1] + v[2] * v[2] + v[3] * v[3]) / v[0];
}

static inline void node_volume(const double *x, double *vol) {
  vol[0] = SPACING * SPACING * SPACING * (1.0 + 0.05 * sin(3.0 * x[0]) * sin(2.0 * x[1]));
}

static inline void edge_normal(const double *x1, const double *x2, double *n) {
  double d[3] = {x2[0] - x1[0], x2[1] - x1[1], x2[2] - x1[2]};
  double len = norm3(d);
  for (int i = 0; i < 3; i++) n[i] = SPACING * SPACING * d[i] / len;
}

/* ---- the time step ---- */
static inline void copy_vars(const double *v, double *old) {
  for (int i = 0; i < NVAR; i++) old[i] = v[i];
}

static inline void zero_flux(double *flux) {
  for (int i = 0; i < NVAR; i++) flux[i] = 0.0;
}

static inline void step_factor(const double *v, const double *vol, double *dt) {
  double c = sound_speed_of(v), u = speed_of(v);
  dt[0] = CFL * cbrt(vol[0]) / (u + c);
}

static inline void edge_flux(const double *n, const double *va, const double *vb, double *fa,
                             double *fb) {
  double f1[NVAR], f2[NVAR];
  euler_flux(va, n, f1);
  euler_flux(vb, n, f2);
  double area = norm3(n);
  double lambda = 0.5 * (speed_of(va) + sound_speed_of(va) + speed_of(vb) + sound_speed_of(vb));
  for (int i = 0; i < NVAR; i++) {
    double f = 0.5 * (f1[i] + f2[i]) - DISSIPATION * lambda * area * (vb[i] - va[i]);
    fa[i] += f;
    fb[i] -= f;
  }
}

static inline void bnd_flux(const double *x, const double *v, double *flux) {
  double n[3] = {x[0] > 0.0 ? SPACING * SPACING : -SPACING * SPACING, 0.0, 0.0};
  double f[NVAR];
  euler_flux(v, n, f);
  flux[1] += f[1];
  flux[4] += 0.1 * f[4];
}

static inline void time_step(const int *stage, const double *dt, const double *vol,
                             const double *old, const double *flux, double *v) {
  static const double alpha[3] = {0.25, 0.5, 1.0};
  double f = alpha[*stage] * dt[0] / vol[0];
  for (int i = 0; i < NVAR; i++) v[i] = old[i] - f * flux[i];
  if (v[0] < 1e-6) v[0] = 1e-6;
}

/* ---- multigrid: restriction to the coarse level, a coarse smooth, prolongation ---- */
static inline void restrict_zero(double *sum, double *count) {
  for (int i = 0; i < NVAR; i++) sum[i] = 0.0;
  count[0] = 0.0;
}

static inline void restrict_add(const double *flux, double *sum, double *count) {
  for (int i = 0; i < NVAR; i++) sum[i] += flux[i];
  count[0] += 1.0;
}

static inline void restrict_mean(const double *count, double *sum) {
  double c = count[0] > 0.0 ? count[0] : 1.0;
  for (int i = 0; i < NVAR; i++) sum[i] /= c;
}

static inline void zero_corr(double *corr) {
  for (int i = 0; i < NVAR; i++) corr[i] = 0.0;
}

static inline void coarse_smooth(const double *a, const double *b, double *ca, double *cb) {
  for (int i = 0; i < NVAR; i++) {
    double d = 0.125 * (b[i] - a[i]);
    ca[i] += d;
    cb[i] -= d;
  }
}

static inline void prolong(const double *corr, const double *dt, double *v) {
  for (int i = 0; i < NVAR; i++) v[i] -= 0.01 * dt[0] * corr[i];
  if (v[0] < 1e-6) v[0] = 1e-6;
}

static inline void dampen(const double *old, double *v) {
  double p = pressure_of(v);
  double w = p > 0.0 ? 0.98 : 0.5;
  for (int i = 0; i < NVAR; i++) v[i] = w * v[i] + (1.0 - w) * old[i];
}

/* ---- reductions ---- */
static inline void residual(const double *flux, double *rms) {
  for (int i = 0; i < NVAR; i++) *rms += flux[i] * flux[i];
}

static inline void count_bad(const double *v, int *bad) {
  if (!(v[0] > 0.0) || v[4] != v[4] || pressure_of(v) < 0.0) *bad += 1;
}

static inline void min_dt(const double *dt, double *least) {
  if (dt[0] < *least) *least = dt[0];
}

static inline void energy_stats(const double *v, const double *vol, double *total, double *peak) {
  double e = v[4] * vol[0];
  *total += e;
  if (v[4] > *peak) *peak = v[4];
}

#endif
