/* SPDX-License-Identifier: BSD-3-Clause */
/* Hand-written sequential Airfoil in plain C: the reference op2jit's Airfoil sample is timed
 * against. Same mesh reader, constants, kernels (with OP2's float literals), loop order and rms
 * output as samples/airfoil, so the rms lines must agree; no framework, no threads.
 *
 * Usage: airfoil_baseline MESH [ITERATIONS] [--json FILE]
 * Build (bench/run.py does this):
 *   cc -O3 -march=native -ffp-contract=off -Isamples/airfoil bench/airfoil_baseline.c \
 *      samples/airfoil/mesh_io.c -lz -lm
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mesh_io.h"

static double gam, gm1, cfl, eps, mach, alpha, qinf[4];

/* The kernels are kernels.h's strings compiled directly; any change there must be made here. */
static inline void save_soln(const double *q, double *qold) {
  for (int n = 0; n < 4; n++) qold[n] = q[n];
}

static inline void adt_calc(const double *x1, const double *x2, const double *x3, const double *x4,
                            const double *q, double *adt) {
  double dx, dy, ri, u, v, c;
  ri = 1.0f / q[0];
  u = ri * q[1];
  v = ri * q[2];
  c = sqrt(gam * gm1 * (ri * q[3] - 0.5f * (u * u + v * v)));
  dx = x2[0] - x1[0];
  dy = x2[1] - x1[1];
  *adt = fabs(u * dy - v * dx) + c * sqrt(dx * dx + dy * dy);
  dx = x3[0] - x2[0];
  dy = x3[1] - x2[1];
  *adt += fabs(u * dy - v * dx) + c * sqrt(dx * dx + dy * dy);
  dx = x4[0] - x3[0];
  dy = x4[1] - x3[1];
  *adt += fabs(u * dy - v * dx) + c * sqrt(dx * dx + dy * dy);
  dx = x1[0] - x4[0];
  dy = x1[1] - x4[1];
  *adt += fabs(u * dy - v * dx) + c * sqrt(dx * dx + dy * dy);
  *adt = (*adt) / cfl;
}

static inline void res_calc(const double *x1, const double *x2, const double *q1, const double *q2,
                            const double *adt1, const double *adt2, double *res1, double *res2) {
  double dx, dy, mu, ri, p1, vol1, p2, vol2, f;
  dx = x1[0] - x2[0];
  dy = x1[1] - x2[1];
  ri = 1.0f / q1[0];
  p1 = gm1 * (q1[3] - 0.5f * ri * (q1[1] * q1[1] + q1[2] * q1[2]));
  vol1 = ri * (q1[1] * dy - q1[2] * dx);
  ri = 1.0f / q2[0];
  p2 = gm1 * (q2[3] - 0.5f * ri * (q2[1] * q2[1] + q2[2] * q2[2]));
  vol2 = ri * (q2[1] * dy - q2[2] * dx);
  mu = 0.5f * ((*adt1) + (*adt2)) * eps;
  f = 0.5f * (vol1 * q1[0] + vol2 * q2[0]) + mu * (q1[0] - q2[0]);
  res1[0] += f;
  res2[0] -= f;
  f = 0.5f * (vol1 * q1[1] + p1 * dy + vol2 * q2[1] + p2 * dy) + mu * (q1[1] - q2[1]);
  res1[1] += f;
  res2[1] -= f;
  f = 0.5f * (vol1 * q1[2] - p1 * dx + vol2 * q2[2] - p2 * dx) + mu * (q1[2] - q2[2]);
  res1[2] += f;
  res2[2] -= f;
  f = 0.5f * (vol1 * (q1[3] + p1) + vol2 * (q2[3] + p2)) + mu * (q1[3] - q2[3]);
  res1[3] += f;
  res2[3] -= f;
}

