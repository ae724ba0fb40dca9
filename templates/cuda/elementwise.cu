/* SPDX-License-Identifier: BSD-3-Clause */
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
 *   OP2_LAUNCH_BOUNDS __launch_bounds__ of OP2_CUDA_BLOCK_SIZE (empty in emulation)
 * OP2_LDG and OP2_TOUCH mark global memory accesses, which only the emulator counts. */
OP2_EXTERN_C __global__ void OP2_LAUNCH_BOUNDS op2_cuda_kernel(op2_cuda_params op2_p) {
  OP2_DECLARE
  const int op2_t = (int)(blockIdx.x * blockDim.x + threadIdx.x);
#if OP2_COLOURED
  if (op2_t < op2_p.col_count) {
    const int op2_n = OP2_LDG(op2_p.col_elems[op2_p.col_begin + op2_t]);
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
