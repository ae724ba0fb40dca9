/* SPDX-License-Identifier: BSD-3-Clause */
/* The C++ that OP2's kernels use, lowered to C (jit/cxx_lower.c): what is lowered and how, and
 * what must be left to the C++ compiler. A refusal leaves the text unchanged (TinyCC rejects it
 * and the C++ tier builds it as written); a wrong lowering would compile to different results.
 * Results against g++'s build: t748-cxx-lowered. */
#include "test.h"
#include "jit/cxx_lower.h"

/* The text op2_cxx_lower_toks makes of `src`: 1 and `out` when it lowered, 0 and nothing
 * written when it did not. */
static int lower_text(const char *src, const char *kernel, op2_buf *out) {
  op2_toks T = {0};
  CHECK(op2_tokenize(&T, src) == 0);
  int lowered = op2_cxx_lower_toks(&T, kernel);
  if (lowered) op2_toks_render(&T, out);
  op2_toks_free(&T);
  return lowered;
}

/* lowered: the text lower_text gives for `src` */
static void lowers(const char *src, const char *want) {
  op2_buf out = {0};
  int rc = lower_text(src, "kern", &out);
  if (rc != 1 || strcmp(out.data, want) != 0) {
    fprintf(stderr, "lowering of:\n%s\ngave (%d):\n%s\nwanted:\n%s\n", src, rc,
            out.data ? out.data : "(nothing)", want);
    exit(1);
  }
  /* lowered again: nothing left to do (the generated file's text goes through twice) */
  op2_buf again = {0};
  CHECK(lower_text(out.data, "kern", &again) == 0 && again.data == NULL);
  /* lines kept */
  int n1 = 0, n2 = 0;
  for (const char *p = src; *p; p++) n1 += *p == '\n';
  for (const char *p = out.data; *p; p++) n2 += *p == '\n';
  CHECK_EQ_INT(n1, n2);
  op2_buf_free(&out);
}

static void refuses(const char *src) {
  op2_buf out = {0};
  if (lower_text(src, "kern", &out) != 0 || out.data) {
    fprintf(stderr, "lowered, but must not be:\n%s\ngave:\n%s\n", src, out.data);
    exit(1);
  }
}

