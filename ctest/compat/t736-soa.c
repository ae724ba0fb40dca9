/* SPDX-License-Identifier: BSD-3-Clause */
/* OP2's struct-of-arrays spelling: a dat declared "double:soa" and passed as "double:soa" (or as
 * plain "double") is a double dat, and kernels index it with OP2_STRIDE(arr, i), as OP2's aero
 * does with its 16-entry stiffness matrices. The values keep the element-by-element layout, so
 * op_fetch_data returns them in OP2's order whatever the suffix. A ":soa" that is not a suffix of
 * a known type is still refused. */
#include "test.h"

static const char *fill_src =
    "static void fill(const double *x, double *k) {\n"
    "  for (int j = 0; j < 4; j++) OP2_STRIDE(k, j) = x[0] * (j + 1);\n"
    "}\n";
static const char *sum_src =
    "static void sum(const double *k, double *s) {\n"
    "  for (int j = 0; j < 4; j++) *s += OP2_STRIDE(k, j);\n"
    "}\n";

int main(int argc, char **argv) {
  test_catch_errors();
  op_init(argc, argv, 0);
  enum { N = 300 };
  double x[N], k[4 * N];
  for (int i = 0; i < N; i++) x[i] = 0.5 * i - 7;
  op_set s = op_decl_set(N, "s");
  op_dat dx = op_decl_dat(s, 1, "double", x, "x");
  op_dat dk = op_decl_dat(s, 4, "double:soa", NULL, "k");
  op_par_loop(fill_src, "fill", s, op_arg_dat(dx, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(dk, -1, OP_ID, 4, "double:soa", OP_WRITE));
  op_fetch_data(dk, k);
  double want = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < 4; j++) {
      CHECK(k[4 * i + j] == x[i] * (j + 1));
      want += x[i] * (j + 1);
    }
  double total = 0;
  op_par_loop(sum_src, "sum", s, op_arg_dat(dk, -1, OP_ID, 4, "double", OP_READ),
              op_arg_gbl(&total, 1, "double", OP_INC));
  CHECK_NEAR(total, want, 1e-9);

  EXPECT_ERROR(op_decl_dat(s, 1, "double:aos", NULL, "bad1"), "unknown type 'double:aos'");
  EXPECT_ERROR(op_decl_dat(s, 1, ":soa", NULL, "bad2"), "unknown type ':soa'");
  EXPECT_ERROR(op_par_loop(sum_src, "sum", s, op_arg_dat(dk, -1, OP_ID, 4, "float:soa", OP_READ),
                           op_arg_gbl(&total, 1, "double", OP_INC)),
               "sum");
  op_exit();
  return 0;
}
