/* SPDX-License-Identifier: BSD-3-Clause */
/* Errors in the user's kernel source. The message must name the loop, say that the kernel does
 * not compile, give the path of the generated source (which must exist and hold the kernel) and
 * point at the user's own line as kernel:NAME:LINE:. Checked with the disk cache on, off and
 * read-only; after each failure the dat is unchanged and the corrected kernel runs. */
#include "errors_util.h"

/* Line 3 has the syntax error. */
static const char *syntax_src =
    "static void broken(double *x) {\n"
    "  double y = 1.0;\n"
    "  x[0] = (y + 1.0;\n"
    "}\n";
static const char *fixed_src =
    "static void broken(double *x) {\n"
    "  double y = 1.0;\n"
    "  x[0] = (y + x[0]);\n"
    "}\n";
/* Uses a constant, whose declaration the generator puts before the kernel; the error is on the
 * kernel's line 2 all the same. */
static const char *const_src =
    "static void scaled(double *x) {\n"
    "  x[0] = scale * undeclared_thing;\n"
    "}\n";
/* Loop "foo" whose kernel defines only "bar". */
static const char *wrong_name_src = "static void bar(double *x) { x[0] = -5.0; }\n";
/* Compiles, but calls a function nobody defines. */
static const char *undefined_call_src =
    "static void undef(double *x) { x[0] = missing_helper(x[0]); }\n";

static op_set s;
static op_dat d;
static double expect_d[3] = {1, 2, 3};

static void check_d(int line) {
  double got[3];
  op_fetch_data(d, got);
  for (int i = 0; i < 3; i++) {
    if (got[i] != expect_d[i]) {
      fprintf(stderr, "line %d: d[%d] is %g, expected %g\n", line, i, got[i], expect_d[i]);
      exit(1);
    }
  }
}

/* The generated source path from the last error message (malloc'ed), checked to exist, to hold
 * `kernel_text`, and not to lie under `forbidden` (the cache, when it must not be written). */
static char *check_source_path(const char *kernel_text, const char *forbidden) {
  const char *msg = op_last_error();
  const char *tag = "(generated source: ";
  const char *p = strstr(msg, tag);
  CHECK(p != NULL);
  p += strlen(tag);
  const char *end = strstr(p, ")\n");
  CHECK(end != NULL && end > p);
  char *path = strndup(p, (size_t)(end - p));
  CHECK(path != NULL);
  if (forbidden && strncmp(path, forbidden, strlen(forbidden)) == 0) {
    fprintf(stderr, "generated source %s was written into %s\n", path, forbidden);
    exit(1);
  }
  if (!eu_is_file(path)) {
    fprintf(stderr, "generated source %s named in the error does not exist\n", path);
    exit(1);
  }
  char *text = eu_read_file(path);
  CHECK_CONTAINS(text, kernel_text);
  free(text);
  return path;
}

/* The user's line, after the "does not compile" line: the compiler's log. */
static const char *compiler_log(void) {
  const char *nl = strchr(op_last_error(), '\n');
  CHECK(nl != NULL);
  return nl + 1;
}

static void run_cases(const char *forbidden) {
  const double v[3] = {1, 2, 3};
  s = op_decl_set(3, "s");
  d = op_decl_dat(s, 1, "double", v, "d");
  CHECK(s && d);
  memcpy(expect_d, v, sizeof expect_d);

  for (int rep = 0; rep < 2; rep++) { /* a failed kernel is not remembered as good */
    EXPECT_ERROR(op_par_loop(syntax_src, "broken", s, op_arg_dat(d, -1, OP_ID, 1, "double", OP_RW)),
                 "op_par_loop 'broken': the kernel does not compile (generated source: ");
    CHECK_CONTAINS(compiler_log(), "kernel:broken:3:");
    free(check_source_path("x[0] = (y + 1.0;", forbidden));
    check_d(__LINE__);
  }
  op_par_loop(fixed_src, "broken", s, op_arg_dat(d, -1, OP_ID, 1, "double", OP_RW));
  for (int i = 0; i < 3; i++) expect_d[i] += 1.0;
  check_d(__LINE__);

  double scale = 3.0;
  op_decl_const(1, "double", &scale, "scale");
  EXPECT_ERROR(op_par_loop(const_src, "scaled", s, op_arg_dat(d, -1, OP_ID, 1, "double", OP_RW)),
               "op_par_loop 'scaled': the kernel does not compile");
  CHECK_CONTAINS(compiler_log(), "kernel:scaled:2:");
  CHECK_CONTAINS(compiler_log(), "undeclared_thing");
  free(check_source_path("scale * undeclared_thing", forbidden));
  check_d(__LINE__);

  EXPECT_ERROR(op_par_loop(wrong_name_src, "foo", s, op_arg_dat(d, -1, OP_ID, 1, "double", OP_RW)),
               "op_par_loop 'foo': the kernel does not compile");
  CHECK_CONTAINS(compiler_log(), "'foo'");
  free(check_source_path("static void bar(double *x)", forbidden));
  check_d(__LINE__);

  EXPECT_ERROR(
      op_par_loop(undefined_call_src, "undef", s, op_arg_dat(d, -1, OP_ID, 1, "double", OP_RW)),
      "op_par_loop 'undef': the kernel does not compile");
  CHECK_CONTAINS(compiler_log(), "missing_helper");
  free(check_source_path("missing_helper(x[0])", forbidden));
  check_d(__LINE__);

  /* The library still compiles and runs kernels, constants included. */
  op_par_loop("static void times_scale(double *x) { x[0] *= scale; }\n", "times_scale", s,
              op_arg_dat(d, -1, OP_ID, 1, "double", OP_RW));
  for (int i = 0; i < 3; i++) expect_d[i] *= 3.0;
  check_d(__LINE__);
}

int main(int argc, char **argv) {
  char scratch[4096];
  eu_make_scratch(scratch, sizeof scratch, "t302");
  /* Where a failed kernel's source goes when the cache does not keep it. */
  CHECK(setenv("TMPDIR", scratch, 1) == 0);

  test_catch_errors();
  CHECK(setenv("OP2_CACHE", "on", 1) == 0);
  op_init(argc, argv, 0);
  run_cases(NULL);
  op_exit();

  /* With the cache off or read-only the source must still be kept, but not in the cache.
   * op_exit drops the handler with everything else, so it is installed again. */
  const char *modes[] = {"off", "readonly"};
  for (int m = 0; m < 2; m++) {
    test_catch_errors();
    CHECK(setenv("OP2_CACHE", modes[m], 1) == 0);
    op_init(argc, argv, 0);
    run_cases(getenv("OP2_CACHE_DIR"));
    op_exit();
  }
  eu_remove_tree(scratch);
  return 0;
}
