/* SPDX-License-Identifier: BSD-3-Clause */
// Reduction test, indirect loop: every edge counts itself (and writes through its map).
inline void res_calc(double *data, int *count) {
  data[0] = 0.0;
  (*count)++;
}
