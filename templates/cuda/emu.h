/* SPDX-License-Identifier: BSD-3-Clause */
/* The CUDA built-ins the generated kernels use, for compiling the generated .cu text as C on the
 * host (the cuda-emu backend). Threads of a block are fibers run by the emulator: it points
 * op2_emu at its state, updates the indices before it resumes a thread, and __syncthreads()
 * switches to the next thread of the block until all have arrived. Follows templates/c/prelude.h
 * (math declarations, MIN, MAX) and templates/cuda/emu_env.h. */
#define OP2_EMULATION 1

static op2_emu_env *op2_emu;

#define threadIdx (op2_emu->thread_idx)
#define blockIdx (op2_emu->block_idx)
#define blockDim (op2_emu->block_dim)
#define gridDim (op2_emu->grid_dim)
#define __global__
#define __device__
#define __constant__
/* The barrier's line of the generated .cu: threads of a block must all reach the same one. */
#define __syncthreads() op2_emu->sync(__LINE__)

#define OP2_EXTERN_C
#define OP2_RESTRICT restrict
#define OP2_DYNAMIC_SHARED(name) char *name = op2_emu->shared
/* Traffic is counted per access site: each OP2_TOUCH, OP2_LDG and atomic add in the source gets
 * its own site number here, from __COUNTER__, so the generated text needs none. The race checker
 * names an access by its line of the generated .cu, __LINE__. OP2_TOUCH also marks the generated
 * code's shared-memory accesses: the emulator tells them apart by address. */
#define OP2_TOUCH_AT(site, line, kind, p, bytes) \
  (op2_emu->tracing ? op2_emu->touch(site, line, kind, (const void *)(p), bytes) : (void)0)
#define OP2_TOUCH(kind, p, bytes) OP2_TOUCH_AT(__COUNTER__, __LINE__, kind, p, bytes)
#define OP2_LDG(lvalue)                                                                      \
  (OP2_TOUCH_AT(__COUNTER__, __LINE__, OP2_ACCESS_LD, &(lvalue), (unsigned)sizeof(lvalue)), \
   (lvalue))
#define op2_atomic_add_double(p, v) op2_emu_atomic_add_double(__COUNTER__, __LINE__, p, v)
#define op2_atomic_add_float(p, v) op2_emu_atomic_add_float(__COUNTER__, __LINE__, p, v)
#define op2_atomic_add_int(p, v) op2_emu_atomic_add_int(__COUNTER__, __LINE__, p, v)
#define op2_atomic_add_longlong(p, v) op2_emu_atomic_add_longlong(__COUNTER__, __LINE__, p, v)

/* One thread runs at a time: the adds are atomic by construction. */
static inline void op2_emu_atomic_add_double(int site, int line, double *p, double v) {
  OP2_TOUCH_AT(site, line, 4, p, 8); /* OP2_ACCESS_ATOMIC: params.h follows */
  *p += v;
}
static inline void op2_emu_atomic_add_float(int site, int line, float *p, float v) {
  OP2_TOUCH_AT(site, line, 4, p, 4); /* OP2_ACCESS_ATOMIC: params.h follows */
  *p += v;
}
static inline void op2_emu_atomic_add_int(int site, int line, int *p, int v) {
  OP2_TOUCH_AT(site, line, 4, p, 4); /* OP2_ACCESS_ATOMIC: params.h follows */
  *p = (int)((unsigned)*p + (unsigned)v); /* wraps like the device's atomicAdd */
}
static inline void op2_emu_atomic_add_longlong(int site, int line, long long *p, long long v) {
  OP2_TOUCH_AT(site, line, 4, p, 8); /* OP2_ACCESS_ATOMIC: params.h follows */
  *p = (long long)((unsigned long long)*p + (unsigned long long)v);
}
