/* SPDX-License-Identifier: BSD-3-Clause */
/* Kernel parameters are compared with the loop's arguments before the first run: count, element
 * type and pointer depth. A mismatch is an error naming the loop, the argument and the parameter,
 * and nothing runs; a declaration the check cannot read (a typedef) is not refused. */
#include "errors_util.h"

/* Built with OP2_TEST_AT_CALL (t311-kernel-params-at-call): a mismatch, found from the kernel's
 * text and the arguments alone, must be reported before the call returns, lazy execution on
 * or off. A kernel that does not compile is found when it is built (queued: when it runs). */
#ifdef OP2_TEST_AT_CALL
#define EXPECT_MISMATCH EXPECT_ERROR_AT_CALL
#else
#define EXPECT_MISMATCH EXPECT_ERROR
#endif

int main(int argc, char **argv) {
  test_catch_errors();
  op_init(argc, argv, 0);
  op_set s = op_decl_set(3, "s");
  op_set nodes = op_decl_set(2, "nodes");
  const double v[3] = {1, 2, 3};
  const int m[6] = {0, 1, 1, 0, 0, 1};
  op_dat d = op_decl_dat(s, 1, "double", v, "d");
  op_dat e = op_decl_dat(s, 1, "double", v, "e");
  op_dat n = op_decl_dat(nodes, 1, "double", v, "n");
  op_map pair = op_decl_map(s, nodes, 2, m, "pair");
  CHECK(s && d && e && n && pair);

  /* The case: an int parameter for a double dat. */
  EXPECT_MISMATCH(
      op_par_loop("void typed(const int *a, double *b) { b[0] = a[0]; }\n", "typed", s,
                  op_arg_dat(d, -1, OP_ID, 1, "double", OP_READ),
                  op_arg_dat(e, -1, OP_ID, 1, "double", OP_WRITE)),
      "op_par_loop 'typed', argument 0 (counting from 0): the kernel's parameter 0 'a' is "
      "declared int * but the argument (op_arg_dat) passes double *");
  EXPECT_MISMATCH(
      op_par_loop("void few(double *b) { b[0] = 1; }\n", "few", s,
                  op_arg_dat(d, -1, OP_ID, 1, "double", OP_READ),
                  op_arg_dat(e, -1, OP_ID, 1, "double", OP_WRITE)),
      "op_par_loop 'few': the kernel 'few' has 1 parameter but the loop passes 2 arguments");
  /* A vector map argument is a pointer to pointers. */
  EXPECT_MISMATCH(
      op_par_loop("void vec(double *x, double *b) { b[0] = x[0]; }\n", "vec", s,
                  op_arg_dat(n, -2, pair, 1, "double", OP_READ),
                  op_arg_dat(e, -1, OP_ID, 1, "double", OP_WRITE)),
      "argument 0 (counting from 0): the kernel's parameter 0 'x' is declared double * but "
      "the argument (op_arg_dat with a vector map index) passes double **");
  EXPECT_MISMATCH(
      op_par_loop("void ix(double *i, double *b) { b[0] = i[0]; }\n", "ix", s,
                  op_arg_idx(-1, OP_ID), op_arg_dat(e, -1, OP_ID, 1, "double", OP_WRITE)),
      "argument 0 (counting from 0): the kernel's parameter 0 'i' is declared double * but "
      "the argument (op_arg_idx) passes int *");
  double got[3];
  op_fetch_data(e, got);
  for (int i = 0; i < 3; i++) CHECK(got[i] == v[i]);

  /* Correct kernels run: vector, idx, and a typedef the check cannot read. */
  op_par_loop("void vok(const double **x, double *b) { b[0] = x[0][0] + x[1][0]; }\n", "vok", s,
              op_arg_dat(n, -2, pair, 1, "double", OP_READ),
              op_arg_dat(e, -1, OP_ID, 1, "double", OP_WRITE));
  op_fetch_data(e, got);
  CHECK(got[0] == 3 && got[1] == 3 && got[2] == 3);
  op_par_loop("typedef double real;\nvoid td(const real *a, real *b) { b[0] = a[0]; }\n", "td", s,
              op_arg_dat(d, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(e, -1, OP_ID, 1, "double", OP_WRITE));
  op_fetch_data(e, got);
  for (int i = 0; i < 3; i++) CHECK(got[i] == v[i]);
  /* Read-only data is passed as const: a write through a const parameter fails at its line, and
   * a non-const parameter for read-only data still compiles and runs (with a warning). */
  EXPECT_ERROR(
      op_par_loop("void wc(const double *a, double *b) {\n  b[0] = a[0];\n  a[0] = 2;\n}\n", "wc",
                  s, op_arg_dat(d, -1, OP_ID, 1, "double", OP_READ),
                  op_arg_dat(e, -1, OP_ID, 1, "double", OP_WRITE)),
      "op_par_loop 'wc': the kernel does not compile");
  CHECK_CONTAINS(strchr(op_last_error(), '\n'), "kernel:wc:3:");
  op_par_loop("void nc(double *a, double *b) { b[0] = 2 * a[0]; }\n", "nc", s,
              op_arg_dat(d, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(e, -1, OP_ID, 1, "double", OP_WRITE));
  op_fetch_data(e, got);
  for (int i = 0; i < 3; i++) CHECK(got[i] == 2 * v[i]);
  op_exit();
  return 0;
}
