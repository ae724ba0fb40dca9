/* SPDX-License-Identifier: BSD-3-Clause */
// A kernel including a header with templates, a class template, a namespace and overloads
// (cxx_helpers.h, as MG-CFD's utils.h and config.h): built by the C++ tier, which includes the
// generated file inside extern "C" for its entry point: the user's text must keep C++ linkage
// there ("template with C linkage" otherwise). Results equal to g++'s build of the same kernel.
#include "op_seq.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "blend_kernel.h"

#include "cxx_check.h"

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  const int n = 64;
  std::vector<double> x(n), y(n), want(n);
  std::vector<float> f(n);
  for (int i = 0; i < n; i++) x[i] = 0.75 * (i % 9) - 3.0, f[i] = 0.5f * (float)(i % 5);
  op_set set = op_decl_set(n, "nodes");
  op_dat px = op_decl_dat(set, 1, "double", x.data(), "x");
  op_dat pf = op_decl_dat(set, 1, "float", f.data(), "f");
  op_dat py = op_decl_dat(set, 1, "double", nullptr, "y");
  op_par_loop(blend_kernel, "blend_kernel", set, op_arg_dat(px, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(pf, -1, OP_ID, 1, "float", OP_READ),
              op_arg_dat(py, -1, OP_ID, 1, "double", OP_WRITE));
  op_fetch_data(py, y.data());
  for (int i = 0; i < n; i++) {
    blend_kernel(&x[i], &f[i], &want[i]);
    CHECK(y[i] == want[i]);
  }
  op_printf("kernel with a C++ header: passed\n");
  op_exit();
  return 0;
}
