#line 2 "cell_vec.c"
/* op2jit generated kernel. Signature:
 *   loop cell_vec, target c, codegen 1
 *   arg 0: dat 0 double[2] OP_READ through map 0 (arity 4) columns 0..3 as a vector
 *   arg 1: dat 1 double[2] OP_INC through map 0 (arity 4) columns 0..3 as a vector
 *   arg 2: dat 2 double[1] OP_READ direct
 */
/* template c/prelude.h */

/* The user's kernel, as given to op_par_loop. */
#line 1 "kernel:cell_vec"
void cell_vec(const double **x, double **r, double *q) {
  for (int k = 0; k < 4; k++) {
    r[k][0] += q[0] * x[k][1];
    r[k][1] += x[k][0];
  }
}
#line 50 "cell_vec.c"

#define OP2_KERNEL cell_vec

#define OP2_DECLARE \
  double *restrict const op2_dat0 = (double *)op2_args[0]; \
  double *restrict const op2_dat1 = (double *)op2_args[1]; \
  double *restrict const op2_dat2 = (double *)op2_args[2]; \
  const int *restrict const op2_map0 = op2_maps[0];

#define OP2_ELEMENT \
    const int op2_i0_0 = op2_map0[4 * op2_n + 0]; \
    const int op2_i0_1 = op2_map0[4 * op2_n + 1]; \
    const int op2_i0_2 = op2_map0[4 * op2_n + 2]; \
    const int op2_i0_3 = op2_map0[4 * op2_n + 3]; \
    const double *op2_vec0[4] = {op2_dat0 + 2 * op2_i0_0, op2_dat0 + 2 * op2_i0_1, op2_dat0 + 2 * op2_i0_2, op2_dat0 + 2 * op2_i0_3}; \
    double *op2_vec1[4] = {op2_dat1 + 2 * op2_i0_0, op2_dat1 + 2 * op2_i0_1, op2_dat1 + 2 * op2_i0_2, op2_dat1 + 2 * op2_i0_3};

#define OP2_CALL_ARGS \
    op2_vec0, \
    op2_vec1, \
    op2_dat2 + 1 * op2_n

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
