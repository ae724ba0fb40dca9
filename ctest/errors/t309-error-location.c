/* SPDX-License-Identifier: BSD-3-Clause */
/* The one error rule: the function that detects a failure reports it once, and at OP2_DIAGS=2
 * the message ends with the file and line that reported it; below that level no location is
 * shown. A failure deep inside (an argument whose dim does not match its dat) gives exactly one
 * report, from validate.c, not one per layer it passes through. OP2_FAULT, a testing aid, refuses
 * a value that is not STEP:RANK by naming the option. */
#include "errors_util.h"

static const char *twice_src = "static void twice(double *x) { x[0] *= 2.0; }\n";

static void bad_dim(op_set s, op_dat d) {
  EXPECT_ERROR(op_par_loop(twice_src, "twice", s, op_arg_dat(d, -1, OP_ID, 2, "double", OP_RW)),
               "dim 2 does not match dat 'x' of dim 1");
}

int main(int argc, char **argv) {
  test_catch_errors();
  /* Level 2: the location, relative to the source tree. */
  char *args2[] = {argv[0], "OP2_DIAGS=2", NULL};
  op_init(2, args2, 0);
  op_set s = op_decl_set(4, "cells");
  double x[4] = {1, 2, 3, 4};
  op_dat d = op_decl_dat(s, 1, "double", x, "x");
  bad_dim(s, d);
  CHECK_CONTAINS(op_last_error(), " [runtime/validate.c:");
  CHECK(strstr(op_last_error(), "../") == NULL);
  op_exit();

  /* Level 0: the message alone. */
  op_init(argc, argv, 0);
  s = op_decl_set(4, "cells");
  d = op_decl_dat(s, 1, "double", x, "x");
  bad_dim(s, d);
  CHECK(strstr(op_last_error(), ".c:") == NULL);
  op_exit();

  char *fault[] = {argv[0], "OP2_FAULT=exchange", NULL};
  EXPECT_ERROR(op_init(2, fault, 0), "option OP2_FAULT=exchange: expected STEP:RANK");
  char *fault_step[] = {argv[0], "OP2_FAULT=compile:0", NULL};
  EXPECT_ERROR(op_init(2, fault_step, 0), "option OP2_FAULT=compile:0: expected STEP:RANK");
  printf("t309: one report per failure, located at OP2_DIAGS=2\n");
  return 0;
}
