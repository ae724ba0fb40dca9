/* SPDX-License-Identifier: BSD-3-Clause */
/* op_opt_arg_gbl: switched on it is op_arg_gbl (a read and reductions); switched off the kernel
 * receives NULL and the caller's value is left as it was, for every reduction kind. */
#include "test.h"

enum { N = 2000 };

static const char *opt_src =
    "static void opt(const double *x, const double *scale, double *sum, double *lo, int *seen) {\n"
    "  double f = scale ? scale[0] : 1.0;\n"
    "  if (sum) *sum += f * x[0];\n"
    "  if (lo) *lo = MIN(*lo, x[0]);\n"
    "  *seen += (scale != 0) + 2 * (sum != 0) + 4 * (lo != 0);\n"
    "}\n";

static void run(op_set s, op_dat dx, int on, double *scale, double *sum, double *lo, int *seen) {
  op_par_loop(opt_src, "opt", s, op_arg_dat(dx, -1, OP_ID, 1, "double", OP_READ),
              op_opt_arg_gbl(on, scale, 1, "double", OP_READ),
              op_opt_arg_gbl(on, sum, 1, "double", OP_INC),
              op_opt_arg_gbl(on, lo, 1, "double", OP_MIN), op_arg_gbl(seen, 1, "int", OP_INC));
}

int main(int argc, char **argv) {
  test_catch_errors();
  op_init(argc, argv, 0);
  static double x[N];
  double want_sum = 0, want_lo = 1e300;
  for (int i = 0; i < N; i++) {
    x[i] = (double)((i * 37) % 101) - 50.0;
    want_sum += 3.0 * x[i];
    want_lo = x[i] < want_lo ? x[i] : want_lo;
  }
  op_set s = op_decl_set(N, "s");
  op_dat dx = op_decl_dat(s, 1, "double", x, "x");
  double scale = 3.0, sum = 0, lo = 1e300;
  int seen = 0;
  run(s, dx, 1, &scale, &sum, &lo, &seen);
  CHECK(sum == want_sum); /* integers: exact in any order */
  CHECK(lo == want_lo);
  CHECK_EQ_INT(seen, 7 * N);

  sum = 11.0, lo = 42.0, seen = 0;
  run(s, dx, 0, &scale, &sum, &lo, &seen);
  CHECK(sum == 11.0 && lo == 42.0 && scale == 3.0);
  CHECK_EQ_INT(seen, 0); /* every switched-off argument arrived as NULL */
  op_exit();
  return 0;
}
