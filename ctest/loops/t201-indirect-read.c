/* SPDX-License-Identifier: BSD-3-Clause */
/* Indirect OP_READ: every map column, several arguments sharing one map and one dat (even the
 * same column twice), one dat read through two different maps, and maps into two different
 * sets. Each element's result depends only on what it reads, so it must equal plain C bit for
 * bit; the last loop also increments through a map (reads and writes in one planned loop). */
#include "random_mesh.h"

enum { NE = 40000, NN = 10000, NC = 20000 };

KERNEL(
    read_edge, static void read_edge(const double *x0, const double *x1, const int *y0,
                                     const int *y1, const double *x0again, double *out) {
      out[0] = x0[0] - x1[0] + x0again[1];
      out[1] = (x0[1] + x1[1]) * (double)(y0[0] - y1[0]);
      out[2] = (double)y0[0] * x0again[0] + (double)y1[0];
    })

KERNEL(
    read_cell, static void read_cell(const double *a, const double *b, const double *c,
                                     const double *d, const float *own, double *out) {
      /* shoelace area of the quadrilateral a b c d, scaled by the cell's own value */
      double s = a[0] * b[1] - b[0] * a[1] + b[0] * c[1] - c[0] * b[1] + c[0] * d[1] - d[0] * c[1] +
                 d[0] * a[1] - a[0] * d[1];
      out[0] = 0.5 * s * (double)own[0];
    })

/* The same dat through the mesh's map and through a second, fully random one. */
KERNEL(
    read_two_maps, static void read_two_maps(const double *a, const double *b, const double *c,
                                             const long long *cellv, double *out) {
      out[0] = a[0] * 2.0 + b[0];
      out[1] = c[0] - a[0] + (double)cellv[0];
    })

/* Reads through two maps (nodes and cells) and increments through one of them. */
KERNEL(
    read_inc, static void read_inc(const double *x0, const double *x1, const double *q0,
                                   const double *q1, double *r0, double *r1) {
      double flux = (x0[0] - x1[0]) * (q0[0] + q1[0]) + x0[1] * q1[1];
      r0[0] += flux;
      r0[1] += fabs(flux);
      r1[0] -= flux;
      r1[1] += fabs(flux);
    })

