/* SPDX-License-Identifier: BSD-3-Clause */
/* op2jit prelude for C kernels: what every kernel may use without including anything.
 * It declares the C99 math functions itself instead of including <math.h>: parsing glibc's
 * headers is most of TinyCC's compile time. A kernel may still include
 * <math.h>; the declarations agree. Both compilers treat these names as the standard functions,
 * so gcc still inlines sqrt, fabs, fmin, ... */
#ifndef NULL
#define NULL ((void *)0)
#endif
typedef __SIZE_TYPE__ size_t;
int printf(const char *, ...); /* kernels print while being debugged; <stdio.h> agrees */

#define OP2_MATH1(name) double name(double); float name##f(float);
#define OP2_MATH2(name) double name(double, double); float name##f(float, float);
OP2_MATH1(sqrt) OP2_MATH1(cbrt) OP2_MATH1(fabs) OP2_MATH1(exp) OP2_MATH1(exp2)
OP2_MATH1(expm1) OP2_MATH1(log) OP2_MATH1(log2) OP2_MATH1(log10) OP2_MATH1(log1p)
OP2_MATH1(sin) OP2_MATH1(cos) OP2_MATH1(tan) OP2_MATH1(asin) OP2_MATH1(acos) OP2_MATH1(atan)
OP2_MATH1(sinh) OP2_MATH1(cosh) OP2_MATH1(tanh) OP2_MATH1(asinh) OP2_MATH1(acosh)
OP2_MATH1(atanh) OP2_MATH1(floor) OP2_MATH1(ceil) OP2_MATH1(round) OP2_MATH1(trunc)
OP2_MATH1(rint) OP2_MATH1(erf) OP2_MATH1(erfc) OP2_MATH1(tgamma) OP2_MATH1(lgamma)
OP2_MATH2(pow) OP2_MATH2(atan2) OP2_MATH2(fmin) OP2_MATH2(fmax) OP2_MATH2(fmod)
OP2_MATH2(hypot) OP2_MATH2(copysign) OP2_MATH2(fdim) OP2_MATH2(remainder)
#undef OP2_MATH1
#undef OP2_MATH2
int abs(int);
long labs(long);
long long llabs(long long);

#ifndef __cplusplus
/* Type-generic math, as <tgmath.h> (which TinyCC cannot parse) and as C++'s overloads, which
 * OP2's kernels are written for: sqrt of a float is sqrtf, so single-precision kernels compute
 * in float as OP2's C++ build does; anything else (double, integers) calls the double function. */
