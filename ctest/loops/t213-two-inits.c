/* SPDX-License-Identifier: BSD-3-Clause */
/* op_init / op_exit more than once in one process, switching backends in between through the
 * environment: the backend under test (OP2_BACKEND as meson sets it), then the other CPU
 * backend, then the first again. The same random program runs each time; every run must match
 * plain C, the two backends must agree with each other (integers exactly, doubles within 1e-12),
 * and the third run must repeat the first bit for bit. */
#include "random_mesh.h"

enum { NE = 40000, NN = 10000, NC = 20000 };

KERNEL(
    ti_direct, static void ti_direct(const double *a, double *b) {
      b[0] = b[0] * a[0] + 0.5;
      b[1] = sqrt(fabs(b[0])) - a[0];
    })

KERNEL(
    ti_scatter, static void ti_scatter(const double *w, const int *k, double *n0, double *n1,
                                       int *c0, int *c1, double *sum, int *kmax) {
      n0[0] += w[0];
      n1[0] += w[0] * 0.5;
      c0[0] += k[0];
      c1[0] -= 3 * k[0];
      *sum += w[0];
      *kmax = MAX(*kmax, k[0]);
    })

static const double factor = 0.25; /* declared to OP2 as a constant of the same name */

KERNEL(
    ti_cells, static void ti_cells(const double **x, double **r) {
      double s = x[0][0] + x[1][0] + x[2][0] + x[3][0];
      for (int j = 0; j < 4; j++) r[j][0] += s * factor;
    })

typedef struct outcome {
  double *b, *n, *r;
  int *c;
  double sum;
  int kmax, kernels;
} outcome;

/* Plain C's answer, computed once. */
typedef struct inputs {
  double *a, *b, *w, *x, *n, *r;
  int *k, *c;
} inputs;

static void make_inputs(inputs *in) {
  unsigned rng = rm_rng(2131);
  in->a = rm_doubles(NE, -2, 2, &rng);
  in->b = rm_doubles(2 * NE, -1, 1, &rng);
  in->w = rm_doubles(NE, 0.5, 1.5, &rng);
  in->k = rm_ints(NE, -1000, 1000, &rng);
  in->x = rm_doubles(NN, 0, 1, &rng);
  in->n = rm_doubles(NN, 0, 1, &rng);
  in->r = rm_doubles(NN, 0, 1, &rng);
  in->c = rm_ints(NN, -10, 10, &rng);
}

