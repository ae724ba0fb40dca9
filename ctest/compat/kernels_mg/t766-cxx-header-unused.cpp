/* SPDX-License-Identifier: BSD-3-Clause */
// A kernel whose header includes the program's C++ header for nothing the kernel calls
// (edge_flux_kernel.h, as MG-CFD's flux.h includes config.h): the kernel is C, so it runs on
// TinyCC's code at once and its optimised build goes to the background, with the C++ compiler
// switched off too (OP2_CXX=off in one run). A second kernel's header (t766_validation.h, as
// MG-CFD's validation.h) uses a macro of a header the calling file includes before it: C with
// what it reaches of the calling file. Results equal to g++'s build of the same kernels.
#include "op_seq.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "t766_const.h"
#include "edge_flux_kernel.h"
#include "t766_validation.h"

#include "cxx_check.h"

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  const int n = 96;
  std::vector<double> q(3 * n), w(n), flux(n, 0.25), want(n, 0.25);
  for (int i = 0; i < n; i++) {
    q[3 * i] = 0.5 + 0.125 * (i % 11);
    q[3 * i + 1] = 0.3 * (i % 7) - 1.0;
    q[3 * i + 2] = 0.1 * (i % 5);
    w[i] = 1.0 + 0.01 * i;
  }
  op_set set = op_decl_set(n, "edges");
  op_dat pq = op_decl_dat(set, 3, "double", q.data(), "q");
  op_dat pw = op_decl_dat(set, 1, "double", w.data(), "w");
  op_dat pf = op_decl_dat(set, 1, "double", flux.data(), "flux");
  for (int it = 0; it < 2; it++)
    op_par_loop(edge_flux_kernel, "edge_flux_kernel", set,
                op_arg_dat(pq, -1, OP_ID, 3, "double", OP_READ),
                op_arg_dat(pw, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(pf, -1, OP_ID, 1, "double", OP_RW));
  op_fetch_data(pf, flux.data());
  for (int i = 0; i < n; i++) {
    for (int it = 0; it < 2; it++) edge_flux_kernel(&q[3 * i], &w[i], &want[i]);
    CHECK(flux[i] == want[i]);
  }
  CHECK(face_name(Wall) == "wall");
  std::vector<double> change(3 * n), q0(3 * n);
  for (int k = 0; k < 3 * n; k++) q0[k] = 0.0625 * (k % 13) - 0.3;
  op_dat pc = op_decl_dat(set, 3, "double", nullptr, "change");
  op_dat pq0 = op_decl_dat(set, 3, "double", q0.data(), "q0");
  op_par_loop(change_kernel, "change_kernel", set, op_arg_dat(pq0, -1, OP_ID, 3, "double", OP_READ),
              op_arg_dat(pq, -1, OP_ID, 3, "double", OP_READ),
              op_arg_dat(pc, -1, OP_ID, 3, "double", OP_WRITE));
  op_fetch_data(pc, change.data());
  for (int i = 0; i < n; i++) {
    double got[3];
    change_kernel(&q0[3 * i], &q[3 * i], got);
    for (int c = 0; c < 3; c++) CHECK(change[3 * i + c] == got[c]);
  }
  op_printf("kernel with an unused C++ header: passed\n");
  op_exit();
  return 0;
}
