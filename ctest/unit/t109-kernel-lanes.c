/* SPDX-License-Identifier: BSD-3-Clause */
/* The kernel's copy for component-major lane arrays (jit/kernel_lanes.c): which parameters it
 * rewrites, how, and every use that must leave a parameter alone (lane-major is always correct;
 * a wrong rewrite would compute garbage). */
#include "test.h"
#include "jit/kernel_lanes.h"

static op2_buf out;

/* The facts of kernel k in src (kernel_facts.h), read afresh each time. */
static op2_kernel_facts *facts;
static const op2_kernel_facts *read_k(const char *src) {
  op2_kernel_facts_free(facts);
  facts = op2_kernel_facts_read(src, "k");
  CHECK(facts != NULL);
  return facts;
}

/* Rewrites `src` (kernel k) wanting every parameter; returns the mask, copy in `out`. */
static uint64_t lanes(const char *src) {
  op2_buf_free(&out);
  memset(&out, 0, sizeof out);
  return op2_kernel_lanes(read_k(src), ~(uint64_t)0, &out);
}

static void expect_text(const char *needle) {
  if (!out.data || !strstr(out.data, needle)) {
    fprintf(stderr, "expected '%s' in:\n%s\n", needle, out.data ? out.data : "(nothing)");
    exit(1);
  }
}

/* op2_kernel_adds_once for every parameter of kernel k: the mask of those added to at most once
 * per component on every path. */
static uint64_t once(const char *src) {
  return op2_kernel_adds_once(read_k(src), ~(uint64_t)0, NULL);
}

