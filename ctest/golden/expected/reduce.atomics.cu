#line 2 "reduce.cu"
/* op2jit generated CUDA kernel. Signature:
 *   loop reduce, target cuda, codegen 1
 *   arg 0: dat 0 double[1] OP_READ direct
 *   arg 1: dat 1 double[1] OP_READ through map 0 (arity 2) column 0
 *   arg 2: global double[2] OP_INC
 *   arg 3: global int[1] OP_MIN
 *   arg 4: global float[1] OP_MAX
 *   strategy atomics
 *   constant gamma_ double[1]
 *   constant coeffs double[2]
 */
#ifndef OP2_EMULATION
/* template cuda/prelude.h */
#endif
/* template cuda/params.h */

/* Constants the kernel uses, baked in: a new value is a new kernel. */
static const double gamma_ = 0x1.6666666666666p+0 /* 1.3999999999999999 */;
static __constant__ const double coeffs[2] = {
    0x1p-1 /* 0.5 */,
    0x1p-2 /* 0.25 */};

/* The user's kernel, as given to op_par_loop: a device function. */
#line 1 "kernel:reduce"
void reduce(const double *a, const double *n0, double *sum, int *lo, float *hi) {
  sum[0] += a[0] * gamma_ + n0[0];
  sum[1] += coeffs[1] * a[0];
  if ((int)a[0] < *lo) *lo = (int)a[0];
  if ((float)n0[0] > *hi) *hi = (float)n0[0];
}
#line 120 "reduce.cu"

#define OP2_KERNEL reduce
#define OP2_COLOURED 0
#define OP2_IN_COLOUR 0
#define OP2_USES_BARRIERS 1

#define OP2_DECLARE \
  double *OP2_RESTRICT const op2_dat0 = (double *)op2_p.arg[0]; \
  double *OP2_RESTRICT const op2_dat1 = (double *)op2_p.arg[1]; \
  double *OP2_RESTRICT const op2_arg2 = (double *)op2_p.arg[2]; \
  double op2_red2[2]; \
  op2_red2[0] = (double)0; \
  op2_red2[1] = (double)0; \
  int *OP2_RESTRICT const op2_arg3 = (int *)op2_p.arg[3]; \
  int op2_red3[1]; \
  op2_red3[0] = OP2_LDG(8, op2_arg3[0]); \
  float *OP2_RESTRICT const op2_arg4 = (float *)op2_p.arg[4]; \
  float op2_red4[1]; \
  op2_red4[0] = OP2_LDG(9, op2_arg4[0]); \
  const int *OP2_RESTRICT const op2_map0 = op2_p.map[0];

#define OP2_ELEMENT \
    const int op2_i0_0 = OP2_LDG(10, op2_map0[2 * op2_n + 0]); \
    OP2_TOUCH(11, 1, op2_dat0 + 1 * op2_n, 8); \
    OP2_TOUCH(12, 1, op2_dat1 + 1 * op2_i0_0, 8);

#define OP2_CALL_ARGS \
    op2_dat0 + 1 * op2_n, \
    op2_dat1 + 1 * op2_i0_0, \
    op2_red2, \
    op2_red3, \
    op2_red4

#define OP2_AFTER

#define OP2_REDUCE \
  { \
    OP2_DYNAMIC_SHARED(op2_rsm); \
    char *const op2_rsb = op2_rsm + op2_p.red_smem_off; \
    const int op2_bd = (int)blockDim.x, op2_tid = (int)threadIdx.x; \
    int op2_p2 = 1; \
    double *const op2_rs2 = (double *)(op2_rsb + (size_t)op2_bd * 0); \
    op2_rs2[0 * op2_bd + op2_tid] = op2_red2[0]; \
    op2_rs2[1 * op2_bd + op2_tid] = op2_red2[1]; \
    int *const op2_rs3 = (int *)(op2_rsb + (size_t)op2_bd * 16); \
    op2_rs3[0 * op2_bd + op2_tid] = op2_red3[0]; \
    float *const op2_rs4 = (float *)(op2_rsb + (size_t)op2_bd * 24); \
    op2_rs4[0 * op2_bd + op2_tid] = op2_red4[0]; \
    __syncthreads(); \
    while (op2_p2 < op2_bd) op2_p2 <<= 1; \
    for (int op2_s = op2_p2 / 2; op2_s > 0; op2_s >>= 1) { \
      if (op2_tid < op2_s && op2_tid + op2_s < op2_bd) { \
        { double *op2_x = op2_rs2 + 0 * op2_bd + op2_tid; const double op2_y = op2_x[op2_s]; *op2_x += op2_y; } \
        { double *op2_x = op2_rs2 + 1 * op2_bd + op2_tid; const double op2_y = op2_x[op2_s]; *op2_x += op2_y; } \
        { int *op2_x = op2_rs3 + 0 * op2_bd + op2_tid; const int op2_y = op2_x[op2_s]; if (op2_y < *op2_x) *op2_x = op2_y; } \
        { float *op2_x = op2_rs4 + 0 * op2_bd + op2_tid; const float op2_y = op2_x[op2_s]; if (op2_y > *op2_x) *op2_x = op2_y; } \
      } \
      __syncthreads(); \
    } \
    if (op2_tid == 0) { \
      char *const op2_rec = op2_p.red + (size_t)(op2_p.block_offset + (int)blockIdx.x) * 32; \
      OP2_TOUCH(13, 2, op2_rec + 0, 16); \
      ((double *)(op2_rec + 0))[0] = op2_rs2[0 * op2_bd]; \
      ((double *)(op2_rec + 0))[1] = op2_rs2[1 * op2_bd]; \
      OP2_TOUCH(14, 2, op2_rec + 16, 4); \
      ((int *)(op2_rec + 16))[0] = op2_rs3[0 * op2_bd]; \
      OP2_TOUCH(15, 2, op2_rec + 24, 4); \
      ((float *)(op2_rec + 24))[0] = op2_rs4[0 * op2_bd]; \
    } \
  }

/* op2jit CUDA template: one thread per element. Direct loops, the atomics strategy (indirect
 * increments accumulate in registers and go to global memory as atomic adds) and global
 * colouring (one launch per colour; elements of a colour write disjoint data, so they update
 * global memory in place). The code generator defines, before this text:
 *   OP2_KERNEL        the user's kernel, a device function
 *   OP2_COLOURED      1: the launch runs the elements op2_p.col_elems lists (global colouring)
 *   OP2_DECLARE       typed base pointers, map pointers, reduction accumulators
 *   OP2_ELEMENT       per element before the call: map indices, argument pointers, accumulators
 *   OP2_CALL_ARGS     the kernel's arguments
 *   OP2_AFTER         per element after the call: atomic adds
 *   OP2_REDUCE        the block's tree reduction of global reductions and its partial record
 * Site numbers (first argument of OP2_LDG, OP2_TOUCH) only name access sites for the emulator's
 * memory traffic counts. */
OP2_EXTERN_C __global__ void op2_cuda_kernel(op2_cuda_params op2_p) {
  OP2_DECLARE
  const int op2_t = (int)(blockIdx.x * blockDim.x + threadIdx.x);
#if OP2_COLOURED
  if (op2_t < op2_p.col_count) {
    const int op2_n = OP2_LDG(0, op2_p.col_elems[op2_p.col_begin + op2_t]);
#else
  if (op2_t < op2_p.end - op2_p.begin) {
    const int op2_n = op2_p.begin + op2_t;
#endif
    OP2_ELEMENT
    OP2_KERNEL(OP2_CALL_ARGS);
    OP2_AFTER
  }
  OP2_REDUCE
}
