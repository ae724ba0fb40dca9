/* SPDX-License-Identifier: BSD-3-Clause */
/* OP2's kernels are C++ headers, compiled here as C: float math stays in float (sqrt of a float
 * is sqrtf, as C++'s overloads pick), `std::` calls with a C form, `#include <cmath>` and the
 * kernel's own `extern` declarations of the constants it reads all compile in the C tiers (no
 * C++ compile: "::" in a comment is not C++), with the results C++ gives. Run per tier
 * (OP2_JIT=tcc, cc). */
#include "capture.h"

enum { N = 2000 };

/* In double, sqrt(x) * x would be one rounding, not two: results differ in the last bit. */
static const char *float_src =
    "void fmath(const float *x, float *y) {\n"
    "  *y = sqrt(*x) * *x + fabs(*x) * 0.3f + pow(*x, 1.5f) / exp(*x);\n"
    "}\n";

/* What OP2's C++ headers hold. */
static const char *cxx_src =
    "#include <cmath>\n"
    "#include <cstdio>\n"
    "extern double ff[2];\n"
    "extern int nn, unused_name;\n"
    "// scaled by ff::first and ff::second (\"::\" in a comment is no C++)\n"
    "inline void cxxish(const float *x, float *y, double *d, int *m) {\n"
    "  const char *s = \"a::b\"; (void)s;\n"
    "  *y = std::sqrt(*x) * std::max(*x, 0.5f);\n"
    "  *d = std::min((double)*x * ff[0], ff[1]) + std::abs(-nn);\n"
    "  *m = std::abs(*m - nn);\n"
    "}\n";

static float host_fmath(float x) {
  return sqrtf(x) * x + fabsf(x) * 0.3f + powf(x, 1.5f) / expf(x);
}
static float host_fmath_double(float x) {
  return (float)(sqrt(x) * x + fabs(x) * 0.3f + pow(x, 1.5f) / exp(x));
}

int main(int argc, char **argv) {
  op_init(argc, argv, 1);
  float x[N], y[N];
  double d[N];
  int m[N];
  int differs = 0;
  for (int i = 0; i < N; i++) {
    x[i] = 0.01f + 0.0137f * (float)i;
    y[i] = 0, d[i] = 0, m[i] = i % 11;
    differs += host_fmath(x[i]) != host_fmath_double(x[i]);
  }
  CHECK(differs > 0); /* the test tells float from double evaluation */
  double ff[2] = {1.25, 3.0};
  int nn = 4;
  op_decl_const(2, "double", ff);
  op_decl_const(1, "int", &nn);
  op_set s = op_decl_set(N, "s");
  op_dat dx = op_decl_dat(s, 1, "float", x, "x");
  op_dat dy = op_decl_dat(s, 1, "float", y, "y");
  op_dat dd = op_decl_dat(s, 1, "double", d, "d");
  op_dat dm = op_decl_dat(s, 1, "int", m, "m");

  op_par_loop(float_src, "fmath", s, op_arg_dat(dx, -1, OP_ID, 1, "float", OP_READ),
              op_arg_dat(dy, -1, OP_ID, 1, "float", OP_WRITE));
  op_fetch_data(dy, y);
  for (int i = 0; i < N; i++)
    if (y[i] != host_fmath(x[i])) {
      fprintf(stderr, "fmath(%.9g) = %.9g, float gives %.9g (double %.9g)\n", (double)x[i],
              (double)y[i], (double)host_fmath(x[i]), (double)host_fmath_double(x[i]));
      CHECK(0);
    }

  capture c;
  capture_begin(&c, 2);
  op_par_loop(cxx_src, "cxxish", s, op_arg_dat(dx, -1, OP_ID, 1, "float", OP_READ),
              op_arg_dat(dy, -1, OP_ID, 1, "float", OP_WRITE),
              op_arg_dat(dd, -1, OP_ID, 1, "double", OP_WRITE),
              op_arg_dat(dm, -1, OP_ID, 1, "int", OP_RW));
  char *diag = capture_end(&c);
  CHECK(!strstr(diag, "C++")); /* compiled by the C tier the test asked for */
  free(diag);
  op_fetch_data(dy, y);
  op_fetch_data(dd, d);
  op_fetch_data(dm, m);
  for (int i = 0; i < N; i++) {
    float big = x[i] > 0.5f ? x[i] : 0.5f;
    CHECK(y[i] == sqrtf(x[i]) * big);
    double a = (double)x[i] * ff[0];
    CHECK(d[i] == (a < ff[1] ? a : ff[1]) + 4);
    CHECK_EQ_INT(m[i], abs(i % 11 - nn));
  }
  op_exit();
  printf("kernel text: passed\n");
  return 0;
}