static inline void bres_calc(const double *x1, const double *x2, const double *q1,
                             const double *adt1, double *res1, const int *bound) {
  double dx, dy, mu, ri, p1, vol1, p2, vol2, f;
  dx = x1[0] - x2[0];
  dy = x1[1] - x2[1];
  ri = 1.0f / q1[0];
  p1 = gm1 * (q1[3] - 0.5f * ri * (q1[1] * q1[1] + q1[2] * q1[2]));
  if (*bound == 1) {
    res1[1] += +p1 * dy;
    res1[2] += -p1 * dx;
  } else {
    vol1 = ri * (q1[1] * dy - q1[2] * dx);
    ri = 1.0f / qinf[0];
    p2 = gm1 * (qinf[3] - 0.5f * ri * (qinf[1] * qinf[1] + qinf[2] * qinf[2]));
    vol2 = ri * (qinf[1] * dy - qinf[2] * dx);
    mu = (*adt1) * eps;
    f = 0.5f * (vol1 * q1[0] + vol2 * qinf[0]) + mu * (q1[0] - qinf[0]);
    res1[0] += f;
    f = 0.5f * (vol1 * q1[1] + p1 * dy + vol2 * qinf[1] + p2 * dy) + mu * (q1[1] - qinf[1]);
    res1[1] += f;
    f = 0.5f * (vol1 * q1[2] - p1 * dx + vol2 * qinf[2] - p2 * dx) + mu * (q1[2] - qinf[2]);
    res1[2] += f;
    f = 0.5f * (vol1 * (q1[3] + p1) + vol2 * (qinf[3] + p2)) + mu * (q1[3] - qinf[3]);
    res1[3] += f;
  }
}

static inline void update(const double *qold, double *q, double *res, const double *adt,
                          double *rms) {
  double del, adti;
  adti = 1.0f / (*adt);
  for (int n = 0; n < 4; n++) {
    del = adti * res[n];
    q[n] = qold[n] - del;
    res[n] = 0.0f;
    *rms += del * del;
  }
}

enum { SAVE_SOLN, ADT_CALC, RES_CALC, BRES_CALC, UPDATE, NLOOPS };
static const char *const loop_names[NLOOPS] = {"save_soln", "adt_calc", "res_calc", "bres_calc",
                                               "update"};
static double loop_seconds[NLOOPS];
static long loop_calls[NLOOPS];

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Zeroed and cache-line aligned, as the library allocates its dats, so neither side gets an
 * alignment advantage. */
static double *alloc_doubles(size_t n) {
  size_t bytes = (n * sizeof(double) + 63) / 64 * 64;
  double *p = aligned_alloc(64, bytes ? bytes : 64);
  if (!p) {
    fprintf(stderr, "airfoil_baseline: out of memory\n");
    exit(1);
  }
  memset(p, 0, bytes ? bytes : 64);
  return p;
}

static int write_json(const char *path, double wall) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fprintf(f, "{\n  \"backend\": \"baseline\",\n  \"threads\": 1,\n  \"wall_seconds\": %.9g,\n",
          wall);
  fprintf(f, "  \"loops\": [\n");
  for (int i = 0; i < NLOOPS; i++)
    fprintf(f, "    {\"name\": \"%s\", \"calls\": %ld, \"seconds\": %.9g}%s\n", loop_names[i],
            loop_calls[i], loop_seconds[i], i + 1 < NLOOPS ? "," : "");
  fprintf(f, "  ]\n}\n");
  return fclose(f) == 0 ? 0 : -1;
}

/* Charges the time since t0 to one loop. */
static void lap(int id, double t0) {
  loop_seconds[id] += now() - t0;
  loop_calls[id]++;
}

