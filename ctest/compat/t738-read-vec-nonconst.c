/* SPDX-License-Identifier: BSD-3-Clause */
/* A read-only vector argument (op_arg_dat with idx -4, OP_READ) reaches a kernel that declares it
 * without const, `double **x`, as OP2's aero kernels do, and one that declares it `const double
 * **`. C accepts both (a warning at most); the CUDA text is C++, where neither conversion between
 * const T ** and T ** exists: run under cuda-emu with OP2_CUDA_EMU_VERIFY, so NVRTC compiles every
 * kernel too, this failed for the non-const one before OP2_READ_VEC. A kernel that needs C++
 * (std::min) is built as C++ on every backend, where the same holds. */
#include "test.h"

static const char *nonconst_src =
    "inline void sum_nc(double **x, double *s) {\n"
    "  s[0] = x[0][0] + x[1][0] + x[2][0] + x[3][0];\n"
    "}\n";
/* std::min makes it C++ (TinyCC rejects it; the system C++ compiler, or the emulator's C++ build)
 */
static const char *cxx_src =
    "inline void sum_cxx(double **x, double *s) {\n"
    "  s[0] = std::min(x[0][0], 1e300) + x[1][0] + x[2][0] + x[3][0];\n"
    "}\n";
static const char *const_src =
    "inline void sum_c(const double **x, double *s) {\n"
    "  s[0] = x[0][0] + x[1][0] + x[2][0] + x[3][0];\n"
    "}\n";

int main(int argc, char **argv) {
  test_catch_errors();
  op_init(argc, argv, 0);
  enum { NNODE = 40, NCELL = 30 };
  int cell[4 * NCELL];
  double x[NNODE], s[NCELL];
  for (int n = 0; n < NNODE; n++) x[n] = 1.5 * n - 3;
  for (int c = 0; c < NCELL; c++)
    for (int k = 0; k < 4; k++) cell[4 * c + k] = (7 * c + 3 * k) % NNODE;
  op_set nodes = op_decl_set(NNODE, "nodes"), cells = op_decl_set(NCELL, "cells");
  op_map pcell = op_decl_map(cells, nodes, 4, cell, "pcell");
  op_dat dx = op_decl_dat(nodes, 1, "double", x, "x");
  op_dat ds = op_decl_dat(cells, 1, "double", NULL, "s");
  const char *srcs[3] = {nonconst_src, const_src, cxx_src};
  const char *names[3] = {"sum_nc", "sum_c", "sum_cxx"};
  for (int v = 0; v < 3; v++) {
    op_par_loop(srcs[v], names[v], cells, op_arg_dat(dx, -4, pcell, 1, "double", OP_READ),
                op_arg_dat(ds, -1, OP_ID, 1, "double", OP_WRITE));
    op_fetch_data(ds, s);
    for (int c = 0; c < NCELL; c++)
      CHECK(s[c] == x[cell[4 * c]] + x[cell[4 * c + 1]] + x[cell[4 * c + 2]] + x[cell[4 * c + 3]]);
  }
  op_exit();
  return 0;
}
