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

/* Rows of D doubles through both columns (SIMD groups move them with register shuffles: rows of
 * 4 side by side, longer rows 4 components at a time, what is left one component at a time). */
#define READ_ROWS(NAME, T, D)                                              \
  static void NAME(const T *a, const T *b, T *out) {                       \
    for (int k = 0; k < D; k++) out[k] = a[k] * (T)(k + 1) - b[D - 1 - k]; \
  }
#define READ_ROWS_KERNEL(NAME, D)                                         \
  KERNEL_OF(READ_ROWS, NAME, double, D)                                   \
  static void NAME##_ref(const double *a, const double *b, double *out) { \
    NAME(a, b, out);                                                      \
  }
READ_ROWS_KERNEL(read_rows3, 3)
READ_ROWS_KERNEL(read_rows4, 4)
READ_ROWS_KERNEL(read_rows5, 5)
READ_ROWS_KERNEL(read_rows9, 9)

/* Rows of dim doubles on cells read through both columns of pecell (e2c) by every edge. */
static void check_read_rows(const rm_mesh *m, op_map pecell, const int *e2c, int dim,
                            const char *src, const char *name,
                            void (*ref)(const double *, const double *, double *), unsigned *rng) {
  double *q = rm_doubles((size_t)dim * NC, -1, 1, rng);
  double *want = rm_alloc((size_t)dim * NE * sizeof *want),
         *got = rm_alloc((size_t)dim * NE * sizeof *got);
  op_dat dq = op_decl_dat(m->cells, dim, "double", q, "q_rows");
  op_dat dout = op_decl_dat(m->edges, dim, "double", NULL, "out_rows");
  op_par_loop(src, name, m->edges, op_arg_dat(dq, 0, pecell, dim, "double", OP_READ),
              op_arg_dat(dq, 1, pecell, dim, "double", OP_READ),
              op_arg_dat(dout, -1, OP_ID, dim, "double", OP_WRITE));
  for (int e = 0; e < NE; e++)
    ref(q + (size_t)dim * e2c[2 * e], q + (size_t)dim * e2c[2 * e + 1], want + (size_t)dim * e);
  op_fetch_data(dout, got);
  rm_check_same(got, want, (size_t)dim * NE, sizeof *got, name);
  free(q), free(want), free(got);
}

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

  /* rows of 3, 4, 5 and 9 */
  check_read_rows(&m, pecell, e2c, 3, read_rows3_src, "read_rows3", read_rows3_ref, &rng);
  check_read_rows(&m, pecell, e2c, 4, read_rows4_src, "read_rows4", read_rows4_ref, &rng);
  check_read_rows(&m, pecell, e2c, 5, read_rows5_src, "read_rows5", read_rows5_ref, &rng);
  check_read_rows(&m, pecell, e2c, 9, read_rows9_src, "read_rows9", read_rows9_ref, &rng);

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
