/* SPDX-License-Identifier: BSD-3-Clause */
/* Indirect OP_INC, the classic scatter: edges add into their nodes, cells into their four
 * nodes, on a random mesh where every node is reached from many blocks and some edges reach the
 * same node twice. Integer results must be exact under every backend (integer addition does not
 * care about order); double results are exact on seq and within 1e-12 relative on openmp, whose
 * colours change the order in which a node's increments arrive. */
#include <math.h>

#include "random_mesh.h"

enum { NE = 40000, NN = 10000, NC = 20000 };

#define INC_EDGE(NAME, T, D)                 \
  static void NAME(const T *w, T *a, T *b) { \
    for (int k = 0; k < D; k++) {            \
      a[k] += w[k];                          \
      b[k] += w[k] * (T)2 + (T)k;            \
    }                                        \
  }
/* The reference calls go through untyped wrappers, so one driver serves every type. */
#define EDGE_KERNEL(NAME, T, D) EDGE_KERNEL_OF(INC_EDGE, NAME, T, D)
#define EDGE_KERNEL_OF(CODE, NAME, T, D)                    \
  KERNEL_OF(CODE, NAME, T, D)                               \
  static void NAME##_ref(const void *w, void *a, void *b) { \
    NAME(w, a, b);                                          \
  }
EDGE_KERNEL(inc_edge_d1, double, 1)
EDGE_KERNEL(inc_edge_d4, double, 4)
EDGE_KERNEL(inc_edge_i1, int, 1)
EDGE_KERNEL(inc_edge_i4, int, 4)
/* rows of 3 and 5: SIMD groups move them 4 components at a time, then one by one */
EDGE_KERNEL(inc_edge_d3, double, 3)
EDGE_KERNEL(inc_edge_d5, double, 5)

/* MG-CFD's flux shape (issue 34): rows of 5 read and added through a map, components named by
 * macros of the kernel's text and a conditional block in its body. Each component gets one
 * addition, so OP2_SIMD=auto runs it in groups and seq must still give plain C's bits. The text
 * is written twice (a directive cannot go through KERNEL's stringification): the string for
 * op2jit, the function below it for the reference. */
static const char flux5_src[] =
    "#define V_RHO 0\n"
    "#define V_MOM 1\n"
    "#define V_E (V_MOM + 3)\n"
    "void flux5(const double *w, double *a, double *b) {\n"
    "  double s = w[0] * (w[1] - w[2]);\n"
    "#ifdef V_HALF\n"
    "  s = s * 0.5;\n"
    "#endif\n"
    "  a[V_RHO] += s;\n"
    "  b[V_RHO] -= s;\n"
    "  a[V_MOM + 0] += w[1] / w[3];\n"
    "  a[V_MOM + 1] += sqrt(w[2] * w[3]);\n"
    "  a[V_MOM + 2] += w[4];\n"
    "  b[V_MOM] -= w[1] * w[4];\n"
    "  b[V_MOM + 1] -= w[2];\n"
    "  b[(V_MOM + 2)] -= w[3];\n"
    "  a[V_E] += s * w[4];\n"
    "  b[V_E] += s / w[0];\n"
    "}\n";
static void flux5_ref(const void *wv, void *av, void *bv) {
  const double *w = wv;
  double *a = av, *b = bv;
  double s = w[0] * (w[1] - w[2]);
  a[0] += s;
  b[0] -= s;
  a[1] += w[1] / w[3];
  a[2] += sqrt(w[2] * w[3]);
  a[3] += w[4];
  b[1] -= w[1] * w[4];
  b[2] -= w[2];
  b[3] -= w[3];
  a[4] += s * w[4];
  b[4] += s / w[0];
}

/* Parameters in the forms the SIMD strategy's kernel copy tells apart (jit/kernel_lanes.c): `a`
 * indexed and dereferenced (gathered component-major), `b` handed to a helper and stepped
 * through (left lane-major): both layouts in one group of lanes. */
#define MIXED_EDGE(NAME, T, D)               \
  static void NAME##_half(T *t, T v) {       \
    t[0] += v / (T)2;                        \
  }                                          \
  static void NAME(const T *w, T *a, T *b) { \
    *a += w[0] * (T)3;                       \
    a[D - 1] += *w;                          \
    NAME##_half(b, w[D - 1]);                \
    T *b1 = b + (D - 1);                     \
    *b1 += (T)1;                             \
  }
EDGE_KERNEL_OF(MIXED_EDGE, inc_edge_mixed, double, 2)

/* Two additions to one component, and the second argument's before the first's on another:
 * OP2_SIMD=auto keeps such a loop scalar (jit/kernel_lanes.c, op2_kernel_adds_once), so seq
 * gives plain C's bits; an explicit width runs it in groups, within rounding. */
