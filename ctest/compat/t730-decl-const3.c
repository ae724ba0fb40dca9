/* SPDX-License-Identifier: BSD-3-Clause */
/* op_decl_const(dim, type, &var), OP2's three-argument form: the constant takes the variable's
 * name, as OP2's translator gives it (a scalar by address, an array by name, an element 0
 * address); the four-argument form still works beside it; a third argument that names no
 * variable is refused with a message that says what to do. */
#include "test.h"

static const char *use_src =
    "static void use(const double *x, double *y) {\n"
    "  y[0] = gam * x[0] + qinf[2] - (double)nsteps + eps4;\n"
    "}\n";

int main(int argc, char **argv) {
  test_catch_errors();
  op_init(argc, argv, 0);
  double gam = 1.4, qinf[4] = {1, 2, 3.5, 4}, eps = 0.25;
  int nsteps = 3;
  op_decl_const(1, "double", &gam);
  op_decl_const(4, "double", qinf);
  op_decl_const(1, "int", (&nsteps));
  op_decl_const(1, "double", &eps, "eps4"); /* the four-argument form, beside it */
  double x[5] = {0, 1, -2, 3.5, 10}, y[5];
  op_set s = op_decl_set(5, "s");
  op_dat dx = op_decl_dat(s, 1, "double", x, "x"), dy = op_decl_dat(s, 1, "double", NULL, "y");
  op_par_loop(use_src, "use", s, op_arg_dat(dx, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(dy, -1, OP_ID, 1, "double", OP_WRITE));
  op_fetch_data(dy, y);
  for (int i = 0; i < 5; i++) CHECK(y[i] == gam * x[i] + qinf[2] - (double)nsteps + eps);

  /* a new value through the three-argument form reaches the kernel */
  gam = 2.0;
  op_decl_const(1, "double", &gam);
  op_par_loop(use_src, "use", s, op_arg_dat(dx, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(dy, -1, OP_ID, 1, "double", OP_WRITE));
  op_fetch_data(dy, y);
  for (int i = 0; i < 5; i++) CHECK(y[i] == 2.0 * x[i] + qinf[2] - (double)nsteps + eps);

  struct {
    double a;
  } box = {1};
  EXPECT_ERROR(op_decl_const(1, "double", &box.a), "cannot take a constant name from '&box.a'");
  CHECK_CONTAINS(op_last_error(), "give the name as a fourth argument");
  EXPECT_ERROR(op_decl_const(1, "double", qinf + 1), "cannot take a constant name from");
  op_exit();
  return 0;
}
