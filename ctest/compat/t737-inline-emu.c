/* SPDX-License-Identifier: BSD-3-Clause */
/* OP2's kernels are C99 `inline` functions, which give no external definition: a call the
 * compiler does not inline needs one. The C backends declare the kernel extern after it; the
 * cuda-emu backend compiles its CUDA text as C with gcc -O2 too, and a kernel gcc chose not to
 * inline (aero's res_calc is large enough) failed to load with "undefined symbol". noinline
 * makes gcc's choice certain here, on every backend. */
#include "test.h"

static const char *scale_src =
    "inline __attribute__((noinline)) void scale(const double *x, double *y) {\n"
    "  y[0] = 3.0 * x[0] - 1.0;\n"
    "}\n";

int main(int argc, char **argv) {
  test_catch_errors();
  op_init(argc, argv, 0);
  enum { N = 100 };
  double x[N], y[N];
  for (int i = 0; i < N; i++) x[i] = i * 0.25;
  op_set s = op_decl_set(N, "s");
  op_dat dx = op_decl_dat(s, 1, "double", x, "x"), dy = op_decl_dat(s, 1, "double", NULL, "y");
  op_par_loop(scale_src, "scale", s, op_arg_dat(dx, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(dy, -1, OP_ID, 1, "double", OP_WRITE));
  op_fetch_data(dy, y);
  for (int i = 0; i < N; i++) CHECK(y[i] == 3.0 * x[i] - 1.0);
  op_exit();
  return 0;
}
