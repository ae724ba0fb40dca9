/* SPDX-License-Identifier: BSD-3-Clause */
/* The error record names the function that reported a failure (op2_error reports from its
 * caller's function); at OP2_DIAGS=2 the message ends with `[file:line (function)]`; at OP2_DIAGS=3
 * each caller that propagated the failure through OP2_CALL is added to the record, PETSc style
 * (#1 the reporter's caller, then outwards), and below 3 no trace is added. */
#include "errors_util.h"
#include "runtime/error.h"

static const char *twice_src = "static void twice(double *x) { x[0] *= 2.0; }\n";

static int checked_positive(int n) {
  if (n <= 0) return op2_error(OP2_ERR_ARG, "checked_positive: %d is not positive", n);
  return OP2_OK;
}

static int calls_checked(int n) {
  OP2_CALL(checked_positive(n));
  return OP2_OK;
}

static void bad_dim(op_set s, op_dat d) {
  EXPECT_ERROR(op_par_loop(twice_src, "twice", s, op_arg_dat(d, -1, OP_ID, 2, "double", OP_RW)),
               "dim 2 does not match dat 'x' of dim 1");
}

static void run_level(int argc, char **argv, const char *level) {
  char opt[32];
  snprintf(opt, sizeof opt, "OP2_DIAGS=%s", level);
  char *args[] = {argc > 0 ? argv[0] : "t314", opt, NULL};
  op_init(2, args, 0);
}

int main(int argc, char **argv) {
  test_catch_errors();
  double x[4] = {1, 2, 3, 4};

  /* A check: passes through when the condition holds, reports from its function otherwise. */
  run_level(argc, argv, "2");
  CHECK(checked_positive(3) == OP2_OK);
  int rc = OP2_OK;
  EXPECT_ERROR(rc = calls_checked(-1), "checked_positive: -1 is not positive");
  CHECK(rc == OP2_ERR_ARG);
  CHECK(strcmp(op2_last_error_function(), "checked_positive") == 0);
  CHECK_CONTAINS(op_last_error(), " [ctest/errors/t314-error-trace.c:");
  CHECK_CONTAINS(op_last_error(), " (checked_positive)]");
  CHECK(strstr(op_last_error(), "#1 ") == NULL); /* level 2: no trace */

  /* A failure deep in the library: the record names validate.c's function. */
  op_set s = op_decl_set(4, "cells");
  op_dat d = op_decl_dat(s, 1, "double", x, "x");
  bad_dim(s, d);
  CHECK(strcmp(op2_last_error_function(), "check_dat") == 0);
  CHECK_CONTAINS(op_last_error(), " [runtime/validate.c:");
  CHECK_CONTAINS(op_last_error(), " (check_dat)]");
  op_exit();

  /* Level 3: the chain of callers, innermost first. */
  run_level(argc, argv, "3");
  EXPECT_ERROR(calls_checked(-2), "checked_positive: -2 is not positive");
  CHECK_CONTAINS(op_last_error(), "\n  #1 calls_checked() at ctest/errors/t314-error-trace.c:");
  s = op_decl_set(4, "cells");
  d = op_decl_dat(s, 1, "double", x, "x");
  bad_dim(s, d);
  const char *e = op_last_error();
  CHECK_CONTAINS(e, " (check_dat)]\n  #1 op2_validate_loop() at runtime/validate.c:");
  CHECK_CONTAINS(e, "\n  #2 create_loop() at runtime/loop.c:");
  CHECK(strstr(e, "#1 calls_checked") == NULL); /* a new error starts a new trace */
  op_exit();

  /* Level 0: the message alone. */
  run_level(argc, argv, "0");
  EXPECT_ERROR(calls_checked(-3), "checked_positive: -3 is not positive");
  CHECK(strstr(op_last_error(), "#1 ") == NULL && strstr(op_last_error(), ".c:") == NULL);
  CHECK(strcmp(op2_last_error_function(), "checked_positive") == 0);
  op_exit();
  printf("t314: the reporting function in the record, its callers at OP2_DIAGS=3\n");
  return 0;
}