#define OP2_TG1(fn, x) _Generic((x), float: fn##f, default: fn)(x)
#define OP2_TG2(fn, x, y) \
  _Generic((x), float: _Generic((y), float: fn##f, default: fn), default: fn)(x, y)
#define sqrt(x) OP2_TG1(sqrt, x)
#define cbrt(x) OP2_TG1(cbrt, x)
#define fabs(x) OP2_TG1(fabs, x)
#define exp(x) OP2_TG1(exp, x)
#define exp2(x) OP2_TG1(exp2, x)
#define expm1(x) OP2_TG1(expm1, x)
#define log(x) OP2_TG1(log, x)
#define log2(x) OP2_TG1(log2, x)
#define log10(x) OP2_TG1(log10, x)
#define log1p(x) OP2_TG1(log1p, x)
#define sin(x) OP2_TG1(sin, x)
#define cos(x) OP2_TG1(cos, x)
#define tan(x) OP2_TG1(tan, x)
#define asin(x) OP2_TG1(asin, x)
#define acos(x) OP2_TG1(acos, x)
#define atan(x) OP2_TG1(atan, x)
#define sinh(x) OP2_TG1(sinh, x)
#define cosh(x) OP2_TG1(cosh, x)
#define tanh(x) OP2_TG1(tanh, x)
#define asinh(x) OP2_TG1(asinh, x)
#define acosh(x) OP2_TG1(acosh, x)
#define atanh(x) OP2_TG1(atanh, x)
#define floor(x) OP2_TG1(floor, x)
#define ceil(x) OP2_TG1(ceil, x)
#define round(x) OP2_TG1(round, x)
#define trunc(x) OP2_TG1(trunc, x)
#define rint(x) OP2_TG1(rint, x)
#define erf(x) OP2_TG1(erf, x)
#define erfc(x) OP2_TG1(erfc, x)
#define tgamma(x) OP2_TG1(tgamma, x)
#define lgamma(x) OP2_TG1(lgamma, x)
#define pow(x, y) OP2_TG2(pow, x, y)
#define atan2(x, y) OP2_TG2(atan2, x, y)
#define fmin(x, y) OP2_TG2(fmin, x, y)
#define fmax(x, y) OP2_TG2(fmax, x, y)
#define fmod(x, y) OP2_TG2(fmod, x, y)
#define hypot(x, y) OP2_TG2(hypot, x, y)
#define copysign(x, y) OP2_TG2(copysign, x, y)
#define fdim(x, y) OP2_TG2(fdim, x, y)
#define remainder(x, y) OP2_TG2(remainder, x, y)
/* std::min, std::max and std::abs of OP2's C++ kernels (the kernel text names them so):
 * both arguments of min and max have one type in C++; abs keeps its argument's type. */
#define op2_std_min(a, b) ((b) < (a) ? (b) : (a))
#define op2_std_max(a, b) ((a) < (b) ? (b) : (a))
#define op2_std_abs(x) \
  _Generic((x), int: abs, long: labs, long long: llabs, float: fabsf, default: fabs)(x)

/* C++'s bool, true and false, as <stdbool.h> has them (a kernel may include it too: the
 * definitions agree); keywords from C23 on. */
#if !defined(__bool_true_false_are_defined) && \
    (!defined(__STDC_VERSION__) || __STDC_VERSION__ <= 201710L)
#define bool _Bool
#define true 1
#define false 0
#endif

/* <math.h>'s classification and comparison macros, for float and double: gcc's and clang's
 * built-ins (what <math.h> itself uses); TinyCC has none, and reads the bits. */
#ifndef FP_NAN
#define FP_NAN 0
#define FP_INFINITE 1
#define FP_ZERO 2
#define FP_SUBNORMAL 3
#define FP_NORMAL 4
#endif
#ifndef INFINITY
#if defined(__GNUC__) && !defined(__TINYC__)
#define INFINITY __builtin_inff()
#define NAN __builtin_nanf("")
#define HUGE_VAL __builtin_huge_val()
#define HUGE_VALF __builtin_huge_valf()
#else
#define INFINITY (((union { unsigned u; float f; }){0x7f800000u}).f)
#define NAN (((union { unsigned u; float f; }){0x7fc00000u}).f)
#define HUGE_VAL ((double)INFINITY)
#define HUGE_VALF INFINITY
#endif
#endif
#ifndef isnan
#if defined(__GNUC__) && !defined(__TINYC__)
#define isnan(x) __builtin_isnan(x)
#define isinf(x) __builtin_isinf_sign(x)
#define isfinite(x) __builtin_isfinite(x)
#define isnormal(x) __builtin_isnormal(x)
#define signbit(x) __builtin_signbit(x)
#define fpclassify(x) \
  __builtin_fpclassify(FP_NAN, FP_INFINITE, FP_NORMAL, FP_SUBNORMAL, FP_ZERO, x)
#define isgreater(x, y) __builtin_isgreater(x, y)
#define isgreaterequal(x, y) __builtin_isgreaterequal(x, y)
#define isless(x, y) __builtin_isless(x, y)
#define islessequal(x, y) __builtin_islessequal(x, y)
#define islessgreater(x, y) __builtin_islessgreater(x, y)
#define isunordered(x, y) __builtin_isunordered(x, y)
#else
/* The class from the exponent's bits (all ones: infinite or NaN by the fraction; zero: zero or
 * subnormal); integers and long double as double, as C converts them. */
static inline int op2_fpclassify_d(double x) {
  union { double d; unsigned long long u; } v = {x};
  unsigned long long e = v.u >> 52 & 0x7ff, f = v.u & 0xfffffffffffffull;
  return e == 0x7ff ? (f ? FP_NAN : FP_INFINITE) : e ? FP_NORMAL : f ? FP_SUBNORMAL : FP_ZERO;
}
static inline int op2_fpclassify_f(float x) {
  union { float f; unsigned u; } v = {x};
  unsigned e = v.u >> 23 & 0xff, f = v.u & 0x7fffff;
  return e == 0xff ? (f ? FP_NAN : FP_INFINITE) : e ? FP_NORMAL : f ? FP_SUBNORMAL : FP_ZERO;
}
static inline int op2_signbit_d(double x) {
  union { double d; unsigned long long u; } v = {x};
  return (int)(v.u >> 63);
}
static inline int op2_signbit_f(float x) {
  union { float f; unsigned u; } v = {x};
  return (int)(v.u >> 31);
}
/* each argument evaluated once; a float compared as the double it converts to exactly */
static inline int op2_isinf_d(double x) {
  return op2_fpclassify_d(x) == FP_INFINITE ? (op2_signbit_d(x) ? -1 : 1) : 0;
}
static inline int op2_isinf_f(float x) {
  return op2_isinf_d(x);
}
static inline int op2_isunordered(double x, double y) {
  return op2_fpclassify_d(x) == FP_NAN || op2_fpclassify_d(y) == FP_NAN;
}
#define OP2_FP_COMPARE(name, op)                     \
  static inline int op2_##name(double x, double y) { \
    return !op2_isunordered(x, y) && (op);           \
  }
OP2_FP_COMPARE(isgreater, x > y)
OP2_FP_COMPARE(isgreaterequal, x >= y)
OP2_FP_COMPARE(isless, x < y)
OP2_FP_COMPARE(islessequal, x <= y)
OP2_FP_COMPARE(islessgreater, x < y || x > y)
#undef OP2_FP_COMPARE
#define OP2_FP_CLASS(x) _Generic((x), float: op2_fpclassify_f, default: op2_fpclassify_d)(x)
#define fpclassify(x) OP2_FP_CLASS(x)
#define signbit(x) _Generic((x), float: op2_signbit_f, default: op2_signbit_d)(x)
#define isnan(x) (OP2_FP_CLASS(x) == FP_NAN)
#define isinf(x) _Generic((x), float: op2_isinf_f, default: op2_isinf_d)(x)
#define isfinite(x) (OP2_FP_CLASS(x) >= FP_ZERO)
#define isnormal(x) (OP2_FP_CLASS(x) == FP_NORMAL)
#define isunordered(x, y) op2_isunordered(x, y)
#define isgreater(x, y) op2_isgreater(x, y)
#define isgreaterequal(x, y) op2_isgreaterequal(x, y)
#define isless(x, y) op2_isless(x, y)
#define islessequal(x, y) op2_islessequal(x, y)
#define islessgreater(x, y) op2_islessgreater(x, y)
#endif
#endif
#else
#define op2_std_min(a, b) std::min(a, b)
#define op2_std_max(a, b) std::max(a, b)
#define op2_std_abs(x) std::abs(x)
#endif

/* The user's kernel text lies between these. The C++ tier includes the generated file inside
 * extern "C", so that the entry point and the live constants keep their C names; the user's text
 * keeps C++ linkage, as in the program (its headers may hold templates, classes, overloads). */
#ifdef __cplusplus
#define OP2_USER_TEXT_BEGIN extern "C++" {
#define OP2_USER_TEXT_END }
#else
#define OP2_USER_TEXT_BEGIN
#define OP2_USER_TEXT_END
#endif

/* A reference argument of a helper, lowered to a pointer (jit/cxx_lower.c): its address, and in
 * C a compile error unless it is an lvalue of the parameter's type, where C++ would bind a
 * converted temporary. The C++ tier then builds the same text: there the argument binds to a
 * reference as written (a temporary lives to the end of the full expression, past the call). */
#ifdef __cplusplus
extern "C++" {
template <class T> static inline T *op2_cxx_ref_(T &a) { return &a; }
template <class T> static inline const T *op2_cxx_ref_(const T &a) { return &a; }
}
#define op2_cxx_ref(T, a) op2_cxx_ref_<T>(a)
#else
#define op2_cxx_ref(T, a) _Generic((a), T: &(a))
#endif

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#ifndef MIN
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#endif
#ifndef MAX
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#endif
/* OP2's kernels index dats declared "double:soa" as OP2_STRIDE(arr, i); they are stored
 * element by element here. */
#ifndef OP2_STRIDE
#define OP2_STRIDE(arr, idx) ((arr)[idx])
#endif
