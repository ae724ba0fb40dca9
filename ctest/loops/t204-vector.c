/* SPDX-License-Identifier: BSD-3-Clause */
/* Vector arguments (idx = -k): the kernel receives an array of k pointers, one per map column
 * 0..k-1, `const T **` for OP_READ and `T **` otherwise. Covered: k equal to the arity (2 and 4)
 * and smaller (3 and 2 of an arity-4 map), READ, INC and RW, dims 1 and 2, double and int, and a
 * vector argument beside single-column arguments of the same map and dat. */
#include "random_mesh.h"

enum { NE = 40000, NN = 10000, NC = 20000 };

KERNEL(
    vec_read_edge, static void vec_read_edge(const double **x, const int **t, double *out) {
      out[0] = x[1][0] - x[0][0];
      out[1] = (x[1][1] - x[0][1]) * (double)(t[0][0] + 2 * t[1][0]);
    })

/* The first k columns of the arity-4 map, for k = 4, 3, 2: weights tell the columns apart. */
#define VEC_READ_CELL(NAME, K)                                                        \
  static void NAME(const double **x, double *out) {                                   \
    out[0] = 0.0;                                                                     \
    for (int j = 0; j < K; j++) out[0] += x[j][0] * (double)(j + 1) + x[j][1] * 0.25; \
  }
KERNEL_OF(VEC_READ_CELL, vec_read_cell4, 4)
KERNEL_OF(VEC_READ_CELL, vec_read_cell3, 3)
KERNEL_OF(VEC_READ_CELL, vec_read_cell2, 2)

#define VEC_INC_CELL(NAME, T, K)        \
  static void NAME(const T *w, T **r) { \
    for (int j = 0; j < K; j++) {       \
      r[j][0] += w[0] * (T)(j + 1);     \
      r[j][1] += (T)1;                  \
    }                                   \
  }
KERNEL_OF(VEC_INC_CELL, vec_inc_cell4_d, double, 4)
KERNEL_OF(VEC_INC_CELL, vec_inc_cell3_d, double, 3)
KERNEL_OF(VEC_INC_CELL, vec_inc_cell4_i, int, 4)

/* Vector read and vector increment of the same map in one loop, beside a single column. */
KERNEL(
    vec_mixed, static void vec_mixed(const int **x, const int *x3, int **r, int *r2) {
      int s = x[0][0] + x[1][0] + x[2][0] + x[3][0];
      for (int j = 0; j < 4; j++) r[j][0] += s - x[j][0];
      r2[0] += 100 * x3[0];
    })

/* A vector RW argument with an order-independent update: the maximum seen at each node. */
KERNEL(
    vec_rw_max, static void vec_rw_max(const int *v, int **m) {
      for (int j = 0; j < 2; j++) m[j][0] = MAX(m[j][0], v[0] + j);
    })

