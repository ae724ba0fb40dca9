#line 2 "edge_inc.c"
/* op2jit generated kernel. Signature:
 *   loop edge_inc, target c, codegen 1
 *   arg 0: dat 0 double[2] OP_READ through map 0 (arity 2) column 0
 *   arg 1: dat 0 double[2] OP_READ through map 0 (arity 2) column 1
 *   arg 2: dat 1 double[1] OP_READ direct
 *   arg 3: dat 2 double[2] OP_INC through map 0 (arity 2) column 0
 *   arg 4: dat 2 double[2] OP_INC through map 0 (arity 2) column 1
 */
/* template c/prelude.h */

/* The user's kernel, as given to op_par_loop. */
#line 1 "kernel:edge_inc"
void edge_inc(const double *x0, const double *x1, const double *w, double *r0, double *r1) {
  double f = w[0] * (x1[0] - x0[0]);
  r0[0] += f;
  r1[0] -= f;
  r0[1] += x0[1];
  r1[1] += x1[1];
}
#line 53 "edge_inc.c"

#define OP2_KERNEL edge_inc

#define OP2_DECLARE \
  double *restrict const op2_dat0 = (double *)op2_args[0]; \
  double *restrict const op2_dat1 = (double *)op2_args[2]; \
  double *restrict const op2_dat2 = (double *)op2_args[3]; \
  const int *restrict const op2_map0 = op2_maps[0];

#define OP2_ELEMENT \
    const int op2_i0_0 = op2_map0[2 * op2_n + 0]; \
    const int op2_i0_1 = op2_map0[2 * op2_n + 1];

#define OP2_CALL_ARGS \
    op2_dat0 + 2 * op2_i0_0, \
    op2_dat0 + 2 * op2_i0_1, \
    op2_dat1 + 1 * op2_n, \
    op2_dat2 + 2 * op2_i0_0, \
    op2_dat2 + 2 * op2_i0_1

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
