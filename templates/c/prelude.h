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
