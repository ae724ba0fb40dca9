/* SPDX-License-Identifier: BSD-3-Clause */
/* Dat layout benchmark (issue 11, item 3): Airfoil's res_calc and adt_calc in groups of 8 lanes,
 * the library's way (dats stored element by element, AoS: rows gathered whole and transposed in
 * registers, templates/c/loop_simd.c) against the same lane loop over dats stored component by
 * component (SoA: component k of element i at k * n + i, so a group's component is 8 separate
 * loads, one cache line each).
 *
 * The AoS figures are op_par_loop's own (seq backend, OP2_SIMD=8, optimised tier); the SoA loops
 * are written here exactly as a SoA strategy would generate them. Both run on the same mesh and
 * data, and their results are compared bit for bit.
 *
 * usage: layout MESH [CALLS]     (bench/run.py --layout runs it) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels.h"
#include "mesh_io.h"
#include "op_seq.h"

enum { W = 8 };
typedef double v8d __attribute__((vector_size(64), aligned(8)));

static double gam = 1.4, gm1 = 0.4, cfl = 0.9, eps = 0.05;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Component k of the 8 lanes whose elements idx[0], idx[stride], ... are rows of a SoA dat. */
static inline v8d soa_lanes(const double *comp, const int *idx, int stride) {
  return (v8d){comp[idx[0]],          comp[idx[stride]],     comp[idx[2 * stride]],
               comp[idx[3 * stride]], comp[idx[4 * stride]], comp[idx[5 * stride]],
               comp[idx[6 * stride]], comp[idx[7 * stride]]};
}

/* Airfoil's kernels (samples/airfoil/kernels.h) on component-major lane arrays: p[k * W]. */
static inline void res_lanes(const double *x1, const double *x2, const double *q1, const double *q2,
                             const double *adt1, const double *adt2, double *res1, double *res2) {
  double dx, dy, mu, ri, p1, vol1, p2, vol2, f;
  dx = x1[0] - x2[0];
  dy = x1[W] - x2[W];
  ri = 1.0f / q1[0];
  p1 = gm1 * (q1[3 * W] - 0.5f * ri * (q1[W] * q1[W] + q1[2 * W] * q1[2 * W]));
  vol1 = ri * (q1[W] * dy - q1[2 * W] * dx);
  ri = 1.0f / q2[0];
  p2 = gm1 * (q2[3 * W] - 0.5f * ri * (q2[W] * q2[W] + q2[2 * W] * q2[2 * W]));
  vol2 = ri * (q2[W] * dy - q2[2 * W] * dx);
  mu = 0.5f * ((*adt1) + (*adt2)) * eps;
  f = 0.5f * (vol1 * q1[0] + vol2 * q2[0]) + mu * (q1[0] - q2[0]);
  res1[0] += f;
  res2[0] -= f;
  f = 0.5f * (vol1 * q1[W] + p1 * dy + vol2 * q2[W] + p2 * dy) + mu * (q1[W] - q2[W]);
  res1[W] += f;
  res2[W] -= f;
  f = 0.5f * (vol1 * q1[2 * W] - p1 * dx + vol2 * q2[2 * W] - p2 * dx) +
      mu * (q1[2 * W] - q2[2 * W]);
  res1[2 * W] += f;
  res2[2 * W] -= f;
  f = 0.5f * (vol1 * (q1[3 * W] + p1) + vol2 * (q2[3 * W] + p2)) + mu * (q1[3 * W] - q2[3 * W]);
  res1[3 * W] += f;
  res2[3 * W] -= f;
}

static inline void adt_lanes(const double *x1, const double *x2, const double *x3, const double *x4,
                             const double *q, int qs, double *adt) {
  double dx, dy, ri, u, v, c;
  ri = 1.0f / q[0];
  u = ri * q[qs];
  v = ri * q[2 * qs];
  c = sqrt(gam * gm1 * (ri * q[3 * qs] - 0.5f * (u * u + v * v)));
  dx = x2[0] - x1[0];
  dy = x2[W] - x1[W];
  *adt = fabs(u * dy - v * dx) + c * sqrt(dx * dx + dy * dy);
  dx = x3[0] - x2[0];
  dy = x3[W] - x2[W];
  *adt += fabs(u * dy - v * dx) + c * sqrt(dx * dx + dy * dy);
  dx = x4[0] - x3[0];
  dy = x4[W] - x3[W];
  *adt += fabs(u * dy - v * dx) + c * sqrt(dx * dx + dy * dy);
  dx = x1[0] - x4[0];
  dy = x1[W] - x4[W];
  *adt += fabs(u * dy - v * dx) + c * sqrt(dx * dx + dy * dy);
  *adt = (*adt) / cfl;
}