int main(void) {
  /* helpers taking references, their uses and call sites; a member named like a parameter */
  lowers(
      "static inline void vel(double &rho, vec3 &m, vec3 &v) {\n"
      "  v.x = m.x / rho; v.rho = rho;\n"
      "}\n"
      "void kern(const double *a, double *b) {\n"
      "  double r = a[0]; vec3 m = {a[1], a[2], a[3]}, v;\n"
      "  vel(r, m,\n"
      "      v);\n"
      "  b[0] = v.x;\n"
      "}\n",
      "static inline void vel(double *rho, vec3 *m, vec3 *v) {\n"
      "  (*v).x = (*m).x / (*rho); (*v).rho = (*rho);\n"
      "}\n"
      "void kern(const double *a, double *b) {\n"
      "  double r = a[0]; vec3 m = {a[1], a[2], a[3]}, v;\n"
      "  vel(op2_cxx_ref(double, r), op2_cxx_ref(vec3, m),\n"
      "      op2_cxx_ref(vec3, v));\n"
      "  b[0] = v.x;\n"
      "}\n");
  /* const references (the type checked without qualifiers), a prototype, a helper calling
   * another with its own reference parameter, a name used in an initializer */
  lowers(
      "double sq(const double &x);\n"
      "double sq(const double &x) { return x * x; }\n"
      "double twice(const double &y) { double z = sq(y), w = y; return 2 * z + 0 * w; }\n"
      "void kern(double *a) { a[0] = twice(a[1]); }\n",
      "double sq(const double *x);\n"
      "double sq(const double *x) { return (*x) * (*x); }\n"
      "double twice(const double *y) { double z = sq(op2_cxx_ref(double, (*y))), w = (*y); "
      "return 2 * z + 0 * w; }\n"
      "void kern(double *a) { a[0] = twice(op2_cxx_ref(double, a[1])); }\n");
  /* functional casts where an expression stands; a declaration-like `double(x);` is left */
  lowers(
      "void kern(const int *i, double *d) {\n"
      "  d[0] = double(i[0]) / double(3 + 1 - (*i));\n"
      "  d[1] = 0.5 * float(int(d[0]) % 3);\n"
      "  if (double(i[0]) > 1) return;\n"
      "}\n",
      "void kern(const int *i, double *d) {\n"
      "  d[0] = ((double)(i[0])) / ((double)(3 + 1 - (*i)));\n"
      "  d[1] = 0.5 * ((float)(((int)(d[0])) % 3));\n"
      "  if (((double)(i[0])) > 1) return;\n"
      "}\n");
  /* a structure used without `struct`; one already typedef'd is left */
  lowers(
      "struct vec3 { double x, y, z; };\n"
      "struct pair { int a, b; };\n"
      "typedef struct pair pair;\n"
      "void kern(double *a) { vec3 v = {a[0], 0, 0}; a[1] = v.x; }\n",
      "struct vec3 { double x, y, z; }; typedef struct vec3 vec3;\n"
      "struct pair { int a, b; };\n"
      "typedef struct pair pair;\n"
      "void kern(double *a) { vec3 v = {a[0], 0, 0}; a[1] = v.x; }\n");
  /* a statement that calls a function with the parameter, declared here or not */
  lowers(
      "static void g(double *p);\n"
      "static void f(double &x) { g(&x); printf(\"%g\", x); }\n"
      "void kern(double *a) { f(a[0]); }\n",
      "static void g(double *p);\n"
      "static void f(double *x) { g(&(*x)); printf(\"%g\", (*x)); }\n"
      "void kern(double *a) { f(op2_cxx_ref(double, a[0])); }\n");
  /* a conditional definition: both branches alike */
  lowers(
      "#ifdef IDIVIDE\n"
      "static void f(double &r, double &o) { o = 1.0 / r; }\n"
      "#else\n"
      "static void f(double &r, double &o) { o = r; }\n"
      "#endif\n"
      "void kern(double *a) { double x = a[0], y; f(x, y); a[1] = y; }\n",
      "#ifdef IDIVIDE\n"
      "static void f(double *r, double *o) { (*o) = 1.0 / (*r); }\n"
      "#else\n"
      "static void f(double *r, double *o) { (*o) = (*r); }\n"
      "#endif\n"
      "void kern(double *a) { double x = a[0], y; f(op2_cxx_ref(double, x), "
      "op2_cxx_ref(double, y)); a[1] = y; }\n");

  /* Left to the C++ compiler: */
  /* nothing to lower (plain C) */
  refuses("void kern(double *a) { a[0] = (double)a[1] * 2; }\n");
  /* the kernel's own parameters (by name, and the last function when named otherwise) */
  refuses("void kern(double &a) { a = 1; }\n");
  refuses("void other(double &a) { a = 1; }\n");
  /* a nested declaration may shadow the parameter: its uses are not surely the object */
  refuses(
      "static void f(double &x) { { double *x = 0; (void)x; } }\n"
      "void kern(double *a) { f(a[0]); }\n");
  refuses(
      "static void f(double &x) { for (int x = 0; x < 3; x++) { } }\n"
      "void kern(double *a) { f(a[0]); }\n");
  refuses(
      "static void f(double &x) { if (1) { double a = 1, x = 2; (void)a; } }\n"
      "void kern(double *a) { f(a[0]); }\n");
  refuses(
      "static void f(double &x) { { real (x); } }\n"
      "void kern(double *a) { f(a[0]); }\n");
  /* a macro naming the parameter or the function */
  refuses(
      "static void f(double &x) {\n#define TWICE (x + x)\n x = TWICE; }\n"
      "void kern(double *a) { f(a[0]); }\n");
  refuses(
      "#define TWICE (x + x)\nstatic void f(double &x) { x = TWICE; }\n"
      "void kern(double *a) { f(a[0]); }\n");
  refuses(
      "static void f(double &x) { x = 1; }\n#define CALL(v) f(v)\n"
      "void kern(double *a) { CALL(a[0]); }\n");
  /* a call split by a preprocessor line */
  refuses(
      "static void f(double &x, double y) { x = y; }\n"
      "void kern(double *a) { f(a[0],\n#ifdef X\n 1\n#else\n 2\n#endif\n); }\n");
  /* an overload, the function's address, a wrong argument count, default arguments, rvalue
   * references, references to arrays, a function returning a reference */
  refuses(
      "static void f(double &x) { x = 1; }\nstatic void f(double *x) { *x = 2; }\n"
      "void kern(double *a) { f(a[0]); }\n");
  refuses(
      "static void f(double &x) { x = 1; }\n"
      "void kern(double *a) { void (*g)(double &) = f; g(a[0]); }\n");
  refuses("static void f(double &x, int n) { x = n; }\nvoid kern(double *a) { f(a[0]); }\n");
  refuses("static void f(double &x, int n = 2) { x = n; }\nvoid kern(double *a) { f(a[0]); }\n");
  refuses("static void f(double &&x) { x = 1; }\nvoid kern(double *a) { f(a[0]); }\n");
  refuses("static void f(double (&x)[3]) { x[0] = 1; }\nvoid kern(double *a) { }\n");
  refuses("static double &f(double *x) { return x[0]; }\nvoid kern(double *a) { f(a) = 1; }\n");
  /* C++ that C reads otherwise: `auto` (an int in C), casts and keywords not handled here */
  refuses(
      "static void f(double &x) { auto y = x * 1.5; x = y; }\n"
      "void kern(double *a) { f(a[0]); }\n");
  refuses("struct S { double x; };\nvoid kern(double *a) { a[0] = static_cast<double>(1); }\n");
  refuses("class S { public: double x; };\nvoid kern(double *a) { S s; a[0] = s.x; }\n");
  /* a functional cast with several arguments or none; an unterminated literal */
  refuses("void kern(double *a) { a[0] = double(); }\n");
  refuses("struct S { double x; };\nvoid kern(double *a) { a[0] = double(a[1], 2); }\n");
  refuses("static void f(double &x) { x = 1; }\nvoid kern(double *a) { f(a[0]); \"x }\n");
  printf("C++ lowering: passed\n");
  return 0;
}
