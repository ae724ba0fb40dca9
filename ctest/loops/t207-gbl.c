/* SPDX-License-Identifier: BSD-3-Clause */
/* op_arg_gbl: READ (a dim-3 array and an int), INC (double, int, long long; dims 1 and 2), MIN
 * and MAX (double, int, float). Each reduction starts from the caller's value: an INC adds to it,
 * a MIN whose start is below every element keeps it. Integer, MIN and MAX results must be exact;
 * double sums within 1e-12 relative (openmp adds per-thread partial sums). Reductions run in a
 * direct loop, in a planned loop (beside an indirect increment), on the same loop shape with new
 * global buffers each call, and over an empty set. */
#include <float.h>
#include <limits.h>

#include "random_mesh.h"

enum { NE = 40000, NN = 10000 };

KERNEL(
    gbl_read, static void gbl_read(const double *g, const int *s, const double *x, double *y) {
      y[0] = g[0] * x[0] + g[1] * x[1] + g[2] + (double)s[0];
    })

/* Every reduction in one kernel, fed by direct data (v) and data read through a map (u). */
KERNEL(
    gbl_reduce,
    static void gbl_reduce(const double *v, const int *iv, const double *u, double *sum1,
                           double *sum2, int *isum1, int *isum2, long long *lsum, double *dmin,
                           double *dmax, int *imin, int *imax, float *fmax, double *keep_min) {
      double d = v[0] + u[0];
      *sum1 += d;
      sum2[0] += v[0];
      sum2[1] += fabs(u[0]);
      *isum1 += iv[0];
      isum2[0] += 1;
      isum2[1] -= iv[0];
      *lsum += (long long)iv[0] * 1000003LL;
      *dmin = MIN(*dmin, d);
      *dmax = MAX(*dmax, d);
      *imin = MIN(*imin, iv[0]);
      *imax = MAX(*imax, iv[0]);
      *fmax = MAX(*fmax, (float)v[0]);
      *keep_min = MIN(*keep_min, v[0]);
    })

/* The same reductions in a loop that also scatters into nodes, so it runs by plan. */
KERNEL(
    gbl_reduce_planned,
    static void gbl_reduce_planned(const double *v, const int *iv, const double *u, double *n0,
                                   double *n1, double *sum1, int *isum1, double *dmin, int *imax) {
      n0[0] += v[0];
      n1[0] += u[0];
      *sum1 += v[0] * u[0];
      *isum1 += iv[0];
      *dmin = MIN(*dmin, v[0] - u[0]);
      *imax = MAX(*imax, iv[0]);
    })

typedef struct results {
  double sum1, sum2[2];
  int isum1, isum2[2];
  long long lsum;
  double dmin, dmax;
  int imin, imax;
  float fmax;
  double keep_min;
} results;

static results start_values(void) {
  results r = {.sum1 = 100.0,
               .sum2 = {-7.0, 1.0},
               .isum1 = 11,
               .isum2 = {5, -5},
               .lsum = -1,
               .dmin = DBL_MAX,
               .dmax = -DBL_MAX,
               .imin = INT_MAX,
               .imax = INT_MIN,
               .fmax = -FLT_MAX,
               .keep_min = -1e6}; /* below every element: must survive */
  return r;
}

static void run_reduce(op_set set, op_map map, op_dat v, op_dat iv, op_dat u, results *r) {
  op_par_loop(
      gbl_reduce_src, "gbl_reduce", set, op_arg_dat(v, -1, OP_ID, 1, "double", OP_READ),
      op_arg_dat(iv, -1, OP_ID, 1, "int", OP_READ), op_arg_dat(u, 1, map, 1, "double", OP_READ),
      op_arg_gbl(&r->sum1, 1, "double", OP_INC), op_arg_gbl(r->sum2, 2, "double", OP_INC),
      op_arg_gbl(&r->isum1, 1, "int", OP_INC), op_arg_gbl(r->isum2, 2, "int", OP_INC),
      op_arg_gbl(&r->lsum, 1, "long long", OP_INC), op_arg_gbl(&r->dmin, 1, "double", OP_MIN),
      op_arg_gbl(&r->dmax, 1, "double", OP_MAX), op_arg_gbl(&r->imin, 1, "int", OP_MIN),
      op_arg_gbl(&r->imax, 1, "int", OP_MAX), op_arg_gbl(&r->fmax, 1, "float", OP_MAX),
      op_arg_gbl(&r->keep_min, 1, "double", OP_MIN));
}

