/* Names that would break the generated code are refused up front, naming the problem. */
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
  op_exit();
  return 0;
}