static outcome run_program(const inputs *in, unsigned mesh_seed) {
  outcome o = {.sum = 1.0, .kmax = -5000};
  op_init(0, NULL, 0);
  rm_mesh m;
  rm_mesh_make(&m, NE, NN, NC, RM_JUMPS, mesh_seed);
  op_decl_const(1, "double", &factor, "factor");
  op_dat da = op_decl_dat(m.edges, 1, "double", in->a, "a");
  op_dat db = op_decl_dat(m.edges, 2, "double", in->b, "b");
  op_dat dw = op_decl_dat(m.edges, 1, "double", in->w, "w");
  op_dat dk = op_decl_dat(m.edges, 1, "int", in->k, "k");
  op_dat dx = op_decl_dat(m.nodes, 1, "double", in->x, "x");
  op_dat dn = op_decl_dat(m.nodes, 1, "double", in->n, "n");
  op_dat dr = op_decl_dat(m.nodes, 1, "double", in->r, "r");
  op_dat dc = op_decl_dat(m.nodes, 1, "int", in->c, "c");
  op_par_loop(ti_direct_src, "ti_direct", m.edges, op_arg_dat(da, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(db, -1, OP_ID, 2, "double", OP_RW));
  op_par_loop(
      ti_scatter_src, "ti_scatter", m.edges, op_arg_dat(dw, -1, OP_ID, 1, "double", OP_READ),
      op_arg_dat(dk, -1, OP_ID, 1, "int", OP_READ), op_arg_dat(dn, 0, m.pedge, 1, "double", OP_INC),
      op_arg_dat(dn, 1, m.pedge, 1, "double", OP_INC), op_arg_dat(dc, 1, m.pedge, 1, "int", OP_INC),
      op_arg_dat(dc, 0, m.pedge, 1, "int", OP_INC), op_arg_gbl(&o.sum, 1, "double", OP_INC),
      op_arg_gbl(&o.kmax, 1, "int", OP_MAX));
  op_par_loop(ti_cells_src, "ti_cells", m.cells, op_arg_dat(dx, -4, m.pcell, 1, "double", OP_READ),
              op_arg_dat(dr, -4, m.pcell, 1, "double", OP_INC));
  o.b = rm_alloc(2 * NE * sizeof *o.b);
  o.n = rm_alloc(NN * sizeof *o.n);
  o.r = rm_alloc(NN * sizeof *o.r);
  o.c = rm_alloc(NN * sizeof *o.c);
  op_fetch_data(db, o.b);
  op_fetch_data(dn, o.n);
  op_fetch_data(dr, o.r);
  op_fetch_data(dc, o.c);
  o.kernels = rm_kernels_obtained();
  rm_mesh_free(&m);
  op_exit();
  return o;
}

static outcome plain_c(const inputs *in, unsigned mesh_seed) {
  /* the same mesh arrays, without declaring anything */
  rm_mesh m;
  rm_mesh_values(&m, NE, NN, NC, RM_JUMPS, mesh_seed);
  const int *en = m.edge_nodes, *cn = m.cell_nodes;
  outcome o = {.sum = 1.0, .kmax = -5000};
  o.b = rm_alloc(2 * NE * sizeof *o.b);
  o.n = rm_alloc(NN * sizeof *o.n);
  o.r = rm_alloc(NN * sizeof *o.r);
  o.c = rm_alloc(NN * sizeof *o.c);
  memcpy(o.b, in->b, 2 * NE * sizeof *o.b);
  memcpy(o.n, in->n, NN * sizeof *o.n);
  memcpy(o.r, in->r, NN * sizeof *o.r);
  memcpy(o.c, in->c, NN * sizeof *o.c);
  for (int e = 0; e < NE; e++) ti_direct(in->a + e, o.b + 2 * e);
  for (int e = 0; e < NE; e++)
    ti_scatter(in->w + e, in->k + e, o.n + en[2 * e], o.n + en[2 * e + 1], o.c + en[2 * e + 1],
               o.c + en[2 * e], &o.sum, &o.kmax);
  for (int c = 0; c < NC; c++) {
    const double *xv[4];
    double *rv[4];
    for (int j = 0; j < 4; j++) xv[j] = in->x + cn[4 * c + j], rv[j] = o.r + cn[4 * c + j];
    ti_cells(xv, rv);
  }
  rm_mesh_free(&m);
  return o;
}

/* exact: dats bit for bit. The double sum is a global reduction, which openmp forms from
 * per-thread partial sums whose share of the blocks varies from run to run in a planned loop:
 * only seq (exact_sum) promises the same bits. */
static void compare(const outcome *got, const outcome *want, int exact, int exact_sum,
                    const char *what) {
  rm_check_same(got->b, want->b, 2 * NE, sizeof *got->b, what); /* direct: always exact */
  rm_check_same(got->c, want->c, NN, sizeof *got->c, what);
  CHECK_EQ_INT(got->kmax, want->kmax);
  if (exact) {
    rm_check_same(got->n, want->n, NN, sizeof *got->n, what);
    rm_check_same(got->r, want->r, NN, sizeof *got->r, what);
  }
  if (exact_sum) CHECK(got->sum == want->sum);
  rm_check_near(got->n, want->n, NN, 1e-12, what);
  rm_check_near(got->r, want->r, NN, 1e-12, what);
  CHECK_NEAR(got->sum, want->sum, 1e-12);
}

static void free_outcome(outcome *o) {
  free(o->b), free(o->n), free(o->r), free(o->c);
}

int main(void) {
  const char *env = getenv("OP2_BACKEND");
  char first[32];
  snprintf(first, sizeof first, "%s", env ? env : "openmp");
  const char *second = strcmp(first, "seq") == 0 ? "openmp" : "seq";
  inputs in;
  make_inputs(&in);
  outcome want = plain_c(&in, 213);

  outcome run1 = run_program(&in, 213);
  /* seq in plain order adds as plain C does; renumbering changes the order */
  const char *renumber = getenv("OP2_RENUMBER");
  int plain = !(renumber && !strcmp(renumber, "on"));
  int first_seq = plain && strcmp(first, "seq") == 0, second_seq = plain && !first_seq;
  compare(&run1, &want, first_seq, first_seq, first);
  CHECK(setenv("OP2_BACKEND", second, 1) == 0);
  outcome run2 = run_program(&in, 213);
  compare(&run2, &want, second_seq, second_seq, second);
  compare(&run2, &run1, 0, 0, "second backend against the first");
  CHECK(setenv("OP2_BACKEND", first, 1) == 0);
  outcome run3 = run_program(&in, 213);
  compare(&run3, &run1, 1, first_seq, "first backend again");
  /* each context starts empty and obtains the program's kernels again */
  CHECK_EQ_INT(run1.kernels, 3);
  CHECK_EQ_INT(run2.kernels, 3);
  CHECK_EQ_INT(run3.kernels, 3);

  free_outcome(&want), free_outcome(&run1), free_outcome(&run2), free_outcome(&run3);
  free(in.a), free(in.b), free(in.w), free(in.k), free(in.x), free(in.n), free(in.r), free(in.c);
  return 0;
}
