/* SPDX-License-Identifier: BSD-3-Clause */
/* Reuse: one kernel applied to different dats (and maps) of the same shape must take no new
 * kernel yet act on the data of each call, even when the calls alternate; and a loop called 50
 * times must give the same answer each time (an indirect double increment is repeatable because
 * the plan fixes the order in which each node receives its increments). */
#include "random_mesh.h"

enum { NE = 40000, NN = 10000, CALLS = 50 };

KERNEL(
    scale2, static void scale2(const double *s, double *v) {
      v[0] = v[0] * s[0] + 1.0;
      v[1] = v[1] - s[0];
    })

KERNEL_TEXT(
    zero, static void zero(double *n) { n[0] = 0.0; })

KERNEL(
    scatter, static void scatter(const double *w, double *n0, double *n1) {
      n0[0] += w[0];
      n1[0] += w[0] * w[0];
    })

KERNEL(
    sum_direct, static void sum_direct(const double *w, double *s) { *s += w[0]; })

static void run_scale(op_set set, op_dat s, op_dat v) {
  op_par_loop(scale2_src, "scale2", set, op_arg_dat(s, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(v, -1, OP_ID, 2, "double", OP_RW));
}

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  rm_mesh m;
  rm_mesh_make(&m, NE, NN, 1, RM_JUMPS, 209);
  unsigned rng = rm_rng(2091);
  const int *en = m.edge_nodes;

  /* one kernel, two dats, alternating */
  double *s = rm_doubles(NE, -2, 2, &rng);
  double *a = rm_doubles(2 * NE, -1, 1, &rng), *b = rm_doubles(2 * NE, -1, 1, &rng);
  double *got = rm_alloc(2 * NE * sizeof *got);
  op_dat ds = op_decl_dat(m.edges, 1, "double", s, "s");
  op_dat da = op_decl_dat(m.edges, 2, "double", a, "a");
  op_dat db = op_decl_dat(m.edges, 2, "double", b, "b");
  int k0 = rm_kernels_obtained();
  run_scale(m.edges, ds, da);
  int k1 = rm_kernels_obtained();
  CHECK_EQ_INT(k1, k0 + 1);
  for (int e = 0; e < NE; e++) scale2(s + e, a + 2 * e);
  run_scale(m.edges, ds, db);
  run_scale(m.edges, ds, db);
  run_scale(m.edges, ds, da);
  for (int e = 0; e < NE; e++) scale2(s + e, b + 2 * e), scale2(s + e, b + 2 * e);
  for (int e = 0; e < NE; e++) scale2(s + e, a + 2 * e);
  CHECK_EQ_INT(rm_kernels_obtained(), k1);
  op_fetch_data(da, got);
  rm_check_same(got, a, 2 * NE, sizeof *a, "scale2 a");
  op_fetch_data(db, got);
  rm_check_same(got, b, 2 * NE, sizeof *b, "scale2 b");

  /* one scatter kernel through two maps into two dats */
  unsigned rng2 = rm_rng(2092);
  int *en2 = rm_map_values(NE, 2, NN, RM_FULLY_RANDOM, &rng2);
  op_map pedge2 = op_decl_map(m.edges, m.nodes, 2, en2, "pedge2");
  double *w = rm_doubles(NE, 0.5, 1.5, &rng);
  op_dat dw = op_decl_dat(m.edges, 1, "double", w, "w");
  op_dat dn = op_decl_dat(m.nodes, 1, "double", NULL, "n");
  op_dat dn2 = op_decl_dat(m.nodes, 1, "double", NULL, "n2");
  double *n = rm_alloc(NN * sizeof *n), *n2 = rm_alloc(NN * sizeof *n2);
  double *first = rm_alloc(NN * sizeof *first), *first2 = rm_alloc(NN * sizeof *first2);
  double *ngot = rm_alloc(NN * sizeof *ngot);
  for (int e = 0; e < NE; e++) scatter(w + e, n + en[2 * e], n + en[2 * e + 1]);
  for (int e = 0; e < NE; e++) scatter(w + e, n2 + en2[2 * e], n2 + en2[2 * e + 1]);
  double sum_want = 0;
  for (int e = 0; e < NE; e++) sum_direct(w + e, &sum_want);

  int k2 = -1;
  double sum_first = 0;
  for (int call = 0; call < CALLS; call++) {
    op_par_loop(zero_src, "zero", m.nodes, op_arg_dat(dn, -1, OP_ID, 1, "double", OP_WRITE));
    op_par_loop(zero_src, "zero", m.nodes, op_arg_dat(dn2, -1, OP_ID, 1, "double", OP_WRITE));
    op_par_loop(scatter_src, "scatter", m.edges, op_arg_dat(dw, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(dn, 0, m.pedge, 1, "double", OP_INC),
                op_arg_dat(dn, 1, m.pedge, 1, "double", OP_INC));
    op_par_loop(scatter_src, "scatter", m.edges, op_arg_dat(dw, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(dn2, 0, pedge2, 1, "double", OP_INC),
                op_arg_dat(dn2, 1, pedge2, 1, "double", OP_INC));
    double sum = 0;
    op_par_loop(sum_direct_src, "sum_direct", m.edges,
                op_arg_dat(dw, -1, OP_ID, 1, "double", OP_READ),
                op_arg_gbl(&sum, 1, "double", OP_INC));
    if (call == 0) {
      k2 = rm_kernels_obtained();
      CHECK_EQ_INT(k2, k1 + 3); /* zero, scatter, sum_direct: one kernel each */
      op_fetch_data(dn, first);
      op_fetch_data(dn2, first2);
      if (rm_plain_order()) rm_check_same(first, n, NN, sizeof *n, "scatter");
      rm_check_near(first, n, NN, 1e-12, "scatter");
      rm_check_near(first2, n2, NN, 1e-12, "scatter through pedge2");
      CHECK_NEAR(sum, sum_want, 1e-12);
      sum_first = sum;
      continue;
    }
    op_fetch_data(dn, ngot);
    rm_check_same(ngot, first, NN, sizeof *n, "scatter, repeated");
    op_fetch_data(dn2, ngot);
    rm_check_same(ngot, first2, NN, sizeof *n, "scatter through pedge2, repeated");
    /* a direct loop splits the set the same way every call */
    CHECK(sum == sum_first);
  }
  CHECK_EQ_INT(rm_kernels_obtained(), k2);

  free(s), free(a), free(b), free(got), free(en2), free(w), free(n), free(n2), free(first);
  free(first2), free(ngot);
  rm_mesh_free(&m);
  op_exit();
  return 0;
}
