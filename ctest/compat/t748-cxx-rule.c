/* SPDX-License-Identifier: BSD-3-Clause */
/* What makes a kernel C++ is a C compiler's rejection of it, not what its text looks like. A C
 * kernel with "::" in a comment, in a string and in a block only C++ compiles (#ifdef
 * __cplusplus, as headers shared with C++ programs have) is C: it runs TinyCC code at once and is
 * never handed to the C++ compiler. A kernel TinyCC rejects still is (t744). */
#include "capture.h"

enum { N = 100 };

static const char *lowest_src =
    "#ifdef __cplusplus\n"
    "#define OP2_T748_BIG std::numeric_limits<int>::max()\n"
    "#else\n"
    "#define OP2_T748_BIG 2147483647\n"
    "#endif\n"
    "/* like std::min, see Mesh::lowest */\n"
    "void lowest(const int *v, int *lo) {\n"
    "  const char *tag = \"a::b\";\n"
    "  (void)tag;\n"
    "  if (*lo == OP2_T748_BIG || *v < *lo) *lo = *v; // Mesh::lowest\n"
    "}\n";

int main(int argc, char **argv) {
  char cache[] = "/tmp/op2-t748-XXXXXX", rm[64];
  CHECK(mkdtemp(cache) != NULL && setenv("OP2_CACHE_DIR", cache, 1) == 0);
  snprintf(rm, sizeof rm, "rm -rf %s", cache);
  setenv("OP2_DIAGS", "1", 1);
  /* TinyCC's tier only (a rejection still goes to C++): tiered, the optimised build could finish
   * during the warnings check (OP2_DIAGS=1) and run the first call, which the row below counts */
  setenv("OP2_JIT", "tcc", 1);
  op_init(argc, argv, 1);
  int v[N], want = 1 << 30;
  for (int i = 0; i < N; i++) v[i] = (i * 37) % 101 - 50, want = v[i] < want ? v[i] : want;
  op_set s = op_decl_set(N, "s");
  op_dat dv = op_decl_dat(s, 1, "int", v, "v");
  capture c;
  capture_begin(&c, 2);
  int lo = 2147483647;
  op_par_loop(lowest_src, "lowest", s, op_arg_dat(dv, -1, OP_ID, 1, "int", OP_READ),
              op_arg_gbl(&lo, 1, "int", OP_MIN));
  char *diag = capture_end(&c);
  CHECK_EQ_INT(lo, want);
  CHECK(strstr(diag, "is C++") == NULL);
  free(diag);
  capture_begin(&c, 1);
  op_timing_output();
  char *table = capture_end(&c);
  const char *row = strstr(table, "\n  lowest ");
  CHECK(row != NULL);
  const char *end = strchr(row + 1, '\n');
  CHECK(end != NULL);
  /* its one call ran TinyCC code ("1/0"), compiled as C */
  CHECK(strstr(row, " 1/0 ") != NULL && strstr(row, " 1/0 ") < end);
  CHECK(strstr(row, "C++") == NULL || strstr(row, "C++") > end);
  free(table);
  op_exit();
  CHECK(system(rm) == 0);
  printf("t748: a C kernel with '::' outside its C code is C\n");
  return 0;
}