int main(int argc, char **argv) {
  const char *mesh_path = NULL, *json_path = NULL;
  int niter = 1000, positional = 0;
  for (int a = 1; a < argc; a++) {
    if (strcmp(argv[a], "--json") == 0 && a + 1 < argc) {
      json_path = argv[++a];
    } else if (positional == 0) {
      mesh_path = argv[a], positional++;
    } else if (positional == 1) {
      niter = atoi(argv[a]), positional++;
    } else {
      positional = -1;
      break;
    }
  }
  if (!mesh_path || positional < 0 || niter < 1) {
    fprintf(stderr, "usage: %s MESH [ITERATIONS] [--json FILE]\n", argv[0]);
    return 2;
  }

  airfoil_mesh mesh;
  char err[1024];
  if (airfoil_mesh_read(mesh_path, &mesh, err, sizeof err) != 0) {
    fprintf(stderr, "airfoil_baseline: %s\n", err);
    return 1;
  }
  const int ncell = mesh.ncell, nedge = mesh.nedge, nbedge = mesh.nbedge;
  const int *edge = mesh.edge, *ecell = mesh.ecell, *bedge = mesh.bedge, *becell = mesh.becell;
  const int *cell = mesh.cell, *bound = mesh.bound;
  const double *x = mesh.x;

  /* Computed exactly as samples/airfoil/airfoil.c does, float literals included. */
  gam = 1.4f, gm1 = gam - 1.0f, cfl = 0.9f, eps = 0.05f, mach = 0.4f;
  alpha = 3.0f * atan(1.0f) / 45.0f;
  double p = 1.0f, r = 1.0f;
  double u = sqrt(gam * p / r) * mach, e = p / (r * gm1) + 0.5f * u * u;
  qinf[0] = r, qinf[1] = r * u, qinf[2] = 0.0f, qinf[3] = r * e;

  double *q = alloc_doubles(4 * (size_t)ncell), *qold = alloc_doubles(4 * (size_t)ncell);
  double *adt = alloc_doubles((size_t)ncell), *res = alloc_doubles(4 * (size_t)ncell);
  for (int n = 0; n < ncell; n++)
    for (int m = 0; m < 4; m++) q[4 * n + m] = qinf[m];

  double wall0 = now();
  for (int iter = 1; iter <= niter; iter++) {
    double t0 = now();
    for (int n = 0; n < ncell; n++) save_soln(q + 4 * n, qold + 4 * n);
    lap(SAVE_SOLN, t0);
    double rms = 0.0;
    for (int k = 0; k < 2; k++) {
      t0 = now();
      for (int n = 0; n < ncell; n++) {
        const int *c = cell + 4 * n;
        adt_calc(x + 2 * c[0], x + 2 * c[1], x + 2 * c[2], x + 2 * c[3], q + 4 * n, adt + n);
      }
      lap(ADT_CALC, t0);
      t0 = now();
      for (int n = 0; n < nedge; n++) {
        const int *nd = edge + 2 * n, *cl = ecell + 2 * n;
        res_calc(x + 2 * nd[0], x + 2 * nd[1], q + 4 * cl[0], q + 4 * cl[1], adt + cl[0],
                 adt + cl[1], res + 4 * cl[0], res + 4 * cl[1]);
      }
      lap(RES_CALC, t0);
      t0 = now();
      for (int n = 0; n < nbedge; n++) {
        const int *nd = bedge + 2 * n, c = becell[n];
        bres_calc(x + 2 * nd[0], x + 2 * nd[1], q + 4 * c, adt + c, res + 4 * c, bound + n);
      }
      lap(BRES_CALC, t0);
      rms = 0.0;
      t0 = now();
      for (int n = 0; n < ncell; n++) update(qold + 4 * n, q + 4 * n, res + 4 * n, adt + n, &rms);
      lap(UPDATE, t0);
    }
    rms = sqrt(rms / (double)ncell);
    if (iter % 100 == 0) printf(" %d  %.15e\n", iter, rms);
  }
  double wall = now() - wall0;

  printf("\n  %-16s %7s %10s %9s\n", "loop", "calls", "time (s)", "ms/call");
  double total = 0;
  for (int i = 0; i < NLOOPS; i++) {
    printf("  %-16s %7ld %10.4f %9.4f\n", loop_names[i], loop_calls[i], loop_seconds[i],
           loop_calls[i] ? 1e3 * loop_seconds[i] / (double)loop_calls[i] : 0.0);
    total += loop_seconds[i];
  }
  printf("  %-16s %7s %10.4f\n", "total", "", total);
  printf("\n  total wall time %.3f s\n", wall);
  int rc = 0;
  if (json_path && write_json(json_path, wall) != 0) {
    fprintf(stderr, "airfoil_baseline: cannot write %s\n", json_path);
    rc = 1;
  }
  free(q), free(qold), free(adt), free(res);
  airfoil_mesh_free(&mesh);
  return rc;
}
