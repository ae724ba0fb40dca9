/* SPDX-License-Identifier: BSD-3-Clause */
/* Names that would break the generated code are refused up front, naming the problem; OP2's own
 * op2_stride (declared by OP2's aero programs) is a constant like any other. */
#include "test.h"

static const char *k = "void op2_loop(double *x) { x[0] = 1; }\n";

int main(int argc, char **argv) {
  test_catch_errors();
  op_init(argc, argv, 0);
  double one = 1;
  EXPECT_ERROR(op_decl_const(1, "double", &one, "int"),
               "op_decl_const 'int': the name is reserved");
  EXPECT_ERROR(op_decl_const(1, "double", &one, "op2_scale"), "the name is reserved");
  EXPECT_ERROR(op_decl_const(1, "double", &one, "MAX"), "the name is reserved");
  op_set s = op_decl_set(3, "s");
  op_dat d = op_decl_dat(s, 1, "double", NULL, "d");
  EXPECT_ERROR(op_par_loop(k, "op2_loop", s, op_arg_dat(d, -1, OP_ID, 1, "double", OP_WRITE)),
               "op_par_loop 'op2_loop': the loop name is reserved");
  EXPECT_ERROR(op_par_loop(k, "while", s, op_arg_dat(d, -1, OP_ID, 1, "double", OP_WRITE)),
               "the loop name is reserved");
  /* A near miss is fine. */
  op_decl_const(1, "double", &one, "int_scale");
  int op2_stride = 3;
  op_decl_const(1, "int", &op2_stride);
  CHECK(strstr(op_last_error(), "op2_stride") == NULL);
  op_par_loop("void strided(double *x) { x[0] = op2_stride; }\n", "strided", s,
              op_arg_dat(d, -1, OP_ID, 1, "double", OP_WRITE));
  double got[3];
  op_fetch_data(d, got);
  CHECK(got[0] == 3 && got[2] == 3);
  op_exit();
  return 0;
}
