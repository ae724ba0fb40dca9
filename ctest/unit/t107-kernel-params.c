/* SPDX-License-Identifier: BSD-3-Clause */
/* The kernel parameter reader: types, pointer depth, const, comments and strings ignored, calls
 * and prototypes skipped, and a clean refusal (never a guess) for what it does not understand. */
#include "test.h"
#include "base/c_lexis.h"
#include "jit/kernel_params.h"

static op2_kernel_param p[OP2_PARAMS_MAX];
static int n;
static op2_jit_error why;

/* The parameters of `name` in `src`, read as the kernel's facts read them: in its blanked code. */
static int parse(const char *src, const char *name, op2_kernel_param *out, int *count,
                 op2_jit_error *e) {
  char *code = op2_c_blank(src);
  CHECK(code);
  int rc = op2_kernel_params_parse_blank(code, name, out, count, e);
  free(code);
  return rc;
}

static void expect_param(int i, const char *base, int depth, bool pconst, const char *name) {
  if (strcmp(p[i].base, base) != 0 || p[i].depth != depth || p[i].pointee_const != pconst ||
      strcmp(p[i].name, name) != 0) {
    fprintf(stderr, "parameter %d: got '%s' depth %d const %d name '%s'\n", i, p[i].base,
            p[i].depth, p[i].pointee_const, p[i].name);
    exit(1);
  }
}

int main(void) {
  /* A prototype, a call in a comment and a string mentioning the name come first. */
  const char *src =
      "/* res(a, b) { */\n"
      "static void res(int q);\n"
      "static const char *s = \"res(double x) {\";\n"
      "static inline void res(const double *restrict x, // res(float) {\n"
      "                       double **y, const long long int *k,\n"
      "                       float z[], unsigned *u) {\n"
      "  res_helper(x);\n"
      "}\n";
  CHECK(parse(src, "res", p, &n, &why) == OP2_OK);
  CHECK(n == 5);
  expect_param(0, "double", 1, true, "x");
  expect_param(1, "double", 2, false, "y");
  expect_param(2, "long long", 1, true, "k");
  expect_param(3, "float", 1, false, "z");
  expect_param(4, "unsigned", 1, false, "u");

  CHECK(parse("void k(void) { }", "k", p, &n, &why) == OP2_OK);
  CHECK(n == 0);
  CHECK(parse("void k(int const * a) { }", "k", p, &n, &why) == OP2_OK);
  expect_param(0, "int", 1, true, "a");
  CHECK(parse("void k(double * const a) { }", "k", p, &n, &why) == OP2_OK);
  expect_param(0, "double", 1, false, "a");

  /* A typedef or macro type is not guessed at. */
  CHECK(parse("void k(real *a) { }", "k", p, &n, &why) == OP2_ERR_ARG);
  CHECK_CONTAINS(why.msg, "real");
  /* the failure says where it was found */
  CHECK(why.code == OP2_ERR_ARG && why.func && strcmp(why.func, "parse_param") == 0);
  CHECK_CONTAINS(why.file, "kernel_params.c");
  CHECK(parse("void k(void (*f)(int)) { }", "k", p, &n, &why) == OP2_ERR_ARG);
  /* A prototype alone, or another function's name, is no definition. */
  CHECK(parse("void k(double *a);", "k", p, &n, &why) == OP2_ERR_ARG);
  CHECK(parse("void kk(double *a) { }", "k", p, &n, &why) == OP2_ERR_ARG);
  CHECK_CONTAINS(why.msg, "no definition");
  /* no name (a calling file's context, whose facts are read once for all its loops): no
   * definition, not the first parenthesis followed by a brace */
  CHECK(parse("void k (double *a) { a[0] = 1; }", "", p, &n, &why) == OP2_ERR_ARG);
  return 0;
}
