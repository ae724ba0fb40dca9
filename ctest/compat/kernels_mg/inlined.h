/* SPDX-License-Identifier: BSD-3-Clause */
// Helpers as real OP2 headers declare them (MG-CFD's inlined_funcs.h writes `static
// OP_FUN_PREFIX inline`, OP_FUN_PREFIX empty unless CUDA): every order of static, inline, macros
// and attributes. t755's kernel calls each.
#ifndef T755_INLINED_H
#define T755_INLINED_H
#ifndef OP_FUN_PREFIX
#define OP_FUN_PREFIX
#endif
#define FORCE_INLINE inline
#define LOCAL_INLINE static inline

static OP_FUN_PREFIX inline double h_static_macro_inline(double x) {
  return x + 1.0;
}
static inline OP_FUN_PREFIX double h_static_inline_macro(double x) {
  return 2.0 * x;
}
inline static double h_inline_static(double x) {
  return x - 3.0;
}
OP_FUN_PREFIX inline double h_macro_inline(double x) {
  return x * x;
}
__inline__ double h_gnu_inline(double x) {
  return 0.5 * x;
}
FORCE_INLINE double h_macro_is_inline(double x) {
  return x + 0.25;
}
LOCAL_INLINE double h_macro_is_static_inline(double x) {
  return x - 0.125;
}
__attribute__((unused)) inline double h_attribute_first(double x) {
  return 4.0 * x;
}
// never inlined: a call to it remains (with C99's plain inline, an undefined symbol)
inline __attribute__((noinline)) double h_plain(double x) {
  return x / 8.0;
}
#endif