static void check_adds_once(void) {
  /* Airfoil's res_calc and bres_calc: literal components, each once; bres_calc in two branches */
  CHECK(once("void k(const double *q, double *r1, double *r2) {\n"
             "  double f = q[0] * 2;\n  r1[0] += f;\n  r2[0] -= f;\n  f = q[1];\n"
             "  r1[1] += f;\n  r2[1] -= f;\n  *r1 += 0;\n}\n") == 4); /* *r1 is r1[0] */
  CHECK(once("void k(const double *q, double *r1, double *r2) {\n"
             "  r1[0] += q[0];\n  r2[0] -= q[0];\n  r1[1] += q[1];\n  r2[1] -= q[1];\n}\n") == 6);
  CHECK(once("void k(const int *b, double *r) {\n"
             "  if (*b == 1) {\n    r[1] += 1;\n    r[2] += 2;\n  } else {\n"
             "    r[0] += 3;\n    r[1] += 4;\n    r[2] += 5;\n    r[3] += 6;\n  }\n}\n") == 2);
  CHECK(once("void k(double *r) { if (r[0] > 0) r[0] += 1; }") == 0); /* read in a condition */
  CHECK(once("void k(double *r, int c) { if (c) r[0] += 1; else if (c > 1) r[0] -= 1; }") == 1);
  /* a loop not touching the parameter is fine; one that does counts as many times */
  CHECK(
      once("void k(double *r) { double s = 0; for (int i = 0; i < 3; i++) s += i; r[0] += s; }") ==
      1);
  /* a counted loop over the components, each once: for (int v = A; v < B; v++) p[v] op= e; */
  CHECK(once("void k(double *r) { for (int i = 0; i < 4; i++) r[i] += 1; }") == 1);
  CHECK(once("void k(double *r) { for (int i = 0; i <= 3; ++i) { double t = i; r[i] -= t; } }") ==
        1);
  CHECK(once("void k(double *r) { for (int i = 1; i < 4; i += 1) r[i] += 1; r[0] += 2; }") == 1);
  CHECK(once("void k(double *r) { for (int i = 0; i < 4; i++) r[i] += 1; r[3] += 2; }") == 0);
  CHECK(once("void k(double *r) { for (int i = 0; i < 4; i++) { r[i] += 1; r[i] += 2; } }") == 0);
  CHECK(once("void k(double *r) { for (int i = 0; i < 4; i++) r[0] += 1; }") == 0);
  CHECK(once("void k(double *r) { for (int i = 0; i < 4; i++) { i++; r[i] += 1; } }") == 0);
  CHECK(once("void k(double *r) { for (int i = 0; i < 4; i++) { int *p = &i; r[i] += *p; } }") ==
        0);
  CHECK(once("void k(double *r) { for (int i = 0; i < 4; i += 2) r[i] += 1; }") == 0);
  CHECK(once("void k(double *r) { for (int i = 0; i < 4; i++) r[i] += r[i]; }") == 0);
  CHECK(once("void k(double *r) { for (int i = 0; i < 2; i++) for (int j = 0; j < 2; j++) "
             "r[i] += j; }") == 0);
  CHECK(once("void k(double *r, int n) { for (int i = 0; i < n; i++) r[i] += 1; }") == 0);
  CHECK(once("void k(double *r) { for (int i = 0; i < 1; i++) { r[0] += 1; } }") == 0);
  CHECK(once("void k(double *r) { int i = 0; while (i++ < 2) r[1] += 1; }") == 0);
  CHECK(once("void k(double *r) { int i = 0; do r[1] += 1; while (i++ < 2); }") == 0);
  CHECK(once("void k(double *r, int c) { switch (c) { case 0: r[0] += 1; } }") == 0);
  CHECK(once("void k(double *r) { again: r[0] += 1; if (r) goto again; }") == 0);
  /* twice on one path, however written */
  CHECK(once("void k(double *r, double *s) { r[0] += 1; r[0] += 2; s[0] += 1; }") == 2);
  CHECK(once("void k(double *r) { *r += 1; r[0] -= 2; }") == 0);
  CHECK(once("void k(double *r, int c) { if (c) r[1] += 1; r[1] += 2; }") == 0);
  CHECK(once("void k(double *r) { r[0] += 1, r[1] += 2; }") == 0);
  /* anything but `p[N] += e;` and `*p += e;`: a computed index, an assignment, a read, a call
   * (a scalar parameter read anywhere is not "added once" either) */
  CHECK(once("void k(double *r, int i) { r[i] += 1; }") == 0);
  CHECK(once("void k(double *r) { r[0] = r[0] + 1; }") == 0);
  CHECK(once("void k(double *r) { r[0] += r[1]; }") == 0);
  CHECK(once("void k(double *r) { r[0] *= 2; }") == 0);
  CHECK(once("void k(double *r) { h(r); }") == 0);
  CHECK(once("void k(double *r) { r[1] += 1; }") == 1);
  CHECK(once("void k(double *r) { r[1u] += 1; }") == 1);
  CHECK(once("#define R r[0]\nvoid k(double *r) { r[1] += 1; }") == 0);
  /* Parameters of one dat (group) may reach one element: groups add the first one's row first,
   * so on every component both add to, the first one's additions must come first. */
  int same[3] = {-1, 0, 0}, apart[3] = {-1, 0, 1};
  const char *in_order =
      "void k(const double *q, double *r1, double *r2) {\n"
      "  r1[0] += q[0];\n  r2[0] -= q[0];\n  r1[1] += q[1];\n  r2[1] -= q[1];\n}\n";
  CHECK(op2_kernel_adds_once(read_k(in_order), ~(uint64_t)0, same) == 6);
  const char *swapped =
      "void k(const double *q, double *r1, double *r2) {\n"
      "  r1[0] += q[0];\n  r2[1] -= q[0];\n  r1[1] += q[1];\n}\n";
  CHECK(op2_kernel_adds_once(read_k(swapped), ~(uint64_t)0, same) == 0);
  CHECK(op2_kernel_adds_once(read_k(swapped), ~(uint64_t)0, apart) == 6);
  CHECK(op2_kernel_adds_once(read_k(swapped), ~(uint64_t)0, NULL) == 6);
  /* in one counted loop: a component's additions come in the order of the body's statements */
  const char *loop_in_order =
      "void k(const double *q, double *r1, double *r2) {\n"
      "  for (int i = 0; i < 2; i++) { r1[i] += q[i]; r2[i] -= q[i]; }\n}\n";
  CHECK(op2_kernel_adds_once(read_k(loop_in_order), ~(uint64_t)0, same) == 6);
  const char *loop_swapped =
      "void k(const double *q, double *r1, double *r2) {\n"
      "  for (int i = 0; i < 2; i++) { r2[i] -= q[i]; r1[i] += q[i]; }\n}\n";
  CHECK(op2_kernel_adds_once(read_k(loop_swapped), ~(uint64_t)0, same) == 0);
  /* in two branches: the text's order is every path's */
  const char *branches =
      "void k(const int *c, double *r1, double *r2) {\n"
      "  if (*c) r2[0] += 1; else r1[0] += 1;\n  r2[1] += 1;\n}\n";
  CHECK(op2_kernel_adds_once(read_k(branches), ~(uint64_t)0, same) == 0);
  /* components named by the text's macros (MG-CFD's fluxes[VAR_MOMENTUM + 1]): read as the
   * constants they are, through macros of macros and parentheses */
  const char *names = "#define RHO 0\n#define MOM 1\n#define E (MOM + 3)\n";
  char text[512];
  snprintf(text, sizeof text, "%svoid k(double *r) { r[RHO] += 1; r[MOM + 2] += 1; r[E] += 1; }",
           names);
  CHECK(once(text) == 1);
  /* ... and two names of one component are one component */
  snprintf(text, sizeof text, "%svoid k(double *r) { r[MOM + 3] += 1; r[E] += 1; }", names);
  CHECK(once(text) == 0);
  snprintf(text, sizeof text, "%svoid k(double *r) { r[2 * MOM + 2] += 1; r[(E - 1) + 1] += 1; }",
           names);
  CHECK(once(text) == 0);
  /* a name with no one value is not a constant: undefined, defined twice differently, #undef'd,
   * function-like; nor is a literal this reader does not take (hexadecimal) */
  CHECK(once("void k(double *r) { r[N] += 1; }") == 0);
  CHECK(once("#define N 1\n#define N 1\nvoid k(double *r) { r[N] += 1; }") == 1);
  CHECK(once("#define N 1\n#define N 2\nvoid k(double *r) { r[N] += 1; }") == 0);
  CHECK(once("#define N 1\n#undef N\nvoid k(double *r) { r[N] += 1; }") == 0);
  CHECK(once("#define N(x) x\nvoid k(double *r) { r[N(1)] += 1; }") == 0);
  CHECK(once("void k(double *r) { r[0x1] += 1; }") == 0);
  CHECK(once("#define N N\nvoid k(double *r) { r[N] += 1; }") == 0); /* no end: refused */
  /* conditional blocks in the body: every branch's additions counted, so a component added in
   * two exclusive branches counts twice (never fewer than a real path makes) */
  CHECK(once("void k(double *r, double *s) {\n#ifdef H\n  r[0] += 1;\n#endif\n  r[1] += 1;\n"
             "  s[0] += 1;\n}\n") == 3);
  CHECK(once("void k(double *r) {\n#ifdef H\n  r[0] += 1;\n#else\n  r[0] += 2;\n#endif\n}\n") == 0);
  /* unused: never added to */
  CHECK(once("void k(double *r, double *s) { s[0] += 1; }") == 3);
  CHECK(once("void k(double *r);") == 0);
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
  CHECK(op2_kernel_lanes(read_k("void k(const double *a, double *b) { b[1] = a[1]; }"), 2, &out) ==
        2);
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

  /* Conditional blocks, #pragma and #line in the body (MG-CFD's `#ifdef IDIVIDE`): every
   * branch rewritten, the directives copied as they are */
  CHECK(
      lanes(
          "void k(const double *a, double *b) {\n  double p = a[0];\n#ifdef D\n"
          "  p = 1.0 / a[1];\n#else\n  p = a[1];\n#endif\n#pragma GCC ivdep\n  b[0] += p;\n}\n") ==
      3);
  expect_text(
      "#ifdef D\n  p = 1.0 / a[(1) * OP2_SIMD_W];\n#else\n  p = a[(1) * OP2_SIMD_W];\n#endif\n");
  expect_text("#pragma GCC ivdep\n  b[(0) * OP2_SIMD_W] += p;");
  CHECK(lanes("void k(double *a) {\n  if (a[0] > 0) {\n#if X\n    a[0] = 1;\n#endif\n  }\n}\n") ==
        1);

  /* Nothing copied: two definitions (only one of them is compiled), no definition, a value
   * returned, a preprocessor line in the body that could change its meaning (#define,
   * #include) or branches that leave the braces unbalanced, a vector argument (double **) or a
   * scalar parameter. */
  CHECK(lanes("#ifdef X\nvoid k(double *a) { a[0] = 1; }\n#else\nvoid k(double *a) { a[0] = "
              "2; }\n#endif\n") == 0 &&
        out.len == 0);
  CHECK(lanes("void k(double *a);") == 0 && out.len == 0);
  CHECK(lanes("int k(double *a) { a[0] = 1; return 0; }") == 0 && out.len == 0);
  CHECK(lanes("void k(double *a) {\n#define A a[0]\n  A = 1;\n}\n") == 0 && out.len == 0);
  CHECK(lanes("void k(double *a) {\n#include \"x.h\"\n  a[0] = 1;\n}\n") == 0 && out.len == 0);
  CHECK(lanes("void k(double *a) {\n#ifdef X\n  if (a[1] > 0) {\n#else\n  {\n#endif\n"
              "    a[0] = 1;\n  }\n}\n") == 0 &&
        out.len == 0);
  CHECK(lanes("void k(double *a) {\n#ifdef X\n  a[0] = 1;\n}\n") == 0 && out.len == 0);
  CHECK(lanes("void k(double **a, int n) { a[0][0] = n; }") == 0 && out.len == 0);
  op2_buf_free(&out);
  check_adds_once();
  op2_kernel_facts_free(facts);
  return 0;
}
