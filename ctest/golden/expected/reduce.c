#line 2 "reduce.c"
/* op2jit generated kernel. Signature:
 *   loop reduce, target c, codegen 1
 *   arg 0: dat 0 double[1] OP_READ direct
 *   arg 1: dat 1 double[1] OP_READ through map 0 (arity 2) column 0
 *   arg 2: global double[2] OP_INC
 *   arg 3: global int[1] OP_MIN
 *   arg 4: global float[1] OP_MAX
 *   constant gamma_ double[1]
 *   constant coeffs double[2]
 */
/* template c/prelude.h */

/* Constants the kernel uses, baked in: a new value is a new kernel. */
static const double gamma_ = 0x1.6666666666666p+0 /* 1.3999999999999999 */;
static const double coeffs[2] = {
    0x1p-1 /* 0.5 */,
    0x1p-2 /* 0.25 */};

/* The user's kernel, as given to op_par_loop. */
#line 1 "kernel:reduce"
void reduce(const double *a, const double *n0, double *sum, int *lo, float *hi) {
  sum[0] += a[0] * gamma_ + n0[0];
  sum[1] += coeffs[1] * a[0];
  if ((int)a[0] < *lo) *lo = (int)a[0];
  if ((float)n0[0] > *hi) *hi = (float)n0[0];
}
#line 60 "reduce.c"

#define OP2_KERNEL reduce

#define OP2_DECLARE \
  double *restrict const op2_dat0 = (double *)op2_args[0]; \
  double *restrict const op2_dat1 = (double *)op2_args[1]; \
  double *restrict const op2_arg2 = (double *)op2_args[2]; \
  double op2_red2[2]; \
  for (int op2_k = 0; op2_k < 2; op2_k++) op2_red2[op2_k] = op2_arg2[op2_k]; \
  int *restrict const op2_arg3 = (int *)op2_args[3]; \
  int op2_red3[1]; \
  for (int op2_k = 0; op2_k < 1; op2_k++) op2_red3[op2_k] = op2_arg3[op2_k]; \
  float *restrict const op2_arg4 = (float *)op2_args[4]; \
  float op2_red4[1]; \
  for (int op2_k = 0; op2_k < 1; op2_k++) op2_red4[op2_k] = op2_arg4[op2_k]; \
  const int *restrict const op2_map0 = op2_maps[1];

#define OP2_ELEMENT \
    const int op2_i0_0 = op2_map0[2 * op2_n + 0];

#define OP2_CALL_ARGS \
    op2_dat0 + 1 * op2_n, \
    op2_dat1 + 1 * op2_i0_0, \
    op2_red2, \
    op2_red3, \
    op2_red4

#define OP2_FINISH \
  for (int op2_k = 0; op2_k < 2; op2_k++) op2_arg2[op2_k] = op2_red2[op2_k]; \
  for (int op2_k = 0; op2_k < 1; op2_k++) op2_arg3[op2_k] = op2_red3[op2_k]; \
  for (int op2_k = 0; op2_k < 1; op2_k++) op2_arg4[op2_k] = op2_red4[op2_k];

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
