#line 2 "edge_inc.cu"
/* op2jit generated CUDA kernel. Signature:
 *   loop edge_inc, target cuda, codegen 1
 *   arg 0: dat 0 double[2] OP_READ through map 0 (arity 2) column 0
 *   arg 1: dat 0 double[2] OP_READ through map 0 (arity 2) column 1
 *   arg 2: dat 1 double[1] OP_READ direct
 *   arg 3: dat 2 double[2] OP_INC through map 0 (arity 2) column 0
 *   arg 4: dat 2 double[2] OP_INC through map 0 (arity 2) column 1
 *   strategy global
 */
#ifndef OP2_EMULATION
/* template cuda/prelude.h */
#endif
/* template cuda/params.h */

/* The user's kernel, as given to op_par_loop: a device function. */
#line 1 "kernel:edge_inc"
void edge_inc(const double *x0, const double *x1, const double *w, double *r0, double *r1) {
  double f = w[0] * (x1[0] - x0[0]);
  r0[0] += f;
  r1[0] -= f;
  r0[1] += x0[1];
  r1[1] += x1[1];
}
#line 113 "edge_inc.cu"

#define OP2_KERNEL edge_inc
#define OP2_COLOURED 1
#define OP2_IN_COLOUR 0
#define OP2_USES_BARRIERS 0

#define OP2_DECLARE \
  double *OP2_RESTRICT const op2_dat0 = (double *)op2_p.arg[0]; \
  double *OP2_RESTRICT const op2_dat1 = (double *)op2_p.arg[2]; \
  double *OP2_RESTRICT const op2_dat2 = (double *)op2_p.arg[3]; \
  const int *OP2_RESTRICT const op2_map0 = op2_p.map[0];

#define OP2_ELEMENT \
    const int op2_i0_0 = OP2_LDG(8, op2_map0[2 * op2_n + 0]); \
    const int op2_i0_1 = OP2_LDG(9, op2_map0[2 * op2_n + 1]); \
    OP2_TOUCH(10, 1, op2_dat0 + 2 * op2_i0_0, 16); \
    OP2_TOUCH(11, 1, op2_dat0 + 2 * op2_i0_1, 16); \
    OP2_TOUCH(12, 1, op2_dat1 + 1 * op2_n, 8); \
    OP2_TOUCH(13, 3, op2_dat2 + 2 * op2_i0_0, 16); \
    OP2_TOUCH(14, 3, op2_dat2 + 2 * op2_i0_1, 16);

#define OP2_CALL_ARGS \
    op2_dat0 + 2 * op2_i0_0, \
    op2_dat0 + 2 * op2_i0_1, \
    op2_dat1 + 1 * op2_n, \
    op2_dat2 + 2 * op2_i0_0, \
    op2_dat2 + 2 * op2_i0_1

#define OP2_AFTER

#define OP2_REDUCE

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
