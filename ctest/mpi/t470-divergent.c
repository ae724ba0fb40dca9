/* SPDX-License-Identifier: BSD-3-Clause */
/* Ranks that describe a loop differently must all get an error naming the loop before anything
 * runs, instead of running different code (or waiting forever in a collective that another rank
 * never reaches). Here a constant has a rank-dependent value: constants are baked into the
 * generated kernel. Then the same constant on every rank runs normally. Usage: t470-divergent */
#include "mpi_test.h"

KERNEL_TEXT(
    scale, static void scale(double *x) { x[0] = x[0] * factor + 1.0; })

int main(int argc, char **argv) {
  test_catch_errors();
  op_init(argc, argv, 0);
  CHECK(mt_size() >= 2);
  enum { N = 100 };
  mt_set nodes = mt_decl_set(MT_LOCAL, MT_SPLIT_SKEWED, N, "nodes");
  op_dat x = mt_decl_dat(&nodes, 1, "double", sizeof(double), NULL, "x");

  double factor = 2.0 + mt_rank();
  op_decl_const(1, "double", &factor, "factor");
  EXPECT_ERROR(
      op_par_loop(scale_src, "scale", nodes.set, op_arg_dat(x, -1, OP_ID, 1, "double", OP_RW)),
      "op_par_loop 'scale': ranks generated different kernel sources");
  double *got = mt_fetch_all(x, N, sizeof(double));
  for (int i = 0; i < N; i++) CHECK(got[i] == 0.0); /* nothing ran */
  free(got);

  factor = 3.0;
  op_decl_const(1, "double", &factor, "factor");
  op_par_loop(scale_src, "scale", nodes.set, op_arg_dat(x, -1, OP_ID, 1, "double", OP_RW));
  got = mt_fetch_all(x, N, sizeof(double));
  for (int i = 0; i < N; i++) CHECK(got[i] == 1.0);
  free(got);
  if (mt_rank() == 0)
    printf("t470 on %d ranks: divergent kernels refused on every rank\n", mt_size());
  op_exit();
  return 0;
}