static void compare_d(const double *got, const double *want, size_t n, const char *what) {
  if (rm_plain_order())
    rm_check_same(got, want, n, sizeof *got, what);
  else
    rm_check_near(got, want, n, 1e-12, what);
}

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  rm_mesh m;
  rm_mesh_make(&m, NE, NN, NC, RM_JUMPS, 204);
  unsigned rng = rm_rng(2041);
  const int *en = m.edge_nodes, *cn = m.cell_nodes;
  double *x = rm_doubles(2 * NN, -3, 3, &rng);
  int *t = rm_ints(NN, -20, 20, &rng);
  op_dat dx = op_decl_dat(m.nodes, 2, "double", x, "x");
  op_dat dt = op_decl_dat(m.nodes, 1, "int", t, "t");
  double *want = rm_alloc(2 * NE * sizeof *want), *got = rm_alloc(2 * NE * sizeof *got);

  op_dat dout = op_decl_dat(m.edges, 2, "double", NULL, "out");
  op_par_loop(vec_read_edge_src, "vec_read_edge", m.edges,
              op_arg_dat(dx, -2, m.pedge, 2, "double", OP_READ),
              op_arg_dat(dt, -2, m.pedge, 1, "int", OP_READ),
              op_arg_dat(dout, -1, OP_ID, 2, "double", OP_WRITE));
  for (int e = 0; e < NE; e++) {
    const double *xv[2] = {x + 2 * en[2 * e], x + 2 * en[2 * e + 1]};
    const int *tv[2] = {t + en[2 * e], t + en[2 * e + 1]};
    vec_read_edge(xv, tv, want + 2 * e);
  }
  op_fetch_data(dout, got);
  rm_check_same(got, want, 2 * NE, sizeof *got, "vec_read_edge");

  struct {
    const char *src, *name;
    int k;
    void (*ref)(const double **, double *);
  } reads[] = {{vec_read_cell4_src, "vec_read_cell4", 4, vec_read_cell4},
               {vec_read_cell3_src, "vec_read_cell3", 3, vec_read_cell3},
               {vec_read_cell2_src, "vec_read_cell2", 2, vec_read_cell2}};
  op_dat dcell = op_decl_dat(m.cells, 1, "double", NULL, "cellout");
  for (int i = 0; i < 3; i++) {
    op_par_loop_args(reads[i].src, reads[i].name, m.cells, 2,
                     (op_arg[]){op_arg_dat(dx, -reads[i].k, m.pcell, 2, "double", OP_READ),
                                op_arg_dat(dcell, -1, OP_ID, 1, "double", OP_WRITE)});
    for (int c = 0; c < NC; c++) {
      const double *xv[4];
      for (int j = 0; j < reads[i].k; j++) xv[j] = x + 2 * cn[4 * c + j];
      reads[i].ref(xv, want + c);
    }
    op_fetch_data(dcell, got);
    rm_check_same(got, want, NC, sizeof *got, reads[i].name);
  }

  /* increments through 4 and 3 of the 4 columns */
  double *w = rm_doubles(NC, 0.5, 1.5, &rng), *r = rm_doubles(2 * NN, 0, 1, &rng);
  op_dat dw = op_decl_dat(m.cells, 1, "double", w, "w");
  op_dat dr = op_decl_dat(m.nodes, 2, "double", r, "r");
  op_par_loop(vec_inc_cell4_d_src, "vec_inc_cell4_d", m.cells,
              op_arg_dat(dw, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(dr, -4, m.pcell, 2, "double", OP_INC));
  op_par_loop(vec_inc_cell3_d_src, "vec_inc_cell3_d", m.cells,
              op_arg_dat(dw, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(dr, -3, m.pcell, 2, "double", OP_INC));
  for (int c = 0; c < NC; c++) {
    double *rv[4];
    for (int j = 0; j < 4; j++) rv[j] = r + 2 * cn[4 * c + j];
    vec_inc_cell4_d(w + c, rv);
  }
  for (int c = 0; c < NC; c++) {
    double *rv[3];
    for (int j = 0; j < 3; j++) rv[j] = r + 2 * cn[4 * c + j];
    vec_inc_cell3_d(w + c, rv);
  }
  double *rgot = rm_alloc(2 * NN * sizeof *rgot);
  op_fetch_data(dr, rgot);
  compare_d(rgot, r, 2 * NN, "vec_inc_cell d");

  int *wi = rm_ints(NC, -1000, 1000, &rng), *ri = rm_ints(2 * NN, -10, 10, &rng);
  int *igot = rm_alloc(2 * NN * sizeof *igot);
  op_dat dwi = op_decl_dat(m.cells, 1, "int", wi, "wi");
  op_dat dri = op_decl_dat(m.nodes, 2, "int", ri, "ri");
  op_par_loop(vec_inc_cell4_i_src, "vec_inc_cell4_i", m.cells,
              op_arg_dat(dwi, -1, OP_ID, 1, "int", OP_READ),
              op_arg_dat(dri, -4, m.pcell, 2, "int", OP_INC));
  for (int c = 0; c < NC; c++) {
    int *rv[4];
    for (int j = 0; j < 4; j++) rv[j] = ri + 2 * cn[4 * c + j];
    vec_inc_cell4_i(wi + c, rv);
  }
  op_fetch_data(dri, igot);
  rm_check_same(igot, ri, 2 * NN, sizeof *ri, "vec_inc_cell4_i");

  int *xi = rm_ints(NN, -1000, 1000, &rng), *acc = rm_ints(NN, -5, 5, &rng);
  op_dat dxi = op_decl_dat(m.nodes, 1, "int", xi, "xi");
  op_dat dacc = op_decl_dat(m.nodes, 1, "int", acc, "acc");
  op_par_loop(vec_mixed_src, "vec_mixed", m.cells, op_arg_dat(dxi, -4, m.pcell, 1, "int", OP_READ),
              op_arg_dat(dxi, 3, m.pcell, 1, "int", OP_READ),
              op_arg_dat(dacc, -4, m.pcell, 1, "int", OP_INC),
              op_arg_dat(dacc, 2, m.pcell, 1, "int", OP_INC));
  for (int c = 0; c < NC; c++) {
    const int *xv[4];
    int *rv[4];
    for (int j = 0; j < 4; j++) xv[j] = xi + cn[4 * c + j], rv[j] = acc + cn[4 * c + j];
    vec_mixed(xv, xi + cn[4 * c + 3], rv, acc + cn[4 * c + 2]);
  }
  op_fetch_data(dacc, igot);
  rm_check_same(igot, acc, NN, sizeof *acc, "vec_mixed");

  int *v = rm_ints(NE, -100000, 100000, &rng), *mx = rm_ints(NN, -100000, 0, &rng);
  op_dat dv = op_decl_dat(m.edges, 1, "int", v, "v");
  op_dat dmx = op_decl_dat(m.nodes, 1, "int", mx, "mx");
  op_par_loop(vec_rw_max_src, "vec_rw_max", m.edges, op_arg_dat(dv, -1, OP_ID, 1, "int", OP_READ),
              op_arg_dat(dmx, -2, m.pedge, 1, "int", OP_RW));
  for (int e = 0; e < NE; e++) {
    int *mv[2] = {mx + en[2 * e], mx + en[2 * e + 1]};
    vec_rw_max(v + e, mv);
  }
  op_fetch_data(dmx, igot);
  rm_check_same(igot, mx, NN, sizeof *mx, "vec_rw_max");

  free(x), free(t), free(want), free(got), free(w), free(r), free(rgot), free(wi), free(ri);
  free(igot), free(xi), free(acc), free(v), free(mx);
  rm_mesh_free(&m);
  op_exit();
  return 0;
}
