/* SPDX-License-Identifier: BSD-3-Clause */
// A header that uses what the calling file included before it, as MG-CFD's utils.h uses
// std::ostringstream from euler3d.cpp's <sstream> and validation.h NVAR from its const.h: OP2
// compiles the kernel inside the calling file. C++ (a template, std::string): the C++ tier
// builds its kernel, with user_types.h both before it (the search's) and in the calling file.
#ifndef T754_TEXTS_H
#define T754_TEXTS_H
#include <string>
template <typename T>
std::string as_text(T v) {
  std::ostringstream ss;
  ss << v;
  return ss.str();
}
inline void text_len(const double *x, double *n) {
  t754_range r = {0.0, 0.5};
  n[0] = (double)as_text(x[0]).size() + NVAR + r.hi;
}
#endif