/* Rows of 4 doubles through both columns (SIMD groups of 8 move them with register shuffles). */
KERNEL(
    read_rows4, static void read_rows4(const double *a, const double *b, double *out) {
      for (int k = 0; k < 4; k++) out[k] = a[k] * (double)(k + 1) - b[3 - k];
    })

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  rm_mesh m;
  rm_mesh_make(&m, NE, NN, NC, RM_JUMPS, 201);
  unsigned rng = rm_rng(2011);
  int *e2n_random = rm_map_values(NE, 2, NN, RM_FULLY_RANDOM, &rng);
  int *e2c = rm_map_values(NE, 2, NC, RM_JUMPS, &rng);
  op_map pedge_random = op_decl_map(m.edges, m.nodes, 2, e2n_random, "pedge_random");
  op_map pecell = op_decl_map(m.edges, m.cells, 2, e2c, "pecell");
  const int *en = m.edge_nodes, *cn = m.cell_nodes;

  double *x = rm_doubles(2 * NN, -10, 10, &rng);
  int *y = rm_ints(NN, -500, 500, &rng);
  float *own = rm_alloc(NC * sizeof *own);
  long long *cellv = rm_alloc(NC * sizeof *cellv);
  double *q = rm_doubles(2 * NC, -1, 1, &rng);
  for (int c = 0; c < NC; c++) own[c] = (float)rm_uniform(&rng, 0, 2), cellv[c] = 3LL * c - NC;
  op_dat dx = op_decl_dat(m.nodes, 2, "double", x, "x");
  op_dat dy = op_decl_dat(m.nodes, 1, "int", y, "y");
  op_dat down = op_decl_dat(m.cells, 1, "float", own, "own");
  op_dat dcellv = op_decl_dat(m.cells, 1, "long long", cellv, "cellv");
  op_dat dq = op_decl_dat(m.cells, 2, "double", q, "q");

  /* every column of pedge; x read twice through column 0 */
  double *want = rm_alloc(3 * NE * sizeof *want), *got = rm_alloc(3 * NE * sizeof *got);
  op_dat dout = op_decl_dat(m.edges, 3, "double", NULL, "out");
  op_par_loop(read_edge_src, "read_edge", m.edges, op_arg_dat(dx, 0, m.pedge, 2, "double", OP_READ),
              op_arg_dat(dx, 1, m.pedge, 2, "double", OP_READ),
              op_arg_dat(dy, 0, m.pedge, 1, "int", OP_READ),
              op_arg_dat(dy, 1, m.pedge, 1, "int", OP_READ),
              op_arg_dat(dx, 0, m.pedge, 2, "double", OP_READ),
              op_arg_dat(dout, -1, OP_ID, 3, "double", OP_WRITE));
  for (int e = 0; e < NE; e++)
    read_edge(x + 2 * en[2 * e], x + 2 * en[2 * e + 1], y + en[2 * e], y + en[2 * e + 1],
              x + 2 * en[2 * e], want + 3 * e);
  op_fetch_data(dout, got);
  rm_check_same(got, want, 3 * NE, sizeof *got, "read_edge");

  /* every column of the arity-4 map */
  op_dat darea = op_decl_dat(m.cells, 1, "double", NULL, "area");
  op_par_loop(read_cell_src, "read_cell", m.cells, op_arg_dat(dx, 0, m.pcell, 2, "double", OP_READ),
              op_arg_dat(dx, 1, m.pcell, 2, "double", OP_READ),
              op_arg_dat(dx, 2, m.pcell, 2, "double", OP_READ),
              op_arg_dat(dx, 3, m.pcell, 2, "double", OP_READ),
              op_arg_dat(down, -1, OP_ID, 1, "float", OP_READ),
              op_arg_dat(darea, -1, OP_ID, 1, "double", OP_WRITE));
  for (int c = 0; c < NC; c++)
    read_cell(x + 2 * cn[4 * c], x + 2 * cn[4 * c + 1], x + 2 * cn[4 * c + 2],
              x + 2 * cn[4 * c + 3], own + c, want + c);
  op_fetch_data(darea, got);
  rm_check_same(got, want, NC, sizeof *got, "read_cell");

  /* one dat through two maps, and a third map into another set */
  op_dat dout2 = op_decl_dat(m.edges, 2, "double", NULL, "out2");
  op_par_loop(read_two_maps_src, "read_two_maps", m.edges,
              op_arg_dat(dx, 0, m.pedge, 2, "double", OP_READ),
              op_arg_dat(dx, 1, pedge_random, 2, "double", OP_READ),
              op_arg_dat(dx, 0, pedge_random, 2, "double", OP_READ),
              op_arg_dat(dcellv, 1, pecell, 1, "long long", OP_READ),
              op_arg_dat(dout2, -1, OP_ID, 2, "double", OP_WRITE));
  for (int e = 0; e < NE; e++)
    read_two_maps(x + 2 * en[2 * e], x + 2 * e2n_random[2 * e + 1], x + 2 * e2n_random[2 * e],
                  cellv + e2c[2 * e + 1], want + 2 * e);
  op_fetch_data(dout2, got);
  rm_check_same(got, want, 2 * NE, sizeof *got, "read_two_maps");

  /* reads through pedge and pecell while incrementing through pecell */
  double *r = rm_doubles(2 * NC, 0, 1, &rng);
  op_dat dr = op_decl_dat(m.cells, 2, "double", r, "r");
  op_par_loop(read_inc_src, "read_inc", m.edges, op_arg_dat(dx, 0, m.pedge, 2, "double", OP_READ),
              op_arg_dat(dx, 1, m.pedge, 2, "double", OP_READ),
              op_arg_dat(dq, 0, pecell, 2, "double", OP_READ),
              op_arg_dat(dq, 1, pecell, 2, "double", OP_READ),
              op_arg_dat(dr, 0, pecell, 2, "double", OP_INC),
              op_arg_dat(dr, 1, pecell, 2, "double", OP_INC));
  for (int e = 0; e < NE; e++)
    read_inc(x + 2 * en[2 * e], x + 2 * en[2 * e + 1], q + 2 * e2c[2 * e], q + 2 * e2c[2 * e + 1],
             r + 2 * e2c[2 * e], r + 2 * e2c[2 * e + 1]);
  op_fetch_data(dr, got);
  if (rm_plain_order()) rm_check_same(got, r, 2 * NC, sizeof *got, "read_inc");
  /* component 0 sums terms of both signs: compared against the sum of magnitudes (component 1)
   * so that cancellation does not turn rounding into a large relative error */
  for (int c = 0; c < NC; c++) {
    CHECK(fabs(got[2 * c] - r[2 * c]) <= 1e-12 * (1 + r[2 * c + 1]));
    CHECK_NEAR(got[2 * c + 1], r[2 * c + 1], 1e-12);
  }

  /* rows of 4 */
  double *q4 = rm_doubles(4 * NC, -1, 1, &rng);
  double *want4 = rm_alloc(4 * NE * sizeof *want4), *got4 = rm_alloc(4 * NE * sizeof *got4);
  op_dat dq4 = op_decl_dat(m.cells, 4, "double", q4, "q4");
  op_dat dout4 = op_decl_dat(m.edges, 4, "double", NULL, "out4");
  op_par_loop(read_rows4_src, "read_rows4", m.edges,
              op_arg_dat(dq4, 0, pecell, 4, "double", OP_READ),
              op_arg_dat(dq4, 1, pecell, 4, "double", OP_READ),
              op_arg_dat(dout4, -1, OP_ID, 4, "double", OP_WRITE));
  for (int e = 0; e < NE; e++)
    read_rows4(q4 + 4 * e2c[2 * e], q4 + 4 * e2c[2 * e + 1], want4 + 4 * e);
  op_fetch_data(dout4, got4);
  rm_check_same(got4, want4, 4 * NE, sizeof *got4, "read_rows4");
  free(q4), free(want4), free(got4);

  /* reading never writes */
  double *xgot = rm_alloc(2 * NN * sizeof *xgot);
  op_fetch_data(dx, xgot);
  rm_check_same(xgot, x, 2 * NN, sizeof *x, "x after reads");

  free(e2n_random), free(e2c), free(x), free(y), free(own), free(cellv), free(q), free(r);
  free(want), free(got), free(xgot);
  rm_mesh_free(&m);
  op_exit();
  return 0;
}
