/* SPDX-License-Identifier: BSD-3-Clause */
// A node's value set to a given one (the initial state).
inline void set_value(double *u, const double *c) {
  *u = *c;
}
