/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OP2_EMULATION
/* op2jit prelude for CUDA kernels, compiled by NVRTC with -default-device: the user's plain C
 * functions become device functions without any change. The emulation backend compiles the same
 * file as C on the host; it defines OP2_EMULATION and supplies templates/cuda/emu.h instead of
 * this part. Everything after this prelude stays within the subset of CUDA that is also C. */
#define OP2_EXTERN_C extern "C"
#define OP2_RESTRICT __restrict__
/* Around the user's kernel text: C++ as it is (the emulator's prelude has its own). */
#define OP2_USER_TEXT_BEGIN
#define OP2_USER_TEXT_END
#define OP2_DYNAMIC_SHARED(name)        \
  extern __shared__ double op2_smem_[]; \
  char *name = (char *)op2_smem_
/* Memory accesses are only counted in emulation. */
#define OP2_TOUCH(kind, p, bytes) ((void)0)
#define OP2_LDG(lvalue) (lvalue)

#ifndef NULL
#define NULL 0
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

/* One name per type: C, which the emulator compiles, has no overloading. */
static __device__ inline void op2_atomic_add_double(double *p, double v) {
#if __CUDA_ARCH__ >= 600
  atomicAdd(p, v);
#else
  unsigned long long *a = (unsigned long long *)p, old = *a, seen;
  do {
    seen = old;
    old = atomicCAS(a, seen, __double_as_longlong(v + __longlong_as_double(seen)));
  } while (seen != old);
#endif
}
static __device__ inline void op2_atomic_add_float(float *p, float v) {
  atomicAdd(p, v);
}
static __device__ inline void op2_atomic_add_int(int *p, int v) {
  atomicAdd(p, v);
}
static __device__ inline void op2_atomic_add_longlong(long long *p, long long v) {
  /* two's complement: an unsigned add is the signed add */
  atomicAdd((unsigned long long *)p, (unsigned long long)v);
}
#define OP2_BOUNDS(threads) __launch_bounds__(threads)
/* OP2's C++ kernels may call std::min and std::max: NVRTC compiles C++ but has no <algorithm>.
 * (The emulator builds such kernels as C++ with the real header.) */
namespace std {
template <class T> __device__ inline const T &min(const T &a, const T &b) { return b < a ? b : a; }
template <class T> __device__ inline const T &max(const T &a, const T &b) { return a < b ? b : a; }
}
/* <math.h>'s classification and comparison macros that CUDA's device library lacks (it has
 * isnan, isinf, isfinite and signbit), for float and double as the C prelude has them; other
 * arithmetic types as double, as C converts them. */
#ifndef FP_NAN
#define FP_NAN 0
#define FP_INFINITE 1
#define FP_ZERO 2
#define FP_SUBNORMAL 3
#define FP_NORMAL 4
#endif
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#define NAN __int_as_float(0x7fc00000)
#define HUGE_VALF INFINITY
#define HUGE_VAL __longlong_as_double(0x7ff0000000000000ll)
#endif
static __device__ inline int op2_fpclassify(double x) {
  return isnan(x) ? FP_NAN : isinf(x) ? FP_INFINITE : x == 0.0 ? FP_ZERO
         : fabs(x) < 2.2250738585072014e-308 ? FP_SUBNORMAL : FP_NORMAL;
}
static __device__ inline int op2_fpclassify(float x) {
  return isnan(x) ? FP_NAN : isinf(x) ? FP_INFINITE : x == 0.0f ? FP_ZERO
         : fabsf(x) < 1.17549435e-38f ? FP_SUBNORMAL : FP_NORMAL;
}
template <class T> __device__ inline int op2_fpclassify(T x) { return op2_fpclassify((double)x); }
static __device__ inline bool op2_isunordered(double x, double y) { return isnan(x) || isnan(y); }
#define fpclassify(x) op2_fpclassify(x)
#define isnormal(x) (op2_fpclassify(x) == FP_NORMAL)
#define isunordered(x, y) op2_isunordered(x, y)
#define isgreater(x, y) (!op2_isunordered(x, y) && (double)(x) > (double)(y))
#define isgreaterequal(x, y) (!op2_isunordered(x, y) && (double)(x) >= (double)(y))
#define isless(x, y) (!op2_isunordered(x, y) && (double)(x) < (double)(y))
#define islessequal(x, y) (!op2_isunordered(x, y) && (double)(x) <= (double)(y))
#define islessgreater(x, y) (!op2_isunordered(x, y) && (double)(x) != (double)(y))
#endif
/* A read-only vector argument (op_arg_dat with idx -k, OP_READ) is an array of const T *. OP2's
 * kernels often declare it `T **`, and C++ (NVRTC, or the emulator building a C++ kernel)
 * converts const T ** neither to T ** nor from T **: the argument converts to whichever of the two
 * the kernel declares. C passes const T ** to a T ** parameter with a warning. */
#ifdef __cplusplus
extern "C++" { /* the emulator's C++ build includes this file inside extern "C" */
template <typename T> struct op2_read_vec {
  const T **v;
  __device__ operator const T **() const { return v; }
  __device__ operator T **() const { return (T **)v; }
};
}
#define OP2_READ_VEC(T, v) (op2_read_vec<T>{(v)})
#else
#define OP2_READ_VEC(T, v) (v)
#endif
#ifndef OP2_BOUNDS /* emulation: blocks have no register budget */
#define OP2_BOUNDS(threads)
#endif
