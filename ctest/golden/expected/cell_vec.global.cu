#line 2 "cell_vec.cu"
/* op2jit generated CUDA kernel. Signature:
 *   loop cell_vec, target cuda, codegen 1
 *   arg 0: dat 0 double[2] OP_READ through map 0 (arity 4) columns 0..3 as a vector
 *   arg 1: dat 1 double[2] OP_INC through map 0 (arity 4) columns 0..3 as a vector
 *   arg 2: dat 2 double[1] OP_READ direct
 *   strategy global
 */
#ifndef OP2_EMULATION
/* template cuda/prelude.h */
#endif
/* template cuda/params.h */

/* The user's kernel, as given to op_par_loop: a device function. */
#line 1 "kernel:cell_vec"
void cell_vec(const double **x, double **r, double *q) {
  for (int k = 0; k < 4; k++) {
    r[k][0] += q[0] * x[k][1];
    r[k][1] += x[k][0];
  }
}
#line 110 "cell_vec.cu"

#define OP2_KERNEL cell_vec
#define OP2_COLOURED 1
#define OP2_IN_COLOUR 0
#define OP2_USES_BARRIERS 0

#define OP2_DECLARE \
  double *OP2_RESTRICT const op2_dat0 = (double *)op2_p.arg[0]; \
  double *OP2_RESTRICT const op2_dat1 = (double *)op2_p.arg[1]; \
  double *OP2_RESTRICT const op2_dat2 = (double *)op2_p.arg[2]; \
  const int *OP2_RESTRICT const op2_map0 = op2_p.map[0];

#define OP2_ELEMENT \
    const int op2_i0_0 = OP2_LDG(8, op2_map0[4 * op2_n + 0]); \
    const int op2_i0_1 = OP2_LDG(9, op2_map0[4 * op2_n + 1]); \
    const int op2_i0_2 = OP2_LDG(10, op2_map0[4 * op2_n + 2]); \
    const int op2_i0_3 = OP2_LDG(11, op2_map0[4 * op2_n + 3]); \
    const double *op2_vec0[4] = {op2_dat0 + 2 * op2_i0_0, op2_dat0 + 2 * op2_i0_1, op2_dat0 + 2 * op2_i0_2, op2_dat0 + 2 * op2_i0_3}; \
    OP2_TOUCH(12, 1, op2_dat0 + 2 * op2_i0_0, 16); \
    OP2_TOUCH(13, 1, op2_dat0 + 2 * op2_i0_1, 16); \
    OP2_TOUCH(14, 1, op2_dat0 + 2 * op2_i0_2, 16); \
    OP2_TOUCH(15, 1, op2_dat0 + 2 * op2_i0_3, 16); \
    double *op2_vec1[4] = {op2_dat1 + 2 * op2_i0_0, op2_dat1 + 2 * op2_i0_1, op2_dat1 + 2 * op2_i0_2, op2_dat1 + 2 * op2_i0_3}; \
    OP2_TOUCH(16, 3, op2_dat1 + 2 * op2_i0_0, 16); \
    OP2_TOUCH(17, 3, op2_dat1 + 2 * op2_i0_1, 16); \
    OP2_TOUCH(18, 3, op2_dat1 + 2 * op2_i0_2, 16); \
    OP2_TOUCH(19, 3, op2_dat1 + 2 * op2_i0_3, 16); \
    OP2_TOUCH(20, 1, op2_dat2 + 1 * op2_n, 8);

#define OP2_CALL_ARGS \
    op2_vec0, \
    op2_vec1, \
    op2_dat2 + 1 * op2_n

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
