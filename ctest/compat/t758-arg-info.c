/* SPDX-License-Identifier: BSD-3-Clause */
/* op_arg_info(&loc, dim, type, ref), OP2's way to return where an OP_MIN or OP_MAX reduction
 * (argument `ref`) found its value (Airfoil's max err location): on every backend, with SIMD
 * groups and under MPI, `loc` is the value the kernel wrote for the element that holds the
 * extreme, the one OP2's sequential build returns; not the largest of the locations the parts
 * (threads, GPU blocks, ranks) found. Checked in a direct loop (a MAX and a MIN, int and long long
 * infos), in a loop over edges that adds through a map (run by plan, in colours; under MPI on the
 * exec halo too), with a dim-2 reduction whose components are found at different elements, and
 * where nothing beats the caller's starting value (loc keeps the caller's). Bad references are
 * refused, naming the loop and the argument. Every rank declares the whole mesh, so the test runs
 * with or without mpiexec. */
#include "loops/random_mesh.h"

enum { NN = 3000, NE = 7000 };

KERNEL(
    extremes, static void extremes(const double *v, const int *idx, double *mx, int *at, double *mn,
                                   long long *mn_at) {
      if (*v > *mx) {
        *mx = *v;
        *at = *idx;
      }
      if (*v < *mn) {
        *mn = *v;
        *mn_at = 1000000000000LL + *idx;
      }
    })

KERNEL(
    spread, static void spread(const double *a, const double *b, const double *w, const int *e,
                               double *acc, int *where, double *m) {
      *acc += *b;
      double d = *a - *b + *w, s = *a + *b - *w;
      if (d > m[0]) {
        m[0] = d;
        where[0] = *e;
      }
      if (s > m[1]) {
        m[1] = s;
        where[1] = 3 * *e;
      }
    })

