/* SPDX-License-Identifier: BSD-3-Clause */
/* Compiler messages point at the kernel's own line and column. TinyCC reports an error at the end
 * of a line on the next line and gives no column, so a kernel that fails under TinyCC is checked
 * by the system compiler, whose messages are reported instead (kernel:NAME:LINE:COLUMN). Without
 * a system compiler (OP2_JIT=tcc) TinyCC's message is reported, still by kernel line. */
#include "errors_util.h"

/* Line 3, column 12: the error is at the end of the line. */
static const char *end_of_line_src =
    "static void eol(double *x) {\n"
    "  double y = x[0];\n"
    "  y = y +* ;\n"
    "  x[0] = y;\n"
    "}\n";
/* Line 2, column 20: a stray token in the middle of the line. */
static const char *mid_line_src =
    "static void mid(double *x) {\n"
    "  x[0] = x[0] * 2.0 ) + 1.0;\n"
    "}\n";
/* Line 3, column 10: an undeclared identifier. */
static const char *undeclared_src =
    "static void undecl(double *x) {\n"
    "  double y = 1.0;\n"
    "  x[0] = nowhere + y;\n"
    "}\n";
/* Line 2, column 10: a call to a function nobody declared. */
static const char *undeclared_call_src =
    "static void ucall(double *x) {\n"
    "  x[0] = helper_not_declared(x[0]);\n"
    "}\n";
/* Loop "absent" whose source defines only "present". */
static const char *missing_name_src = "static void present(double *x) { x[0] = 1.0; }\n";

static op_set s;
static op_dat d;

/* The compiler's log: what follows the "does not compile" line. */
static const char *compiler_log(void) {
  const char *nl = strchr(op_last_error(), '\n');
  CHECK(nl != NULL);
  return nl + 1;
}

static void expect_failure(const char *src, const char *name, const char *where) {
  char head[200];
  snprintf(head, sizeof head,
           "op_par_loop '%s': the kernel does not compile (generated source: ", name);
  EXPECT_ERROR(op_par_loop(src, name, s, op_arg_dat(d, -1, OP_ID, 1, "double", OP_RW)), head);
  CHECK_CONTAINS(compiler_log(), where);
}

int main(int argc, char **argv) {
  test_catch_errors();
  op_init(argc, argv, 0);
  const double v[3] = {1, 2, 3};
  s = op_decl_set(3, "s");
  d = op_decl_dat(s, 1, "double", v, "d");
  CHECK(s && d);
  const char *jit = getenv("OP2_JIT");
  if (!jit || strcmp(jit, "tcc") != 0) {
    expect_failure(end_of_line_src, "eol", "kernel:eol:3:12: error:");
    expect_failure(mid_line_src, "mid", "kernel:mid:2:20: error:");
    expect_failure(undeclared_src, "undecl", "kernel:undecl:3:10: error:");
    CHECK_CONTAINS(compiler_log(), "nowhere");
    expect_failure(undeclared_call_src, "ucall", "kernel:ucall:2:10: error:");
    CHECK_CONTAINS(compiler_log(), "helper_not_declared");
  } else {
    /* TinyCC alone: the end-of-line error is reported on the next line, without a column. */
    expect_failure(end_of_line_src, "eol", "kernel:eol:4: error:");
    expect_failure(mid_line_src, "mid", "kernel:mid:2: error:");
    expect_failure(undeclared_src, "undecl", "kernel:undecl:3: error:");
    CHECK_CONTAINS(compiler_log(), "nowhere");
    expect_failure(undeclared_call_src, "ucall", "helper_not_declared");
  }
  /* Found only when the kernel is loaded: the message says what is missing, in either case. */
  expect_failure(missing_name_src, "absent", "defines no function with the loop's name");
  double got[3];
  op_fetch_data(d, got);
  for (int i = 0; i < 3; i++) CHECK(got[i] == v[i]);
  op_exit();
  return 0;
}
