/* op2jit SIMD loop for the optimised tier (compiled only where the compiler's flags define
 * OP2_SIMD_W, the lanes per group: -fopenmp-simd -fno-math-errno -DOP2_SIMD_W=W; TinyCC skips it).
 * Besides the scalar loop's macros, the code generator defines:
 *   OP2_SIMD_KERNEL     the kernel, or its copy indexing component-major lane arrays
 *   OP2_SIMD_GATHER     local copies of a group's indirect data (increments: zero)
 *   OP2_SIMD_LANE       per lane, inside the vectorised loop: vector arguments' pointer arrays
 *   OP2_SIMD_CALL_ARGS  the kernel's arguments for lane op2_l
 *   OP2_SIMD_SCATTER    writes and increments put back, reductions folded, in element order
 * The scalar loop (templates/c/loop.c, following) becomes op2_loop_scalar and runs the
 * remainder, starting from the reductions this loop has written back. */
#ifdef OP2_SIMD_W
void op2_loop_scalar(void *const *op2_args, const int *const *op2_maps, int op2_begin,
                     int op2_end);
/* flatten: the kernel must be inlined into the lane loop for it to vectorise, and gcc's inliner
 * declines to for an exported kernel of Airfoil's size. */
__attribute__((flatten)) void op2_loop(void *const *op2_args, const int *const *op2_maps,
                                       int op2_begin, int op2_end) {
  int op2_n0 = op2_begin;
  {
    OP2_DECLARE
    for (; op2_n0 + OP2_SIMD_W <= op2_end; op2_n0 += OP2_SIMD_W) {
      OP2_SIMD_GATHER
#pragma omp simd
      for (int op2_l = 0; op2_l < OP2_SIMD_W; op2_l++) {
        OP2_SIMD_LANE
        OP2_SIMD_KERNEL(OP2_SIMD_CALL_ARGS);
      }
      OP2_SIMD_SCATTER
    }
    OP2_FINISH
  }
  op2_loop_scalar(op2_args, op2_maps, op2_n0, op2_end);
}
#define op2_loop op2_loop_scalar
#endif

