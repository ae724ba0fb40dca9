#line 2 "node_rw.c"
/* op2jit generated kernel. Signature:
 *   loop node_rw, target c, codegen 1
 *   arg 0: dat 0 double[1] OP_RW through map 0 (arity 2) column 0
 *   arg 1: dat 1 double[1] OP_READ through map 0 (arity 2) column 1
 *   arg 2: index through map 0 (arity 2) column 1
 *   arg 3: optional dat, switched off
 */
/* template c/prelude.h */

/* The user's kernel, as given to op_par_loop. */
#line 1 "kernel:node_rw"
void node_rw(double *n0, const double *n1, const int *idx, double *unused) {
  n0[0] = MAX(n0[0], n1[0]) + *idx;
  (void)unused;
}
#line 49 "node_rw.c"

#define OP2_KERNEL node_rw

#define OP2_DECLARE \
  double *restrict const op2_dat0 = (double *)op2_args[0]; \
  double *restrict const op2_dat1 = (double *)op2_args[1]; \
  const int *const op2_orig2 = (const int *)op2_args[2]; \
  const int *restrict const op2_map0 = op2_maps[0];

#define OP2_ELEMENT \
    const int op2_i0_0 = op2_map0[2 * op2_n + 0]; \
    const int op2_i0_1 = op2_map0[2 * op2_n + 1]; \
    int op2_idx2 = op2_orig2 ? op2_orig2[op2_i0_1] : op2_i0_1;

#define OP2_CALL_ARGS \
    op2_dat0 + 1 * op2_i0_0, \
    op2_dat1 + 1 * op2_i0_1, \
    &op2_idx2, \
    (double *)0

#define OP2_FINISH

/* op2jit loop template for CPU backends. The code generator defines, before this text:
 *   OP2_KERNEL     the user's kernel function
 *   OP2_DECLARE    typed base pointers of every argument, map pointers
 *   OP2_ELEMENT    per-element work before the call: map indices, vector argument arrays
 *   OP2_CALL_ARGS  the kernel's arguments for element op2_n
 *   OP2_FINISH     after the range: reductions written back from their local copies
 * The runtime calls op2_loop on element ranges (one per thread or per plan block), so this code
 * needs no threading support from the compiler. */
void op2_loop(void *const *op2_args, const int *const *op2_maps, int op2_begin, int op2_end) {
  (void)op2_args;
  (void)op2_maps;
  OP2_DECLARE
  for (int op2_n = op2_begin; op2_n < op2_end; op2_n++) {
    OP2_ELEMENT
    OP2_KERNEL(OP2_CALL_ARGS);
  }
  OP2_FINISH
}