static void refused(op_set nodes, op_dat dv) {
  double mx = 0, sum = 0, m2[2] = {0, 0};
  int at = 0, at2[2] = {0, 0};
  long long mn_at = 0;
  EXPECT_ERROR(
      op_par_loop(extremes_src, "extremes", nodes, op_arg_dat(dv, -1, OP_ID, 1, "double", OP_READ),
                  op_arg_idx(-1, OP_ID), op_arg_gbl(&mx, 1, "double", OP_MAX),
                  op_arg_info(&at, 1, "int", 9), op_arg_gbl(&mx, 1, "double", OP_MIN),
                  op_arg_info(&mn_at, 1, "long long", 4)),
      "op_par_loop 'extremes', argument 3: op_arg_info's reference 9 is not another "
      "argument of the loop (0..5)");
  EXPECT_ERROR(
      op_par_loop(extremes_src, "extremes", nodes, op_arg_dat(dv, -1, OP_ID, 1, "double", OP_READ),
                  op_arg_idx(-1, OP_ID), op_arg_gbl(&sum, 1, "double", OP_INC),
                  op_arg_info(&at, 1, "int", 2), op_arg_gbl(&mx, 1, "double", OP_MIN),
                  op_arg_info(&mn_at, 1, "long long", 4)),
      "argument 3: op_arg_info's reference 2 is not an op_arg_gbl with OP_MIN or OP_MAX "
      "(it is OP_INC)");
  EXPECT_ERROR(
      op_par_loop(extremes_src, "extremes", nodes, op_arg_dat(dv, -1, OP_ID, 1, "double", OP_READ),
                  op_arg_idx(-1, OP_ID), op_arg_gbl(m2, 1, "double", OP_MAX),
                  op_arg_info(at2, 2, "int", 2), op_arg_gbl(&mx, 1, "double", OP_MIN),
                  op_arg_info(&mn_at, 1, "long long", 0)),
      "argument 3: op_arg_info has dim 2, its reference 2 (OP_MAX) has dim 1");
}

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  test_catch_errors();
  unsigned rng = rm_rng(754);
  int *en = rm_map_values(NE, 2, NN, 100, &rng);
  double *v = rm_doubles(NN, -1, 1, &rng), *w = rm_alloc(sizeof(double) * NE);
  double *acc = rm_alloc(sizeof(double) * NN);
  for (int e = 0; e < NE; e++) w[e] = 1e-9 * e; /* no two edges tie */
  for (int n = 0; n < NN; n++) acc[n] = 0;
  op_set nodes = op_decl_set(NN, "nodes"), edges = op_decl_set(NE, "edges");
  op_map pedge = op_decl_map(edges, nodes, 2, en, "pedge");
  op_dat dv = op_decl_dat(nodes, 1, "double", v, "v");
  op_dat dw = op_decl_dat(edges, 1, "double", w, "w");
  op_dat dacc = op_decl_dat(nodes, 1, "double", acc, "acc");

  /* plain C, in element order: what OP2's sequential build returns */
  double want_mx = 0, want_mn = 0, want_m[2] = {-5, -5};
  int want_at = -7, want_where[2] = {-1, -1};
  long long want_mn_at = -8;
  for (int n = 0; n < NN; n++) extremes(v + n, &n, &want_mx, &want_at, &want_mn, &want_mn_at);
  for (int e = 0; e < NE; e++) {
    double scratch = 0;
    spread(v + en[2 * e], v + en[2 * e + 1], w + e, &e, &scratch, want_where, want_m);
  }
  CHECK(want_at >= 0 && want_mn_at >= 1000000000000LL && want_where[0] != want_where[1] / 3);

  for (int rep = 0; rep < 3; rep++) { /* later calls may run the optimised build */
    double mx = 0, mn = 0, m[2] = {-5, -5};
    int at = -7, where[2] = {-1, -1};
    long long mn_at = -8;
    op_par_loop(extremes_src, "extremes", nodes, op_arg_dat(dv, -1, OP_ID, 1, "double", OP_READ),
                op_arg_idx(-1, OP_ID), op_arg_gbl(&mx, 1, "double", OP_MAX),
                op_arg_info(&at, 1, "int", 2), op_arg_gbl(&mn, 1, "double", OP_MIN),
                op_arg_info(&mn_at, 1, "long long", 4));
    op_par_loop(spread_src, "spread", edges, op_arg_dat(dv, 0, pedge, 1, "double", OP_READ),
                op_arg_dat(dv, 1, pedge, 1, "double", OP_READ),
                op_arg_dat(dw, -1, OP_ID, 1, "double", OP_READ), op_arg_idx(-1, OP_ID),
                op_arg_dat(dacc, 0, pedge, 1, "double", OP_INC), op_arg_info(where, 2, "int", 6),
                op_arg_gbl(m, 2, "double", OP_MAX));
    CHECK(mx == want_mx && mn == want_mn && m[0] == want_m[0] && m[1] == want_m[1]);
    CHECK_EQ_INT(at, want_at);
    CHECK_EQ_INT(mn_at, want_mn_at);
    CHECK_EQ_INT(where[0], want_where[0]);
    CHECK_EQ_INT(where[1], want_where[1]);
  }

  /* nothing beats the caller's values: the infos keep the caller's */
  double mx = 2, mn = -2;
  int at = -7;
  long long mn_at = -8;
  op_par_loop(extremes_src, "extremes", nodes, op_arg_dat(dv, -1, OP_ID, 1, "double", OP_READ),
              op_arg_idx(-1, OP_ID), op_arg_gbl(&mx, 1, "double", OP_MAX),
              op_arg_info(&at, 1, "int", 2), op_arg_gbl(&mn, 1, "double", OP_MIN),
              op_arg_info(&mn_at, 1, "long long", 4));
  CHECK(mx == 2 && mn == -2);
  CHECK_EQ_INT(at, -7);
  CHECK_EQ_INT(mn_at, -8);

  refused(nodes, dv);
  printf("op_arg_info: the extreme's element, as in element order\n");
  op_exit();
  free(en), free(v), free(w), free(acc);
  return 0;
}
