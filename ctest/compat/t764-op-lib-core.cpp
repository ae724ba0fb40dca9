/* SPDX-License-Identifier: BSD-3-Clause */
/* A program that includes OP2's "op_lib_core.h", as OP2 programs and their helper files do, and
 * uses what OP2's header gives it: the API, the shorthand types, the rounding macros, MIN/MAX,
 * op_timers_core, op_print, round32 and the C++ headers it brings (std::cout, std::numeric_limits,
 * std::runtime_error). Built as an installed program sees the headers (op2_public_dep). */
#include "op_lib_core.h"

static const char *twice_src = "void twice(const int *a, int *b) { *b = 2 * *a; }\n";

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  uint n = 7;
  ll big = std::numeric_limits<int>::max() + 1LL;
  ull ubig = (ull)big * 2;
  idx_l_t local = (idx_l_t)n;
  idx_g_t global = big;
  op_set s = op_decl_set(local, "s");
  int a[7];
  for (uint i = 0; i < n; i++) a[i] = (int)i;
  op_dat da = op_decl_dat(s, 1, "int", a, "a");
  op_dat db = op_decl_dat(s, 1, "int", NULL, "b");
  double c0, w0, c1, w1;
  op_timers_core(&c0, &w0);
  op_par_loop(twice_src, "twice", s, op_arg_dat(da, -1, OP_ID, 1, "int", OP_READ),
              op_arg_dat(db, -1, OP_ID, 1, "int", OP_WRITE));
  int b[7];
  op_fetch_data(db, b);
  op_timers_core(&c1, &w1);
  op_print("t764: op_print");
  int bad = 0;
  for (uint i = 0; i < n; i++) bad += b[i] != 2 * (int)i;
  bad += ROUND_UP(17) != 32 || ROUND_UP_64(65) != 128 || round32(33) != 64;
  bad += MIN(3, 4) != 3 || MAX(3, 4) != 4 || OP2_ALIGNMENT != 64;
  bad += ubig != 2ULL * ((ull)1 << 31) || global != big || w1 < w0;
  try {
    if (bad) throw std::runtime_error("wrong values");
  } catch (const std::runtime_error &e) {
    std::cout << "t764: " << e.what() << " (" << bad << ")\n";
  }
  op_exit();
  std::cout << "t764: " << (bad ? "FAILED" : "passed") << "\n";
  return bad ? 1 : 0;
}
