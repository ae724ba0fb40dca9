#line 2 "direct.c"
/* op2jit generated kernel. Signature:
 *   loop direct, target c, codegen 1
 *   arg 0: dat 0 double[2] OP_READ direct
 *   arg 1: dat 1 double[1] OP_WRITE direct
 *   arg 2: global int[1] OP_READ
 */
/* template c/prelude.h */

/* The user's kernel, as given to op_par_loop. */
#line 1 "kernel:direct"
void direct(const double *a, double *b, const int *step) {
  b[0] = a[0] * a[1] + *step;
}
#line 47 "direct.c"

#define OP2_KERNEL direct

#define OP2_DECLARE \
  double *restrict const op2_dat0 = (double *)op2_args[0]; \
  double *restrict const op2_dat1 = (double *)op2_args[1]; \
  int *restrict const op2_arg2 = (int *)op2_args[2];

#define OP2_ELEMENT

#define OP2_CALL_ARGS \
    op2_dat0 + 2 * op2_n, \
    op2_dat1 + 1 * op2_n, \
    op2_arg2

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