typedef struct soa {
  int nnode, ncell;
  double *x, *q, *adt, *res; /* x: 2 * nnode, q and res: 4 * ncell, component-major */
} soa;

/* Edges [0, n8) in groups of 8 (n8 a multiple of 8; the scalar remainder is the same code in
 * either layout and left out of both timings). */
static __attribute__((flatten)) void res_calc_soa(soa *s, const int *edge, const int *ecell,
                                                  int n8) {
  const int nn = s->nnode, nc = s->ncell;
  for (int n = 0; n < n8; n += W) {
    double x1[2][W], x2[2][W], q1[4][W], q2[4][W], a1[W], a2[W], r1[4][W] = {{0}}, r2[4][W] = {{0}};
    for (int k = 0; k < 2; k++) {
      *(v8d *)x1[k] = soa_lanes(s->x + (size_t)k * nn, edge + 2 * n, 2);
      *(v8d *)x2[k] = soa_lanes(s->x + (size_t)k * nn, edge + 2 * n + 1, 2);
    }
    for (int k = 0; k < 4; k++) {
      *(v8d *)q1[k] = soa_lanes(s->q + (size_t)k * nc, ecell + 2 * n, 2);
      *(v8d *)q2[k] = soa_lanes(s->q + (size_t)k * nc, ecell + 2 * n + 1, 2);
    }
    *(v8d *)a1 = soa_lanes(s->adt, ecell + 2 * n, 2);
    *(v8d *)a2 = soa_lanes(s->adt, ecell + 2 * n + 1, 2);
#pragma omp simd
    for (int l = 0; l < W; l++)
      res_lanes(&x1[0][l], &x2[0][l], &q1[0][l], &q2[0][l], &a1[l], &a2[l], &r1[0][l], &r2[0][l]);
    for (int l = 0; l < W; l++) /* element order, as the library's scatter */
      for (int k = 0; k < 4; k++) {
        s->res[(size_t)k * nc + ecell[2 * (n + l)]] += r1[k][l];
        s->res[(size_t)k * nc + ecell[2 * (n + l) + 1]] += r2[k][l];
      }
  }
}

static __attribute__((flatten)) void adt_calc_soa(soa *s, const int *cell, int n8) {
  const int nn = s->nnode, nc = s->ncell;
  for (int n = 0; n < n8; n += W) {
    double x[4][2][W];
    for (int c = 0; c < 4; c++)
      for (int k = 0; k < 2; k++)
        *(v8d *)x[c][k] = soa_lanes(s->x + (size_t)k * nn, cell + 4 * n + c, 4);
#pragma omp simd
    for (int l = 0; l < W; l++) /* q and adt are direct: unit-stride vectors in SoA */
      adt_lanes(&x[0][0][l], &x[1][0][l], &x[2][0][l], &x[3][0][l], s->q + n + l, nc,
                s->adt + n + l);
  }
}

static double *soa_of(const double *aos, int n, int dim) {
  double *out = malloc((size_t)n * dim * sizeof *out);
  if (!out) exit(1);
  for (int i = 0; i < n; i++)
    for (int k = 0; k < dim; k++) out[(size_t)k * n + i] = aos[(size_t)dim * i + k];
  return out;
}

