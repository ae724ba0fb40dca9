/* SPDX-License-Identifier: BSD-3-Clause */
// A shared header of C++ helpers, as real OP2 programs have (MG-CFD's utils.h and config.h: a
// namespace, templates, a class, overloads), included by the kernel header blend_kernel.h.
#ifndef T756_CXX_HELPERS_H
#define T756_CXX_HELPERS_H
namespace t756 {
enum Mode { Plain, Weighted };
}
template <typename T>
T squared(T x) {
  return x * x;
}
template <typename T, int N>
struct Sum {
  T s[N];
  void add(int i, T v) { s[i % N] += v; }
  T total() const {
    T t = 0;
    for (int i = 0; i < N; i++) t += s[i];
    return t;
  }
};
inline double blend(double a, double b) {
  return 0.5 * (a + b);
}
inline float blend(float a, float b) {
  return a + b;
}
#endif
