/* SPDX-License-Identifier: BSD-3-Clause */
/* op_decl_const: scalar and array constants used by kernels, then changed. The next call of a
 * loop must use the new values, which takes a new kernel (values are compiled in) for the loops
 * that use the constant and no new kernel for those that do not; redeclaring a constant with the
 * value it has changes nothing. The plain-C reference compiles the same kernels against globals
 * of the same names, kept equal to what was declared. */
#include "random_mesh.h"

enum { NE = 40000, NN = 10000 };

static double alpha;
static double coef[3];
static int shift;

KERNEL(
    with_const, static void with_const(const double *x, double *y) {
      y[0] = alpha * x[0] + coef[0] + coef[1] * x[0] * x[0] + coef[2] + (double)shift;
    })

KERNEL(
    no_const, static void no_const(const double *x, double *y) { y[0] = x[0] * 2.0 - 1.0; })

/* `x[0] > alpha`: a constant after '>' must be found (only '->' introduces a member). */
KERNEL(
    inc_const, static void inc_const(const double *x, int *a, int *b) {
      a[0] += shift;
      b[0] += (int)(coef[1] * 10.0) + (x[0] > alpha ? 1 : 0);
    })

typedef struct world {
  rm_mesh m;
  op_dat x, y, y2, node;
  double *xv;
  int *node_start;
} world;

static void declare(double a, double c0, double c1, double c2, int s) {
  alpha = a, coef[0] = c0, coef[1] = c1, coef[2] = c2, shift = s;
  op_decl_const(1, "double", &alpha, "alpha");
  op_decl_const(3, "double", coef, "coef");
  op_decl_const(1, "int", &shift, "shift");
}

/* Runs the three loops and checks them against plain C with the current globals. */
static void run_and_check(const world *w, double *ykeep) {
  const int *en = w->m.edge_nodes;
  op_par_loop(with_const_src, "with_const", w->m.edges,
              op_arg_dat(w->x, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(w->y, -1, OP_ID, 1, "double", OP_WRITE));
  op_par_loop(no_const_src, "no_const", w->m.edges,
              op_arg_dat(w->x, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(w->y2, -1, OP_ID, 1, "double", OP_WRITE));
  op_par_loop(inc_const_src, "inc_const", w->m.edges,
              op_arg_dat(w->x, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(w->node, 0, w->m.pedge, 1, "int", OP_INC),
              op_arg_dat(w->node, 1, w->m.pedge, 1, "int", OP_INC));
  double *want = rm_alloc(NE * sizeof *want), *got = rm_alloc(NE * sizeof *got);
  for (int e = 0; e < NE; e++) with_const(w->xv + e, want + e);
  op_fetch_data(w->y, got);
  rm_check_same(got, want, NE, sizeof *got, "with_const");
  if (ykeep) memcpy(ykeep, got, NE * sizeof *got);
  for (int e = 0; e < NE; e++) no_const(w->xv + e, want + e);
  op_fetch_data(w->y2, got);
  rm_check_same(got, want, NE, sizeof *got, "no_const");
  /* node counts accumulate over calls: the reference keeps its own running copy */
  for (int e = 0; e < NE; e++)
    inc_const(w->xv + e, w->node_start + en[2 * e], w->node_start + en[2 * e + 1]);
  int *igot = rm_alloc(NN * sizeof *igot);
  op_fetch_data(w->node, igot);
  rm_check_same(igot, w->node_start, NN, sizeof *igot, "inc_const");
  free(want), free(got), free(igot);
}

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  world w;
  rm_mesh_make(&w.m, NE, NN, 1, RM_JUMPS, 208);
  unsigned rng = rm_rng(2081);
  w.xv = rm_doubles(NE, -2, 2, &rng);
  w.node_start = rm_alloc(NN * sizeof *w.node_start);
  w.x = op_decl_dat(w.m.edges, 1, "double", w.xv, "x");
  w.y = op_decl_dat(w.m.edges, 1, "double", NULL, "y");
  w.y2 = op_decl_dat(w.m.edges, 1, "double", NULL, "y2");
  w.node = op_decl_dat(w.m.nodes, 1, "int", NULL, "node");
  double *first = rm_alloc(NE * sizeof *first), *later = rm_alloc(NE * sizeof *later);

  declare(1.5, 1.0, 2.0, 3.0, 4);
  int k0 = rm_kernels_obtained();
  run_and_check(&w, first);
  int k1 = rm_kernels_obtained();
  CHECK_EQ_INT(k1, k0 + 3);

  run_and_check(&w, NULL); /* nothing changed: nothing new */
  declare(1.5, 1.0, 2.0, 3.0, 4);
  run_and_check(&w, NULL);
  CHECK_EQ_INT(rm_kernels_obtained(), k1);

  declare(-0.75, 1.0, 2.0, 3.0, 4); /* the scalar: with_const and inc_const change */
  run_and_check(&w, later);
  CHECK(memcmp(first, later, NE * sizeof *first) != 0);
  CHECK_EQ_INT(rm_kernels_obtained(), k1 + 2);

  declare(-0.75, 1.0, -2.5, 3.0, 4); /* one element of the array */
  run_and_check(&w, later);
  CHECK_EQ_INT(rm_kernels_obtained(), k1 + 4);

  declare(-0.75, 1.0, -2.5, 3.0, -9); /* the int */
  run_and_check(&w, later);
  CHECK_EQ_INT(rm_kernels_obtained(), k1 + 6);

  declare(1.5, 1.0, 2.0, 3.0, 4); /* back where it started: the first results again */
  run_and_check(&w, later);
  rm_check_same(later, first, NE, sizeof *first, "with_const after restoring the constants");

  free(w.xv), free(w.node_start), free(first), free(later);
  rm_mesh_free(&w.m);
  op_exit();
  return 0;
}
