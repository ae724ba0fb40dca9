#line 2 "cell_vec.cu"
/* op2jit generated CUDA kernel. Signature:
 *   loop cell_vec, target cuda, codegen 1
 *   arg 0: dat 0 double[2] OP_READ through map 0 (arity 4) columns 0..3 as a vector
 *   arg 1: dat 1 double[2] OP_INC through map 0 (arity 4) columns 0..3 as a vector
 *   arg 2: dat 2 double[1] OP_READ direct
 *   strategy hierarchical
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
#define OP2_COLOURED 0
#define OP2_IN_COLOUR 0
#define OP2_USES_BARRIERS 1

#define OP2_DECLARE \
  double *OP2_RESTRICT const op2_dat0 = (double *)op2_p.arg[0]; \
  double *OP2_RESTRICT const op2_dat1 = (double *)op2_p.arg[1]; \
  double *OP2_RESTRICT const op2_dat2 = (double *)op2_p.arg[2]; \
  const int *OP2_RESTRICT const op2_map0 = op2_p.map[0];

#define OP2_ELEMENT \
    const int op2_l0 = op2_active ? OP2_LDG(8, op2_p.loc_map[0 * op2_p.npos + op2_pos]) : 0; \
    const int op2_l1 = op2_active ? OP2_LDG(9, op2_p.loc_map[1 * op2_p.npos + op2_pos]) : 0; \
    const int op2_l2 = op2_active ? OP2_LDG(10, op2_p.loc_map[2 * op2_p.npos + op2_pos]) : 0; \
    const int op2_l3 = op2_active ? OP2_LDG(11, op2_p.loc_map[3 * op2_p.npos + op2_pos]) : 0; \
    const int op2_l4 = op2_active ? OP2_LDG(12, op2_p.loc_map[4 * op2_p.npos + op2_pos]) : 0; \
    const int op2_l5 = op2_active ? OP2_LDG(13, op2_p.loc_map[5 * op2_p.npos + op2_pos]) : 0; \
    const int op2_l6 = op2_active ? OP2_LDG(14, op2_p.loc_map[6 * op2_p.npos + op2_pos]) : 0; \
    const int op2_l7 = op2_active ? OP2_LDG(15, op2_p.loc_map[7 * op2_p.npos + op2_pos]) : 0; \
    const double *op2_vec0[4] = {op2_sh0 + 2 * op2_l0, op2_sh0 + 2 * op2_l1, op2_sh0 + 2 * op2_l2, op2_sh0 + 2 * op2_l3}; \
    double op2_inc1[4][2] = {{0}}; \
    double *op2_vec1[4] = {op2_inc1[0], op2_inc1[1], op2_inc1[2], op2_inc1[3]}; \
    if (op2_active) OP2_TOUCH(16, 1, op2_dat2 + 1 * op2_n, 8);

#define OP2_CALL_ARGS \
    op2_vec0, \
    op2_vec1, \
    op2_dat2 + 1 * op2_n

#define OP2_AFTER

#define OP2_STAGE_IN \
  const int op2_gs0 = OP2_LDG(17, op2_p.ind_sizes[0 * op2_p.nblocks + op2_blk]); \
  const int *OP2_RESTRICT const op2_gm0 = op2_p.ind_map + OP2_LDG(18, op2_p.ind_offs[0 * op2_p.nblocks + op2_blk]); \
  double *OP2_RESTRICT const op2_sh0 = (double *)(op2_smem + op2_p.goff[0]); \
  for (int op2_k = (int)threadIdx.x; op2_k < op2_gs0 * 2; op2_k += (int)blockDim.x) \
    op2_sh0[op2_k] = OP2_LDG(20, op2_dat0[2 * OP2_LDG(19, op2_gm0[op2_k / 2]) + op2_k % 2]); \
  const int op2_gs1 = OP2_LDG(21, op2_p.ind_sizes[1 * op2_p.nblocks + op2_blk]); \
  const int *OP2_RESTRICT const op2_gm1 = op2_p.ind_map + OP2_LDG(22, op2_p.ind_offs[1 * op2_p.nblocks + op2_blk]); \
  double *OP2_RESTRICT const op2_sh1 = (double *)(op2_smem + op2_p.goff[1]); \
  for (int op2_k = (int)threadIdx.x; op2_k < op2_gs1 * 2; op2_k += (int)blockDim.x) op2_sh1[op2_k] = (double)0;

#define OP2_INC_ADD \
        op2_sh1[2 * op2_l4 + 0] += op2_inc1[0][0]; \
        op2_sh1[2 * op2_l4 + 1] += op2_inc1[0][1]; \
        op2_sh1[2 * op2_l5 + 0] += op2_inc1[1][0]; \
        op2_sh1[2 * op2_l5 + 1] += op2_inc1[1][1]; \
        op2_sh1[2 * op2_l6 + 0] += op2_inc1[2][0]; \
        op2_sh1[2 * op2_l6 + 1] += op2_inc1[2][1]; \
        op2_sh1[2 * op2_l7 + 0] += op2_inc1[3][0]; \
        op2_sh1[2 * op2_l7 + 1] += op2_inc1[3][1];

#define OP2_STAGE_OUT \
  __syncthreads(); \
  for (int op2_k = (int)threadIdx.x; op2_k < op2_gs1 * 2; op2_k += (int)blockDim.x) { \
    double *const op2_o = op2_dat1 + 2 * OP2_LDG(23, op2_gm1[op2_k / 2]) + op2_k % 2; \
    OP2_TOUCH(24, 3, op2_o, 8); \
    *op2_o += op2_sh1[op2_k]; \
  }

#define OP2_REDUCE

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
