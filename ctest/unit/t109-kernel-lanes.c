/* The kernel's copy for component-major lane arrays (jit/kernel_lanes.c): which parameters it
 * rewrites, how, and every use that must leave a parameter alone (lane-major is always correct;
 * a wrong rewrite would compute garbage). */
#include "test.h"
#include "jit/kernel_lanes.h"

static op2_buf out;

/* Rewrites `src` (kernel k) wanting every parameter; returns the mask, copy in `out`. */
static uint64_t lanes(const char *src) {
  op2_buf_free(&out);
  memset(&out, 0, sizeof out);
  return op2_kernel_lanes(src, "k", ~(uint64_t)0, &out);
}

static void expect_text(const char *needle) {
  if (!out.data || !strstr(out.data, needle)) {
    fprintf(stderr, "expected '%s' in:\n%s\n", needle, out.data ? out.data : "(nothing)");
    exit(1);
  }
}

int main(void) {
  /* Indexing and dereference, nested subscripts, comments and strings untouched. */
  CHECK(lanes("static inline void k(const double *a, double *b, const int *c) {\n"
              "  /* a[0] in a comment */ b[0] += a[c[1] + 1] * *a; // *b\n"
              "  printf(\"a[0]\");\n"
              "  *b = (double)*a + a[*c];\n"
              "}\n") == 7);
  expect_text(
      "#line 1 \"kernel:k\"\nstatic void op2_lanes_k(const double *a, double *b, const "
      "int *c) {");
  expect_text("b[(0) * OP2_SIMD_W] += a[(c[(1) * OP2_SIMD_W] + 1) * OP2_SIMD_W] * a[0];");
  expect_text("/* a[0] in a comment */");
  expect_text("printf(\"a[0]\");");
  expect_text("b[0] = (double)a[0] + a[(c[0]) * OP2_SIMD_W];");

  /* Only the wanted parameters. */
  op2_buf_free(&out);
  memset(&out, 0, sizeof out);
  CHECK(op2_kernel_lanes("void k(const double *a, double *b) { b[1] = a[1]; }", "k", 2, &out) == 2);
  expect_text("b[(1) * OP2_SIMD_W] = a[1];");

  /* The copy keeps the user's line numbers: the definition's line, its '{' where it was. */
  CHECK(lanes("#include <math.h>\n\nvoid k(double *a)\n{\n  a[0] = 1;\n}\n") == 1);
  expect_text("#line 3 \"kernel:k\"\nstatic void op2_lanes_k(double *a)\n{\n  a[(0) * OP2_SIMD_W]");

  /* Uses that leave a parameter lane-major; the others are still rewritten. */
  CHECK(lanes("void k(double *a, double *b) { double *p = a + 1; b[0] = *p; }") == 2);
  CHECK(lanes("void k(double *a, double *b) { h(a); b[0] = 1; }") == 2);
  CHECK(lanes("void k(double *a, double *b) { h(&a[1]); b[0] = 1; }") == 2);
  CHECK(lanes("void k(double *a, double *b) { b[0] = b[1] > 0 && a[1] > 0; }") == 3);
  CHECK(lanes("void k(double *a, double *b) { b[0] = *a++; }") == 2);
  CHECK(lanes("void k(double *a, double *b) { b[0] = OP2_STRIDE(a, 1); }") == 2);
  CHECK(lanes("void k(double *a, double *b) { b[0] = sizeof a; }") == 2);
  /* a local declaration that may shadow the parameter, in a nested block */
  CHECK(lanes("void k(double *a, double *b) { { double a[2]; a[0] = 1; b[0] = a[0]; } }") == 2);
  CHECK(lanes("void k(double *a, double *b) { { double t = 0, a[2]; a[1] = t; b[0] = 1; } }") == 2);
  CHECK(lanes("void k(double *a, double *b) { { real a[2]; b[0] = 1; } }") == 2);
  /* an initialiser is an expression: rewritten */
  CHECK(lanes("void k(double *a, double *b) { double t = a[1], u = b[0]; b[1] = t + u; }") == 3);
  expect_text("double t = a[(1) * OP2_SIMD_W], u = b[(0) * OP2_SIMD_W];");
  /* member names are not the parameter */
  CHECK(lanes("void k(double *a, double *b) { struct { double a; } s = {1}; b[0] = s.a; }") == 2);

  /* unused, or named in a macro the body may use: left alone */
  CHECK(lanes("void k(double *a, double *b) { b[0] = 1; }") == 2);
  CHECK(lanes("#define A1 a[1]\nvoid k(double *a, double *b) { b[0] = a[0] + A1; }") == 2);
  CHECK(lanes("#define A(i) \\\n  a[i]\nvoid k(double *a, double *b) { b[0] = A(0); }") == 2);

  /* Nothing copied: two definitions (only one of them is compiled), no definition, a value
   * returned, a preprocessor line in the body, a vector argument (double **) or a scalar parameter.
   */
  CHECK(lanes("#ifdef X\nvoid k(double *a) { a[0] = 1; }\n#else\nvoid k(double *a) { a[0] = "
              "2; }\n#endif\n") == 0 &&
        out.len == 0);
  CHECK(lanes("void k(double *a);") == 0 && out.len == 0);
  CHECK(lanes("int k(double *a) { a[0] = 1; return 0; }") == 0 && out.len == 0);
  CHECK(lanes("void k(double *a) {\n#define A a[0]\n  A = 1;\n}\n") == 0 && out.len == 0);
  CHECK(lanes("void k(double **a, int n) { a[0][0] = n; }") == 0 && out.len == 0);
  op2_buf_free(&out);
  return 0;
}
