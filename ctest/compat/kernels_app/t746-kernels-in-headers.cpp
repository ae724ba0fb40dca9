/* SPDX-License-Identifier: BSD-3-Clause */
// OP2's programs as they keep their kernels: several in one header the calling file includes
// (kernels.h), helpers and types from the app's user_types.h, relative includes inside the
// headers (sub/helpers.h, which includes consts.h beside itself, and <cmath>), an `extern`
// declaration of an op_decl_const constant. Run from another directory than the one the program
// was built in: the kernels are still found, through the executable's location.
#include "op_seq.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

double ff[2] = {0.75, 2.5};

#include "user_types.h"  // the kernels use it, and do not include it
#include "kernels.h"

#include "cxx_check.h"

int main(int argc, char **argv) {
  op_init(argc, argv, 1);
  const int n = 1000;
  std::vector<double> x(n), y(n, 0.0);
  for (int i = 0; i < n; i++) x[i] = (i % 13) * 0.37 - 2.0;
  op_decl_const(2, "double", ff);
  op_set set = op_decl_set(n, "elements");
  op_dat px = op_decl_dat(set, 1, "double", x.data(), "x");
  op_dat py = op_decl_dat(set, 1, "double", y.data(), "y");
  double total = 0.0, want_total = 0.0;
  op_par_loop(k_scale, "k_scale", set, op_arg_dat(py, -1, OP_ID, 1, "double", OP_WRITE),
              op_arg_dat(px, -1, OP_ID, 1, "double", OP_READ));
  op_par_loop(k_sum, "k_sum", set, op_arg_dat(py, -1, OP_ID, 1, "double", OP_READ),
              op_arg_gbl(&total, 1, "double", OP_INC));
  std::vector<double> got(n), want(n);
  op_fetch_data(py, got.data());
  for (int i = 0; i < n; i++) {
    k_scale(&want[i], &x[i]);
    k_sum(&want[i], &want_total);
    CHECK(got[i] == want[i]);
  }
  // summed in another order by threads and GPU blocks
  CHECK(std::fabs(total - want_total) <= 1e-12 * std::fabs(want_total));
  op_printf("kernels in headers: passed\n");
  op_exit();
  return 0;
}