#define TWICE_EDGE(NAME, T, D)               \
  static void NAME(const T *w, T *a, T *b) { \
    a[0] += w[0] * (T)0.1;                   \
    b[1] -= w[1];                            \
    a[0] += w[1] * (T)0.3;                   \
    a[D - 1] += w[0];                        \
    b[0] += w[0];                            \
  }
EDGE_KERNEL_OF(TWICE_EDGE, inc_edge_twice, double, 2)

/* Four columns of an arity-4 map, each its own argument, plus a second dat through the same
 * map: the increments of one cell land on up to four distinct nodes of two dats. */
#define INC_CELL(NAME, T, D)                                       \
  static void NAME(const T *w, T *p0, T *p1, T *p2, T *p3, T *q) { \
    for (int k = 0; k < D; k++) {                                  \
      p0[k] += w[k];                                               \
      p1[k] += w[k] + (T)1;                                        \
      p2[k] += (T)3 * w[k];                                        \
      p3[k] -= w[k];                                               \
    }                                                              \
    q[0] += (T)1;                                                  \
  }
#define CELL_KERNEL(NAME, T, D)                                                            \
  KERNEL_OF(INC_CELL, NAME, T, D)                                                          \
  static void NAME##_ref(const void *w, void *p0, void *p1, void *p2, void *p3, void *q) { \
    NAME(w, p0, p1, p2, p3, q);                                                            \
  }
CELL_KERNEL(inc_cell_d1, double, 1)
CELL_KERNEL(inc_cell_i4, int, 4)

/* Signed zeros: nodes start at -0.0 and receive -0.0, +0.0 and whole numbers, sums exact in any
 * order, so every backend must give plain C's bits; a SIMD lane starting from +0.0 would turn
 * -0.0 + -0.0 into +0.0. */
KERNEL(
    zero_inc, static void zero_inc(const double *w, double *a, double *b) {
      a[0] += -0.0 * w[0];
      b[0] -= 0.0 * w[0];
      a[1] += 0.0 * w[0];
      b[1] += w[0];
    })

