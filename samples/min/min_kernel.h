/* SPDX-License-Identifier: BSD-3-Clause */
// OP2's min sample kernel: C++ (std::min), so TinyCC cannot compile it and the system C++
// compiler does (OP2_CXX).
void min_kernel(const int *d, int *min) {
  *min = std::min(*d, *min);
}
