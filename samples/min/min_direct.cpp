/* SPDX-License-Identifier: BSD-3-Clause */
// OP2's min sample, direct form, ported as docs/PORTING.md says: an OP_MIN reduction of int data
// through a C++ kernel. Values (i - 10)^2 + 5 over 20 elements: the minimum, 5, is in the middle.
#include <cstdio>
#include <limits>
#include <vector>

#include "op_seq.h"

#include "min_kernel.h"

constexpr int size = 20;

int main(int argc, char **argv) {
  op_init(argc, argv, 2);
  auto s1 = op_decl_set(size, "s1");
  std::vector<int> data;
  int actual_min = std::numeric_limits<int>::max();
  for (int i = 0; i < size; ++i) {
    int v = (i - size / 2) * (i - size / 2) + 5;
    data.push_back(v);
    actual_min = std::min(actual_min, v);
  }
  auto d1 = op_decl_dat(s1, 1, "int", data.data(), "d1");
  op_partition("RANDOM", nullptr, nullptr, nullptr, nullptr);

  int min = std::numeric_limits<int>::max();
  op_par_loop(min_kernel, "min_kernel", s1, op_arg_dat(d1, -1, OP_ID, 1, "int", OP_READ),
              op_arg_gbl(&min, 1, "int", OP_MIN));
  std::printf("min: %d (expected: %d)\n", min, actual_min);
  op_exit();
  if (min != actual_min) exit(1);
}
