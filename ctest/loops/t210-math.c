/* SPDX-License-Identifier: BSD-3-Clause */
/* Kernels are whole C programs: helper functions, a typedef, a static table and the maths library
 * (sqrt, fabs, pow, M_PI, plus a few more), all defined in the kernel string, over indirect and
 * direct data. Compared with the same code compiled here, within 1e-12 relative (both use the
 * system's maths library, but the compilers may evaluate calls differently). */
#include "random_mesh.h"

enum { NE = 40000, NN = 10000, NC = 20000 };

KERNEL(
    geometry, typedef struct vec2 { double x, y; } vec2;
    static const double weights[4] = {0.125, 0.375, 0.375, 0.125};
    static vec2 sub(const double *a, const double *b) {
      vec2 d = {a[0] - b[0], a[1] - b[1]};
      return d;
    } static double norm(vec2 v) {
      return sqrt(v.x * v.x + v.y * v.y);
    } static double angle_deg(vec2 v) {
      return atan2(v.y, v.x) * 180.0 / M_PI;
    } static double smooth(double t, int depth) {
      return depth == 0 ? t : smooth(0.5 * (t + fabs(t - 1.0)), depth - 1);
    } static void geometry(const double **x, const double *k, double *out, double *acc) {
      vec2 e = sub(x[1], x[0]);
      double len = norm(e);
      out[0] = len;
      out[1] = angle_deg(e);
      out[2] = pow(len + 1.0, k[0]) + exp(-len) * cos(M_PI * len) - log1p(len);
      double s = 0.0;
      for (int j = 0; j < 4; j++) s += weights[j] * smooth(x[j & 1][j >> 1], 3);
      out[3] = s + floor(k[0] * 10.0) / 10.0 + fmod(len, 0.3);
      acc[0] += sin(out[1] * M_PI / 180.0) * len;
    })

KERNEL(
    quad_quality,
    static double side(const double *a, const double *b) {
      return hypot(a[0] - b[0], a[1] - b[1]);
    } static double clamp01(double v) {
      return fmin(1.0, fmax(0.0, v));
    } static void quad_quality(const double *a, const double *b, const double *c, const double *d,
                               double *q) {
      double s[4] = {side(a, b), side(b, c), side(c, d), side(d, a)};
      double lo = s[0], hi = s[0];
      for (int j = 1; j < 4; j++) lo = fmin(lo, s[j]), hi = fmax(hi, s[j]);
      q[0] = clamp01(hi > 0 ? lo / hi : 0.0);
      q[1] = pow(fabs(q[0] - 0.5), 1.5) + sqrt(fabs(s[0] - s[2]));
    })

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  rm_mesh m;
  rm_mesh_make(&m, NE, NN, NC, RM_JUMPS, 210);
  unsigned rng = rm_rng(2101);
  const int *en = m.edge_nodes, *cn = m.cell_nodes;
  double *x = rm_doubles(2 * NN, -4, 4, &rng), *k = rm_doubles(NE, 0.5, 2.5, &rng);
  double *acc = rm_doubles(NN, 0, 1, &rng);
  op_dat dx = op_decl_dat(m.nodes, 2, "double", x, "x");
  op_dat dk = op_decl_dat(m.edges, 1, "double", k, "k");
  op_dat dout = op_decl_dat(m.edges, 4, "double", NULL, "out");
  op_dat dacc = op_decl_dat(m.nodes, 1, "double", acc, "acc");
  double *want = rm_alloc(4 * NE * sizeof *want), *got = rm_alloc(4 * NE * sizeof *got);

  op_par_loop(geometry_src, "geometry", m.edges, op_arg_dat(dx, -2, m.pedge, 2, "double", OP_READ),
              op_arg_dat(dk, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(dout, -1, OP_ID, 4, "double", OP_WRITE),
              op_arg_dat(dacc, 1, m.pedge, 1, "double", OP_INC));
  for (int e = 0; e < NE; e++) {
    const double *xv[2] = {x + 2 * en[2 * e], x + 2 * en[2 * e + 1]};
    geometry(xv, k + e, want + 4 * e, acc + en[2 * e + 1]);
  }
  op_fetch_data(dout, got);
  rm_check_near(got, want, 4 * (size_t)NE, 1e-12, "geometry out");
  /* acc sums terms of both signs: bound the error by the sum of their sizes instead */
  double *agot = rm_alloc(NN * sizeof *agot), *scale = rm_alloc(NN * sizeof *scale);
  for (int e = 0; e < NE; e++) scale[en[2 * e + 1]] += want[4 * e];
  op_fetch_data(dacc, agot);
  for (int n = 0; n < NN; n++) CHECK(fabs(agot[n] - acc[n]) <= 1e-12 * (1 + scale[n]));

  op_dat dq = op_decl_dat(m.cells, 2, "double", NULL, "q");
  op_par_loop(quad_quality_src, "quad_quality", m.cells,
              op_arg_dat(dx, 0, m.pcell, 2, "double", OP_READ),
              op_arg_dat(dx, 1, m.pcell, 2, "double", OP_READ),
              op_arg_dat(dx, 2, m.pcell, 2, "double", OP_READ),
              op_arg_dat(dx, 3, m.pcell, 2, "double", OP_READ),
              op_arg_dat(dq, -1, OP_ID, 2, "double", OP_WRITE));
  for (int c = 0; c < NC; c++)
    quad_quality(x + 2 * cn[4 * c], x + 2 * cn[4 * c + 1], x + 2 * cn[4 * c + 2],
                 x + 2 * cn[4 * c + 3], want + 2 * c);
  op_fetch_data(dq, got);
  rm_check_near(got, want, 2 * (size_t)NC, 1e-12, "quad_quality");
  for (int c = 0; c < NC; c++) CHECK(got[2 * c] >= 0 && got[2 * c] <= 1);

  free(x), free(k), free(acc), free(want), free(got), free(agot), free(scale);
  rm_mesh_free(&m);
  op_exit();
  return 0;
}