/* Whether SoA `s` (n elements of dim) holds exactly AoS `a`. */
static int same(const double *s, const double *a, int n, int dim) {
  for (int i = 0; i < n; i++)
    for (int k = 0; k < dim; k++)
      if (memcmp(&s[(size_t)k * n + i], &a[(size_t)dim * i + k], sizeof(double))) return 0;
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s MESH [CALLS]\n", argv[0]);
    return 2;
  }
  int calls = argc > 2 ? atoi(argv[2]) : 40;
  airfoil_mesh m;
  char err[1024];
  if (airfoil_mesh_read(argv[1], &m, err, sizeof err) != 0) {
    fprintf(stderr, "layout: %s\n", err);
    return 1;
  }
  /* the library's side: sequential, optimised tier only, groups of 8 */
  setenv("OP2_BACKEND", "seq", 1);
  setenv("OP2_JIT", "cc", 1);
  setenv("OP2_SIMD", "8", 1);
  op_init(argc, argv, 0);
  op_decl_const(1, "double", &gam, "gam");
  op_decl_const(1, "double", &gm1, "gm1");
  op_decl_const(1, "double", &cfl, "cfl");
  op_decl_const(1, "double", &eps, "eps");
  /* a flow with structure: free stream perturbed cell by cell */
  double *q = malloc(sizeof(double) * 4 * m.ncell), *adt = malloc(sizeof(double) * m.ncell);
  double *res = calloc((size_t)4 * m.ncell, sizeof(double));
  if (!q || !adt || !res) return 1;
  for (int c = 0; c < m.ncell; c++) {
    double w = 0.01 * (c % 97) / 97.0;
    q[4 * c] = 1 + w, q[4 * c + 1] = 0.47 + w, q[4 * c + 2] = 0.02 * w, q[4 * c + 3] = 2.6 - w;
    adt[c] = 0;
  }
  op_set nodes = op_decl_set(m.nnode, "nodes"), cells = op_decl_set(m.ncell, "cells");
  op_set edges = op_decl_set(m.nedge - m.nedge % W, "edges");
  op_map pcell = op_decl_map(cells, nodes, 4, m.cell, "pcell");
  op_map pedge = op_decl_map(edges, nodes, 2, m.edge, "pedge");
  op_map pecell = op_decl_map(edges, cells, 2, m.ecell, "pecell");
  op_dat p_x = op_decl_dat(nodes, 2, "double", m.x, "p_x");
  op_dat p_q = op_decl_dat(cells, 4, "double", q, "p_q");
  op_dat p_adt = op_decl_dat(cells, 1, "double", adt, "p_adt");
  op_dat p_res = op_decl_dat(cells, 4, "double", res, "p_res");

  soa s = {m.nnode,
           m.ncell,
           soa_of(m.x, m.nnode, 2),
           soa_of(q, m.ncell, 4),
           NULL,
           calloc((size_t)4 * m.ncell, sizeof(double))};
  s.adt = calloc((size_t)m.ncell, sizeof(double));
  const int cells8 = m.ncell - m.ncell % W, edges8 = m.nedge - m.nedge % W;

  double t_aos[2] = {0, 0}, t_soa[2] = {0, 0};
  for (int call = 0; call <= calls; call++) { /* call 0 compiles and warms up: not timed */
    double t0 = now();
    op_par_loop(adt_calc_src, "adt_calc", cells, op_arg_dat(p_x, 0, pcell, 2, "double", OP_READ),
                op_arg_dat(p_x, 1, pcell, 2, "double", OP_READ),
                op_arg_dat(p_x, 2, pcell, 2, "double", OP_READ),
                op_arg_dat(p_x, 3, pcell, 2, "double", OP_READ),
                op_arg_dat(p_q, -1, OP_ID, 4, "double", OP_READ),
                op_arg_dat(p_adt, -1, OP_ID, 1, "double", OP_WRITE));
    double t1 = now();
    op_par_loop(res_calc_src, "res_calc", edges, op_arg_dat(p_x, 0, pedge, 2, "double", OP_READ),
                op_arg_dat(p_x, 1, pedge, 2, "double", OP_READ),
                op_arg_dat(p_q, 0, pecell, 4, "double", OP_READ),
                op_arg_dat(p_q, 1, pecell, 4, "double", OP_READ),
                op_arg_dat(p_adt, 0, pecell, 1, "double", OP_READ),
                op_arg_dat(p_adt, 1, pecell, 1, "double", OP_READ),
                op_arg_dat(p_res, 0, pecell, 4, "double", OP_INC),
                op_arg_dat(p_res, 1, pecell, 4, "double", OP_INC));
    double t2 = now();
    adt_calc_soa(&s, m.cell, cells8);
    double t3 = now();
    res_calc_soa(&s, m.edge, m.ecell, edges8);
    double t4 = now();
    if (call) t_aos[0] += t1 - t0, t_aos[1] += t2 - t1, t_soa[0] += t3 - t2, t_soa[1] += t4 - t3;
  }
  op_fetch_data(p_adt, adt);
  op_fetch_data(p_res, res);
  /* the library's adt_calc covers the remainder cells too: compare the grouped ones */
  int same_adt = memcmp(s.adt, adt, sizeof(double) * cells8) == 0;
  int same_res = same(s.res, res, m.ncell, 4);
  printf("layout: %d calls of each loop, groups of %d lanes, %d cells, %d edges\n", calls, W,
         m.ncell, edges8);
  printf("  loop        AoS ms/call   SoA ms/call   SoA/AoS   results\n");
  const char *names[2] = {"adt_calc", "res_calc"};
  int ok[2] = {same_adt, same_res};
  for (int i = 0; i < 2; i++)
    printf("  %-10s %12.4f  %12.4f  %8.3f   %s\n", names[i], 1e3 * t_aos[i] / calls,
           1e3 * t_soa[i] / calls, t_soa[i] / t_aos[i], ok[i] ? "identical" : "DIFFERENT");
  op_exit();
  free(q), free(adt), free(res), free(s.x), free(s.q), free(s.adt), free(s.res);
  airfoil_mesh_free(&m);
  return ok[0] && ok[1] ? 0 : 1;
}
