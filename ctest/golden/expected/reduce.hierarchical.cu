#line 2 "reduce.cu"
/* op2jit generated CUDA kernel. Signature:
 *   loop reduce, target cuda, codegen 1
 *   arg 0: dat 0 double[1] OP_READ direct
 *   arg 1: dat 1 double[1] OP_READ through map 0 (arity 2) column 0
 *   arg 2: global double[2] OP_INC
 *   arg 3: global int[1] OP_MIN
 *   arg 4: global float[1] OP_MAX
 *   strategy hierarchical
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
    const int op2_l0 = op2_active ? OP2_LDG(10, op2_p.loc_map[0 * op2_p.npos + op2_pos]) : 0; \
    if (op2_active) OP2_TOUCH(11, 1, op2_dat0 + 1 * op2_n, 8);

#define OP2_CALL_ARGS \
    op2_dat0 + 1 * op2_n, \
    op2_sh0 + 1 * op2_l0, \
    op2_red2, \
    op2_red3, \
    op2_red4

#define OP2_AFTER

#define OP2_STAGE_IN \
  const int op2_gs0 = OP2_LDG(12, op2_p.ind_sizes[0 * op2_p.nblocks + op2_blk]); \
  const int *OP2_RESTRICT const op2_gm0 = op2_p.ind_map + OP2_LDG(13, op2_p.ind_offs[0 * op2_p.nblocks + op2_blk]); \
  double *OP2_RESTRICT const op2_sh0 = (double *)(op2_smem + op2_p.goff[0]); \
  for (int op2_k = (int)threadIdx.x; op2_k < op2_gs0 * 1; op2_k += (int)blockDim.x) \
    op2_sh0[op2_k] = OP2_LDG(15, op2_dat1[1 * OP2_LDG(14, op2_gm0[op2_k / 1]) + op2_k % 1]);

#define OP2_INC_ADD

#define OP2_STAGE_OUT

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
      OP2_TOUCH(16, 2, op2_rec + 0, 16); \
      ((double *)(op2_rec + 0))[0] = op2_rs2[0 * op2_bd]; \
      ((double *)(op2_rec + 0))[1] = op2_rs2[1 * op2_bd]; \
      OP2_TOUCH(17, 2, op2_rec + 16, 4); \
      ((int *)(op2_rec + 16))[0] = op2_rs3[0 * op2_bd]; \
      OP2_TOUCH(18, 2, op2_rec + 24, 4); \
      ((float *)(op2_rec + 24))[0] = op2_rs4[0 * op2_bd]; \
    } \
  }

/* op2jit CUDA template: OP2's hierarchical scheme. The plan cuts the loop range into blocks of
 * part_size positions; blocks are coloured so that blocks of one colour write disjoint data, and
 * one launch runs one block colour. A block first stages the indirectly accessed data it needs in
 * shared memory (each group: the sorted, de-duplicated elements one (dat, map) pair reaches from
 * the block, found through ind_map; each element's column is a local index in loc_map). Threads
 * then run their elements; the block's elements are coloured so that threads of one colour never
 * update the same staged element, and colours take turns with a barrier between them. Finally
 * the block writes its staged data back: increments are added, read-write data stored.
 * The code generator defines, before this text:
 *   OP2_KERNEL, OP2_DECLARE, OP2_CALL_ARGS, OP2_REDUCE as for elementwise.cu
 *   OP2_IN_COLOUR   1: the kernel itself runs in its thread colour's turn (indirect RW or WRITE
 *                   data is used in place in shared memory); 0: it runs before the turns and only
 *                   adding its increments waits for the thread colour's turn
 *   OP2_STAGE_IN    declares each group's staging area and fills it (loaded, or zeroed for INC)
 *   OP2_ELEMENT     per position: local indices, argument pointers, increment registers
 *   OP2_INC_ADD     adds the increment registers into shared memory
 *   OP2_STAGE_OUT   writes the staging areas back to global memory
 * op2_n is the element; op2_active is 0 for the threads past the end of a short block, which
 * still take part in every barrier. */
OP2_EXTERN_C __global__ void op2_cuda_kernel(op2_cuda_params op2_p) {
  OP2_DYNAMIC_SHARED(op2_smem);
  OP2_DECLARE
  const int op2_blk = OP2_LDG(1, op2_p.blkmap[op2_p.block_offset + (int)blockIdx.x]);
  const int op2_first = op2_blk * op2_p.part_size;
  const int op2_nelem =
      op2_p.npos - op2_first < op2_p.part_size ? op2_p.npos - op2_first : op2_p.part_size;
  OP2_STAGE_IN
  __syncthreads();
  const int op2_ncol = op2_p.nthrcol ? OP2_LDG(2, op2_p.nthrcol[op2_blk]) : 0;
  for (int op2_base = 0; op2_base < op2_nelem; op2_base += (int)blockDim.x) {
    const int op2_pos = op2_first + op2_base + (int)threadIdx.x;
    const int op2_active = op2_base + (int)threadIdx.x < op2_nelem;
    const int op2_n = !op2_active      ? 0
                      : op2_p.thr_elem ? OP2_LDG(3, op2_p.thr_elem[op2_pos])
                                       : op2_p.begin + op2_pos;
    const int op2_col = op2_active && op2_p.thrcol ? OP2_LDG(4, op2_p.thrcol[op2_pos]) : -1;
    OP2_ELEMENT
#if !OP2_IN_COLOUR
    if (op2_active) OP2_KERNEL(OP2_CALL_ARGS);
#endif
    for (int op2_c = 0; op2_c < op2_ncol; op2_c++) {
      if (op2_col == op2_c) {
#if OP2_IN_COLOUR
        OP2_KERNEL(OP2_CALL_ARGS);
#endif
        OP2_INC_ADD
      }
      __syncthreads();
    }
  }
  OP2_STAGE_OUT
  OP2_REDUCE
}