static void check_signed_zeros(const rm_mesh *m) {
  double *w = rm_alloc(NE * sizeof *w), *node = rm_alloc(2 * NN * sizeof *node);
  double *got = rm_alloc(2 * NN * sizeof *got);
  for (int e = 0; e < NE; e++) w[e] = (double)(1 + e % 5);
  for (int i = 0; i < 2 * NN; i++) node[i] = -0.0;
  op_dat dw = op_decl_dat(m->edges, 1, "double", w, "w_zero");
  op_dat dn = op_decl_dat(m->nodes, 2, "double", node, "node_zero");
  op_par_loop(zero_inc_src, "zero_inc", m->edges, op_arg_dat(dw, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(dn, 0, m->pedge, 2, "double", OP_INC),
              op_arg_dat(dn, 1, m->pedge, 2, "double", OP_INC));
  for (int e = 0; e < NE; e++)
    zero_inc(w + e, node + 2 * m->edge_nodes[2 * e], node + 2 * m->edge_nodes[2 * e + 1]);
  op_fetch_data(dn, got);
  rm_check_same(got, node, 2 * (size_t)NN, sizeof *got, "zero_inc");
  free(w), free(node), free(got);
}

typedef void (*edge_fn)(const void *w, void *a, void *b);
typedef void (*cell_fn)(const void *w, void *p0, void *p1, void *p2, void *p3, void *q);

static void fill(void *buf, size_t n, int is_int, unsigned *rng) {
  for (size_t i = 0; i < n; i++)
    if (is_int)
      ((int *)buf)[i] = rm_below(rng, 2000) - 1000;
    else
      ((double *)buf)[i] = rm_uniform(rng, 0.5, 1.5); /* positive: no cancellation */
}

/* A given OP2_SIMD width runs every exact loop in groups, adding twice as summed first. */
static int explicit_width(void) {
  const char *w = getenv("OP2_SIMD");
  return w && w[0] >= '0' && w[0] <= '9' && strcmp(w, "0") != 0;
}

static void compare(const void *got, const void *want, size_t n, int is_int, const char *what) {
  int summed_first = !strcmp(what, "inc_edge_twice") && explicit_width();
  if (is_int || (rm_plain_order() && !summed_first))
    rm_check_same(got, want, n, is_int ? sizeof(int) : 8, what);
  else
    rm_check_near(got, want, n, 1e-12, what);
}

static void check_edges(const rm_mesh *m, const char *src, const char *name, int is_int, int dim,
                        edge_fn kernel, unsigned seed) {
  const char *type = is_int ? "int" : "double";
  size_t ts = is_int ? sizeof(int) : sizeof(double);
  unsigned rng = rm_rng(seed);
  char *w = rm_alloc((size_t)NE * dim * ts), *node = rm_alloc((size_t)NN * dim * ts);
  char *got = rm_alloc((size_t)NN * dim * ts);
  fill(w, (size_t)NE * dim, is_int, &rng);
  fill(node, (size_t)NN * dim, is_int, &rng); /* increments add to what is there */
  op_dat dw = op_decl_dat(m->edges, dim, type, w, "w");
  op_dat dn = op_decl_dat(m->nodes, dim, type, node, "node");
  for (int call = 0; call < 2; call++) {
    op_par_loop_args(src, name, m->edges, 3,
                     (op_arg[]){op_arg_dat(dw, -1, OP_ID, dim, type, OP_READ),
                                op_arg_dat(dn, 0, m->pedge, dim, type, OP_INC),
                                op_arg_dat(dn, 1, m->pedge, dim, type, OP_INC)});
    for (int e = 0; e < NE; e++)
      kernel(w + (size_t)e * dim * ts, node + (size_t)m->edge_nodes[2 * e] * dim * ts,
             node + (size_t)m->edge_nodes[2 * e + 1] * dim * ts);
  }
  op_fetch_data(dn, got);
  compare(got, node, (size_t)NN * dim, is_int, name);
  free(w), free(node), free(got);
}

static void check_cells(const rm_mesh *m, const char *src, const char *name, int is_int, int dim,
                        cell_fn kernel, unsigned seed) {
  const char *type = is_int ? "int" : "double";
  size_t ts = is_int ? sizeof(int) : sizeof(double);
  unsigned rng = rm_rng(seed);
  char *w = rm_alloc((size_t)NC * dim * ts), *node = rm_alloc((size_t)NN * dim * ts);
  char *q = rm_alloc((size_t)NN * ts), *got = rm_alloc((size_t)NN * dim * ts);
  fill(w, (size_t)NC * dim, is_int, &rng);
  fill(node, (size_t)NN * dim, is_int, &rng);
  op_dat dw = op_decl_dat(m->cells, dim, type, w, "w");
  op_dat dn = op_decl_dat(m->nodes, dim, type, node, "node");
  op_dat dq = op_decl_dat(m->nodes, 1, type, NULL, "count");
  op_par_loop_args(src, name, m->cells, 6,
                   (op_arg[]){op_arg_dat(dw, -1, OP_ID, dim, type, OP_READ),
                              op_arg_dat(dn, 0, m->pcell, dim, type, OP_INC),
                              op_arg_dat(dn, 1, m->pcell, dim, type, OP_INC),
                              op_arg_dat(dn, 2, m->pcell, dim, type, OP_INC),
                              op_arg_dat(dn, 3, m->pcell, dim, type, OP_INC),
                              op_arg_dat(dq, 3, m->pcell, 1, type, OP_INC)});
  const int *cn = m->cell_nodes;
  for (int c = 0; c < NC; c++)
    kernel(w + (size_t)c * dim * ts, node + (size_t)cn[4 * c] * dim * ts,
           node + (size_t)cn[4 * c + 1] * dim * ts, node + (size_t)cn[4 * c + 2] * dim * ts,
           node + (size_t)cn[4 * c + 3] * dim * ts, q + (size_t)cn[4 * c + 3] * ts);
  op_fetch_data(dn, got);
  compare(got, node, (size_t)NN * dim, is_int, name);
  op_fetch_data(dq, got);
  compare(got, q, NN, is_int, name);
  free(w), free(node), free(q), free(got);
}

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  rm_mesh m;
  rm_mesh_make(&m, NE, NN, NC, RM_JUMPS, 202);
  check_edges(&m, inc_edge_d1_src, "inc_edge_d1", 0, 1, inc_edge_d1_ref, 1);
  check_edges(&m, inc_edge_d4_src, "inc_edge_d4", 0, 4, inc_edge_d4_ref, 2);
  check_edges(&m, inc_edge_i1_src, "inc_edge_i1", 1, 1, inc_edge_i1_ref, 3);
  check_edges(&m, inc_edge_i4_src, "inc_edge_i4", 1, 4, inc_edge_i4_ref, 4);
  check_edges(&m, inc_edge_d3_src, "inc_edge_d3", 0, 3, inc_edge_d3_ref, 9);
  check_edges(&m, inc_edge_d5_src, "inc_edge_d5", 0, 5, inc_edge_d5_ref, 10);
  check_edges(&m, flux5_src, "flux5", 0, 5, flux5_ref, 11);
  check_edges(&m, inc_edge_mixed_src, "inc_edge_mixed", 0, 2, inc_edge_mixed_ref, 7);
  check_edges(&m, inc_edge_twice_src, "inc_edge_twice", 0, 2, inc_edge_twice_ref, 8);
  check_signed_zeros(&m);
  check_cells(&m, inc_cell_d1_src, "inc_cell_d1", 0, 1, inc_cell_d1_ref, 5);
  check_cells(&m, inc_cell_i4_src, "inc_cell_i4", 1, 4, inc_cell_i4_ref, 6);
  rm_mesh_free(&m);
  op_exit();
  return 0;
}
