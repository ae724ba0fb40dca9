/* SPDX-License-Identifier: BSD-3-Clause */
/* Life-cycle errors: every entry point that needs the library refuses to run before op_init and
 * says so; op_init twice is refused and leaves the first initialisation (and the objects declared
 * under it) working; op_exit followed by op_init gives a fresh, working library. */
#include "errors_util.h"

static const char *double_src = "static void twice(double *x) { x[0] *= 2.0; }\n";

static void print_diagnostics(void) {
  op_diagnostic_output();
}
static void print_timing(void) {
  op_timing_output();
}

static void before_init(void) {
  CHECK_EQ_INT(strlen(op_last_error()), 0); /* "" until something fails */
  op_set s;
  EXPECT_ERROR(s = op_decl_set(4, "nodes"), "op_decl_set called before op_init");
  CHECK(s == NULL);
  op_map m;
  const int v[] = {0};
  EXPECT_ERROR(m = op_decl_map(NULL, NULL, 1, v, "m"), "op_decl_map called before op_init");
  CHECK(m == NULL);
  op_dat d;
  EXPECT_ERROR(d = op_decl_dat(NULL, 1, "double", NULL, "d"), "op_decl_dat called before op_init");
  CHECK(d == NULL);
  double one = 1.0;
  EXPECT_ERROR(op_decl_const(1, "double", &one, "one"), "op_decl_const called before op_init");
  EXPECT_ERROR(op_par_loop(double_src, "twice", NULL, op_arg_gbl(&one, 1, "double", OP_READ)),
               "op_par_loop called before op_init");
  CHECK(one == 1.0);
  double out[1] = {42.0};
  EXPECT_ERROR(op_fetch_data(NULL, out), "called before op_init");
  EXPECT_ERROR(op_fetch_data_idx(NULL, out, 0, 0), "called before op_init");
  CHECK(out[0] == 42.0);
  EXPECT_ERROR(op_print_dat_to_txtfile(NULL, "never.txt"),
               "op_print_dat_to_txtfile called before op_init");
  CHECK(!eu_is_file("never.txt"));
  /* Nothing may be printed before the error either. */
  char *text;
  EXPECT_ERROR(text = eu_capture_stdout(print_diagnostics),
               "op_diagnostic_output called before op_init");
  CHECK_EQ_INT(strlen(text), 0);
  free(text);
  EXPECT_ERROR(text = eu_capture_stdout(print_timing), "op_timing_output called before op_init");
  CHECK_EQ_INT(strlen(text), 0);
  free(text);
}

static void check_doubling(op_set s, op_dat d, const double *before) {
  op_par_loop(double_src, "twice", s, op_arg_dat(d, -1, OP_ID, 1, "double", OP_RW));
  double got[4];
  op_fetch_data(d, got);
  for (int i = 0; i < 4; i++) CHECK_NEAR(got[i], 2.0 * before[i], 0);
}

int main(int argc, char **argv) {
  test_catch_errors(); /* allowed before op_init */
  before_init();

  op_init(argc, argv, 0);
  const double v[] = {1, 2, 3, 4};
  op_set s = op_decl_set(4, "nodes");
  op_dat d = op_decl_dat(s, 1, "double", v, "d");
  CHECK(s && d);
  EXPECT_ERROR(op_init(argc, argv, 0), "op_init called twice (call op_exit first)");
  /* The first initialisation stands: its objects and loops work. */
  check_doubling(s, d, v);

  /* op_exit is not an error even when repeated; afterwards op_init starts afresh. */
  op_exit();
  op_exit();
  /* The handler and the last message outlive op_exit (documented in op2.h). */
  CHECK_CONTAINS(op_last_error(), "op_init called twice");
  op_set none;
  EXPECT_ERROR(none = op_decl_set(1, "after_exit"), "op_decl_set called before op_init");
  CHECK(none == NULL);
  op_init(argc, argv, 0);
  s = op_decl_set(4, "nodes");
  d = op_decl_dat(s, 1, "double", v, "d");
  CHECK(s && d);
  check_doubling(s, d, v);
  op_exit();
  return 0;
}
