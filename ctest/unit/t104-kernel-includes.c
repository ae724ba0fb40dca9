/* SPDX-License-Identifier: BSD-3-Clause */
/* A kernel may include <math.h> itself: the prelude's own declarations must agree with it, under
 * TinyCC and the system compiler alike. */
#include <stdlib.h>

#include "test.h"

static const char *k =
    "#include <math.h>\n"
    "void f(double *x) { x[0] = isnan(x[0]) ? -1.0 : sqrt(x[0]) + M_PI + fmin(x[0], 1.0); }\n";

int main(int argc, char **argv) {
  const char *tiers[] = {"tcc", "cc"};
  for (int t = 0; t < 2; t++) {
    setenv("OP2_JIT", tiers[t], 1);
    op_init(argc, argv, 0);
    op_set s = op_decl_set(3, "s");
    double d[3] = {4, 9, NAN};
    op_dat x = op_decl_dat(s, 1, "double", d, "x");
    op_par_loop(k, "f", s, op_arg_dat(x, -1, OP_ID, 1, "double", OP_RW));
    op_fetch_data(x, d);
    CHECK_NEAR(d[0], 2.0 + M_PI + 1.0, 1e-15);
    CHECK_NEAR(d[1], 3.0 + M_PI + 1.0, 1e-15);
    CHECK_EQ_INT(d[2] == -1.0, 1);
    op_exit();
  }
  return 0;
}
