/* SPDX-License-Identifier: BSD-3-Clause */
/* What OP2's C++ kernels use without including anything, in C: bool, true and false without
 * <stdbool.h>, and <math.h>'s classification and comparison macros (isnan, isinf, isfinite,
 * isnormal, signbit, fpclassify, isgreater, ..., INFINITY) on float and double, special values
 * included. The kernel stays C (never the C++ tier: a C++ build of such a kernel cost 280-690 ms
 * on its first call), on the tier the run asks for (OP2_JIT=tcc: TinyCC code; cc: optimised
 * code), and on cuda-emu (NVRTC checks the same text as CUDA, then it runs as C), with the results
 * of <math.h>. The test makes its own kernel cache. */
#include <unistd.h>

#include "capture.h"

enum { N = 14 };

static const char *classify_src =
    "void classify(const double *x, const float *y, int *c) {\n"
    "  bool nan_d = isnan(x[0]), nan_f = isnan(y[0]);\n"
    "  bool any = nan_d || nan_f ? true : false;\n"
    "  c[0] = nan_d | (isinf(x[0]) != 0) << 1 | (isfinite(x[0]) != 0) << 3 |\n"
    "         (isnormal(x[0]) != 0) << 4 | (signbit(x[0]) != 0) << 5 | fpclassify(x[0]) << 6;\n"
    "  c[1] = nan_f | (isinf(y[0]) != 0) << 1 | (isfinite(y[0]) != 0) << 3 |\n"
    "         (isnormal(y[0]) != 0) << 4 | (signbit(y[0]) != 0) << 5 | fpclassify(y[0]) << 6;\n"
    "  c[2] = any | (isgreater(x[0], y[0]) != 0) << 1 | (isgreaterequal(x[0], y[0]) != 0) << 2 |\n"
    "         (isless(x[0], y[0]) != 0) << 3 | (islessequal(x[0], y[0]) != 0) << 4 |\n"
    "         (islessgreater(x[0], y[0]) != 0) << 5 | (isunordered(x[0], y[0]) != 0) << 6 |\n"
    "         (x[0] == INFINITY) << 7 | (y[0] == -HUGE_VALF) << 8 | (x[0] == HUGE_VAL) << 9 |\n"
    "         (isnan(NAN) != 0) << 10;\n"
    "}\n";

/* FP_* as the kernels' prelude numbers them (glibc's values): the host's may differ. */
static int fp_class(int c) {
  return c == FP_NAN ? 0 : c == FP_INFINITE ? 1 : c == FP_ZERO ? 2 : c == FP_SUBNORMAL ? 3 : 4;
}

static void expected(double x, float y, int *c) {
  int nan_d = isnan(x) != 0, nan_f = isnan(y) != 0;
  c[0] = nan_d | (isinf(x) != 0) << 1 | (isfinite(x) != 0) << 3 | (isnormal(x) != 0) << 4 |
         (signbit(x) != 0) << 5 | fp_class(fpclassify(x)) << 6;
  c[1] = nan_f | (isinf(y) != 0) << 1 | (isfinite(y) != 0) << 3 | (isnormal(y) != 0) << 4 |
         (signbit(y) != 0) << 5 | fp_class(fpclassify(y)) << 6;
  c[2] = (nan_d || nan_f) | (isgreater(x, y) != 0) << 1 | (isgreaterequal(x, y) != 0) << 2 |
         (isless(x, y) != 0) << 3 | (islessequal(x, y) != 0) << 4 |
         (islessgreater(x, y) != 0) << 5 | (isunordered(x, y) != 0) << 6 | (x == INFINITY) << 7 |
         (y == -HUGE_VALF) << 8 | (x == HUGE_VAL) << 9 | 1 << 10;
}

int main(int argc, char **argv) {
  char cache[] = "/tmp/op2-t757-XXXXXX", rm[64];
  CHECK(mkdtemp(cache) != NULL && setenv("OP2_CACHE_DIR", cache, 1) == 0);
  snprintf(rm, sizeof rm, "rm -rf %s", cache);
  const char *jit = getenv("OP2_JIT"), *backend = getenv("OP2_BACKEND");
  const int on_cpu = !backend || strcmp(backend, "cuda-emu") != 0;
  op_init(argc, argv, 1);
  const double dx[N] = {NAN,       -NAN, INFINITY, -INFINITY, 0.0, -0.0, 4.9e-324,
                        -2.2e-308, 1.5,  -3.25,    1e308,     2.0, NAN,  7.0};
  const float fy[N] = {1.0f,    NAN,   -INFINITY, INFINITY, -0.0f, 0.0f, 1e-40f,
                       -1e-39f, -2.5f, -3.25f,    3e38f,    2.0f,  NAN,  -INFINITY};
  double x[N];
  float y[N];
  int c[3 * N];
  memcpy(x, dx, sizeof x), memcpy(y, fy, sizeof y);
  op_set s = op_decl_set(N, "s");
  op_dat px = op_decl_dat(s, 1, "double", x, "x");
  op_dat py = op_decl_dat(s, 1, "float", y, "y");
  op_dat pc = op_decl_dat(s, 3, "int", NULL, "c");
  capture cap;
  capture_begin(&cap, 2);
  op_par_loop(classify_src, "classify", s, op_arg_dat(px, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(py, -1, OP_ID, 1, "float", OP_READ),
              op_arg_dat(pc, -1, OP_ID, 3, "int", OP_WRITE));
  op_fetch_data(pc, c);
  char *diag = capture_end(&cap);
  CHECK(strstr(diag, "is C++") == NULL); /* C: no C++ compile */
  CHECK(strstr(diag, "optimising compile") == NULL);
  free(diag);
  for (int i = 0; i < N; i++) {
    int want[3];
    expected(dx[i], fy[i], want);
    for (int k = 0; k < 3; k++)
      if (c[3 * i + k] != want[k]) {
        fprintf(stderr, "classify(%g, %g) word %d: %#x, <math.h> gives %#x\n", dx[i], (double)fy[i],
                k, (unsigned)c[3 * i + k], (unsigned)want[k]);
        CHECK(0);
      }
  }
  capture_begin(&cap, 1);
  op_timing_output();
  char *table = capture_end(&cap);
  const char *row = strstr(table, "\n  classify ");
  CHECK(row != NULL);
  const char *end = strchr(row + 1, '\n');
  CHECK(end != NULL);
  CHECK(strstr(row, "C++") == NULL || strstr(row, "C++") > end);
  if (on_cpu && jit && strcmp(jit, "tcc") == 0) /* its one call ran TinyCC code */
    CHECK(strstr(row, " 1/0 ") != NULL && strstr(row, " 1/0 ") < end);
  if (on_cpu && jit && strcmp(jit, "cc") == 0) /* optimised code */
    CHECK(strstr(row, " 0/1 ") != NULL && strstr(row, " 0/1 ") < end);
  free(table);
  op_exit();
  CHECK(system(rm) == 0);
  printf("t757: bool and <math.h>'s classification in C kernels: passed\n");
  return 0;
}
