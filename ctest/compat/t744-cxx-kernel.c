/* SPDX-License-Identifier: BSD-3-Clause */
/* Kernels written for OP2's C++ programs: TinyCC rejects them, so the system C++ compiler
 * (OP2_CXX) builds them and the TinyCC tier is skipped; the first call's cost is reported. argv[1]:
 * "run" (results, the OP2_DIAGS=1 report, op_timing_output's "C++" column, a run from the cache)
 * or "off" (OP2_CXX=off: the kernel is refused with TinyCC's message). */
#include "capture.h"

enum { N = 1000 };

/* std::min / std::max / std::abs, a C++ cast and a loop-local reference. */
static const char *range_src =
    "void range(const int *v, int *lo, int *hi, double *mag) {\n"
    "  const int &x = *v;\n"
    "  *lo = std::min(*lo, x);\n"
    "  *hi = std::max(*hi, x);\n"
    "  mag[0] += static_cast<double>(std::abs(x));\n"
    "}\n";
/* C++ without "::": TinyCC is tried first and rejects the reference. */
static const char *positives_src =
    "void positives(const int *v, int *count) { const int &x = *v; *count += x > 0; }\n";
/* Neither C nor C++. */
static const char *broken_src = "void broken(int *v) { v[0] = std::no_such_function(v[0]); }\n";

static int run(void) {
  int v[N], lo = 1 << 30, hi = -(1 << 30);
  double mag = 0, want_mag = 0;
  unsigned seed = 7;
  for (int i = 0; i < N; i++) {
    v[i] = (int)(test_rand(&seed) % 20001) - 10000;
    want_mag += abs(v[i]);
  }
  int want_lo = v[0], want_hi = v[0];
  for (int i = 1; i < N; i++) {
    want_lo = v[i] < want_lo ? v[i] : want_lo;
    want_hi = v[i] > want_hi ? v[i] : want_hi;
  }
  op_set s = op_decl_set(N, "s");
  op_dat dv = op_decl_dat(s, 1, "int", v, "v");
  capture c;
  capture_begin(&c, 2);
  for (int call = 0; call < 2; call++) {
    lo = 1 << 30, hi = -(1 << 30), mag = 0;
    op_par_loop(range_src, "range", s, op_arg_dat(dv, -1, OP_ID, 1, "int", OP_READ),
                op_arg_gbl(&lo, 1, "int", OP_MIN), op_arg_gbl(&hi, 1, "int", OP_MAX),
                op_arg_gbl(&mag, 1, "double", OP_INC));
    CHECK_EQ_INT(lo, want_lo);
    CHECK_EQ_INT(hi, want_hi);
    CHECK(mag == want_mag);
  }
  int count = 0, want_count = 0;
  for (int i = 0; i < N; i++) want_count += v[i] > 0;
  op_par_loop(positives_src, "positives", s, op_arg_dat(dv, -1, OP_ID, 1, "int", OP_READ),
              op_arg_gbl(&count, 1, "int", OP_INC));
  CHECK_EQ_INT(count, want_count);
  char *diag = capture_end(&c);
  if (strcmp(getenv("OP2_BACKEND"), "cuda-emu") == 0) { /* its own build, said on every load */
    CHECK(strstr(diag, "kernel 'range' is not C: its emulated CUDA code is built as C++ by "));
    free(diag);
    return -1;
  }
  /* The first call's cost, or the cache hit of a second process. */
  CHECK(strstr(diag, "kernel 'range' is C++: compiled as C++ by ") ||
        strstr(diag, "kernel 'range' is C++: its C++ build ("));
  CHECK(strstr(diag, "kernel 'positives' is C++: "));
  int from_cache = strstr(diag, "kernel 'range' is C++: its C++ build (") != NULL;
  free(diag);
  capture_begin(&c, 1);
  op_timing_output();
  char *table = capture_end(&c);
  const char *row = strstr(table, "\n  range ");
  CHECK(row != NULL);
  /* Both calls ran optimised code ("0/2"): there is no TinyCC code for this kernel. */
  CHECK(strstr(row, " 0/2 ") != NULL);
  CHECK(strstr(row, from_cache ? "C++, disk cache" : "C++, compiled") != NULL);
  free(table);
  EXPECT_ERROR(op_par_loop(broken_src, "broken", s, op_arg_dat(dv, -1, OP_ID, 1, "int", OP_RW)),
               "nor as C++ (OP2_CXX):");
  return from_cache;
}

int main(int argc, char **argv) {
  CHECK(argc >= 2 && getenv("OP2_BACKEND"));
  /* A fresh kernel cache: the first process compiles, the second loads. */
  char cache[] = "/tmp/op2-t744-XXXXXX", rm[64];
  CHECK(mkdtemp(cache) != NULL && setenv("OP2_CACHE_DIR", cache, 1) == 0);
  snprintf(rm, sizeof rm, "rm -rf %s", cache);
  test_catch_errors();
  op_init(argc, argv, 1);
  if (strcmp(argv[1], "off") == 0) {
    int v[4] = {1, 2, 3, 4}, lo = 100, hi = -100;
    double mag = 0;
    op_set s = op_decl_set(4, "s");
    op_dat dv = op_decl_dat(s, 1, "int", v, "v");
    EXPECT_ERROR(op_par_loop(range_src, "range", s, op_arg_dat(dv, -1, OP_ID, 1, "int", OP_READ),
                             op_arg_gbl(&lo, 1, "int", OP_MIN), op_arg_gbl(&hi, 1, "int", OP_MAX),
                             op_arg_gbl(&mag, 1, "double", OP_INC)),
                 "the kernel does not compile");
    CHECK(!strstr(op_last_error(), "C++"));
    op_exit();
    CHECK(system(rm) == 0);
    printf("OP2_CXX=off: refused\n");
    return 0;
  }
  int emu = strcmp(getenv("OP2_BACKEND"), "cuda-emu") == 0;
  CHECK(run() == (emu ? -1 : 0)); /* compiled */
  op_exit();
  op_init(argc, argv, 1);
  CHECK(run() == (emu ? -1 : 1)); /* the same kernel again: from the cache, no compile */
  op_exit();
  CHECK(system(rm) == 0);
  printf("C++ kernels: passed\n");
  return 0;
}
