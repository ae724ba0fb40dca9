/* SPDX-License-Identifier: BSD-3-Clause */
// OP2's min sample, indirect form, ported as docs/PORTING.md says: the OP_MIN reduction reads
// the data through a map from a set half the size (every other element: 0, 2, 4, ...).
#include <cstdio>
#include <limits>
#include <vector>

#include "op_seq.h"

#include "min_kernel.h"

constexpr int size = 20;

int main(int argc, char **argv) {
  op_init(argc, argv, 2);
  auto s1 = op_decl_set(size, "s1");
  auto s2 = op_decl_set(size / 2, "s2");
  std::vector<int> data;
  int actual_min = std::numeric_limits<int>::max();
  for (int i = 0; i < size; ++i) {
    int v = (i - size / 2) * (i - size / 2) + 5;
    data.push_back(v);
    actual_min = std::min(actual_min, v);  // element 10, which the map reaches
  }
  auto d1 = op_decl_dat(s1, 1, "int", data.data(), "d1");
  std::vector<int> every_other;
  for (int i = 0; i < size / 2; ++i) every_other.push_back(2 * i);
  auto m1 = op_decl_map(s2, s1, 1, every_other.data(), "m1");
  op_partition("RANDOM", nullptr, nullptr, nullptr, nullptr);

  int min = std::numeric_limits<int>::max();
  op_par_loop(min_kernel, "min_kernel", s2, op_arg_dat(d1, 0, m1, 1, "int", OP_READ),
              op_arg_gbl(&min, 1, "int", OP_MIN));
  std::printf("min: %d (expected: %d)\n", min, actual_min);
  op_exit();
  if (min != actual_min) exit(1);
}