/* Field by field: the struct has padding, so memcmp would compare garbage. */
static void compare(const results *got, const results *want, int exact) {
  if (exact) {
    CHECK(got->sum1 == want->sum1);
    CHECK(got->sum2[0] == want->sum2[0] && got->sum2[1] == want->sum2[1]);
  }
  CHECK_NEAR(got->sum1, want->sum1, 1e-12);
  CHECK_NEAR(got->sum2[0], want->sum2[0], 1e-12);
  CHECK_NEAR(got->sum2[1], want->sum2[1], 1e-12);
  CHECK_EQ_INT(got->isum1, want->isum1);
  CHECK_EQ_INT(got->isum2[0], want->isum2[0]);
  CHECK_EQ_INT(got->isum2[1], want->isum2[1]);
  CHECK_EQ_INT(got->lsum, want->lsum);
  CHECK(got->dmin == want->dmin);
  CHECK(got->dmax == want->dmax);
  CHECK_EQ_INT(got->imin, want->imin);
  CHECK_EQ_INT(got->imax, want->imax);
  CHECK(got->fmax == want->fmax);
  CHECK(got->keep_min == want->keep_min);
}

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  rm_mesh m;
  rm_mesh_make(&m, NE, NN, 1, RM_JUMPS, 207);
  unsigned rng = rm_rng(2071);
  const int *en = m.edge_nodes;
  double *v = rm_doubles(NE, -1, 3, &rng), *u = rm_doubles(NN, 0.5, 1.5, &rng);
  int *iv = rm_ints(NE, -30000, 30000, &rng);
  op_dat dv = op_decl_dat(m.edges, 1, "double", v, "v");
  op_dat div = op_decl_dat(m.edges, 1, "int", iv, "iv");
  op_dat du = op_decl_dat(m.nodes, 1, "double", u, "u");

  /* READ: every element sees the same dim-3 array and scalar */
  double g[3] = {0.25, -1.5, 3.0};
  int s = -17;
  double *x = rm_doubles(2 * NE, -1, 1, &rng), *y = rm_alloc(NE * sizeof *y);
  double *ygot = rm_alloc(NE * sizeof *ygot);
  op_dat dx = op_decl_dat(m.edges, 2, "double", x, "x");
  op_dat dy = op_decl_dat(m.edges, 1, "double", NULL, "y");
  op_par_loop(gbl_read_src, "gbl_read", m.edges, op_arg_gbl(g, 3, "double", OP_READ),
              op_arg_gbl(&s, 1, "int", OP_READ), op_arg_dat(dx, -1, OP_ID, 2, "double", OP_READ),
              op_arg_dat(dy, -1, OP_ID, 1, "double", OP_WRITE));
  for (int e = 0; e < NE; e++) gbl_read(g, &s, x + 2 * e, y + e);
  op_fetch_data(dy, ygot);
  rm_check_same(ygot, y, NE, sizeof *y, "gbl_read");
  CHECK(g[0] == 0.25 && g[1] == -1.5 && g[2] == 3.0 && s == -17); /* READ leaves them alone */

  /* all reductions, three calls of one loop shape, each into fresh buffers */
  for (int call = 0; call < 3; call++) {
    results got = start_values(), want = start_values();
    if (call == 2) got.keep_min = want.keep_min = 1e6; /* now above every element */
    run_reduce(m.edges, m.pedge, dv, div, du, &got);
    for (int e = 0; e < NE; e++)
      gbl_reduce(v + e, iv + e, u + en[2 * e + 1], &want.sum1, want.sum2, &want.isum1, want.isum2,
                 &want.lsum, &want.dmin, &want.dmax, &want.imin, &want.imax, &want.fmax,
                 &want.keep_min);
    compare(&got, &want, rm_plain_order()); /* seq adds in plain C's order */
    CHECK(got.keep_min == (call == 2 ? want.keep_min : -1e6));
  }

  /* reductions in a planned loop */
  double *n = rm_doubles(NN, 0, 1, &rng), *ngot = rm_alloc(NN * sizeof *ngot);
  op_dat dn = op_decl_dat(m.nodes, 1, "double", n, "n");
  double sum1 = 1.0, dmin = 0.0, want_sum1 = 1.0, want_dmin = 0.0; /* 0 is not the minimum */
  int isum1 = 0, imax = 29999, want_isum1 = 0, want_imax = 29999;  /* no element exceeds it */
  op_par_loop(gbl_reduce_planned_src, "gbl_reduce_planned", m.edges,
              op_arg_dat(dv, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(div, -1, OP_ID, 1, "int", OP_READ),
              op_arg_dat(du, 0, m.pedge, 1, "double", OP_READ),
              op_arg_dat(dn, 0, m.pedge, 1, "double", OP_INC),
              op_arg_dat(dn, 1, m.pedge, 1, "double", OP_INC),
              op_arg_gbl(&sum1, 1, "double", OP_INC), op_arg_gbl(&isum1, 1, "int", OP_INC),
              op_arg_gbl(&dmin, 1, "double", OP_MIN), op_arg_gbl(&imax, 1, "int", OP_MAX));
  for (int e = 0; e < NE; e++)
    gbl_reduce_planned(v + e, iv + e, u + en[2 * e], n + en[2 * e], n + en[2 * e + 1], &want_sum1,
                       &want_isum1, &want_dmin, &want_imax);
  CHECK_NEAR(sum1, want_sum1, 1e-12);
  CHECK_EQ_INT(isum1, want_isum1);
  CHECK(dmin == want_dmin && dmin < 0);
  CHECK_EQ_INT(imax, want_imax);
  op_fetch_data(dn, ngot);
  if (rm_plain_order())
    rm_check_same(ngot, n, NN, sizeof *n, "gbl_reduce_planned n");
  else
    rm_check_near(ngot, n, NN, 1e-12, "gbl_reduce_planned n");

  /* an empty set: nothing runs, every global keeps its start value */
  op_set none = op_decl_set(0, "none");
  op_map pnone = op_decl_map(none, m.nodes, 2, NULL, "pnone");
  op_dat nv = op_decl_dat(none, 1, "double", NULL, "nv");
  op_dat niv = op_decl_dat(none, 1, "int", NULL, "niv");
  results got = start_values(), want = start_values();
  run_reduce(none, pnone, nv, niv, du, &got);
  compare(&got, &want, 1);

  free(v), free(u), free(iv), free(x), free(y), free(ygot), free(n), free(ngot);
  rm_mesh_free(&m);
  op_exit();
  return 0;
}
