/* SPDX-License-Identifier: BSD-3-Clause */
/* op2jit CUDA template: OP2's hierarchical scheme. The plan cuts the loop range into blocks of
 * part_size positions; blocks are coloured so that blocks of one colour write disjoint data, and
 * one launch runs one block colour. A block first stages the indirectly accessed data it needs in
 * shared memory (each group: the sorted, de-duplicated elements one dat reaches from the block
 * through all its maps, found through ind_map; each element's (map, column) is a local index in
 * loc_map). Threads then run their elements; the block's elements are coloured so that threads
 * of one colour never update the same staged element, and colours take turns with a barrier
 * between them. Finally the block writes its staged data back: increments are added, read-write
 * data stored.
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
OP2_EXTERN_C __global__ void OP2_LAUNCH_BOUNDS op2_cuda_kernel(op2_cuda_params op2_p) {
  OP2_DYNAMIC_SHARED(op2_smem);
  OP2_DECLARE
  const int op2_blk = OP2_LDG(op2_p.blkmap[op2_p.block_offset + (int)blockIdx.x]);
  const int op2_first = op2_blk * op2_p.part_size;
  const int op2_nelem =
      op2_p.npos - op2_first < op2_p.part_size ? op2_p.npos - op2_first : op2_p.part_size;
  OP2_STAGE_IN
  __syncthreads();
  const int op2_ncol = op2_p.nthrcol ? OP2_LDG(op2_p.nthrcol[op2_blk]) : 0;
  for (int op2_base = 0; op2_base < op2_nelem; op2_base += (int)blockDim.x) {
    const int op2_pos = op2_first + op2_base + (int)threadIdx.x;
    const int op2_active = op2_base + (int)threadIdx.x < op2_nelem;
    const int op2_n = !op2_active      ? 0
                      : op2_p.thr_elem ? OP2_LDG(op2_p.thr_elem[op2_pos])
                                       : op2_p.begin + op2_pos;
    const int op2_col = op2_active && op2_p.thrcol ? OP2_LDG(op2_p.thrcol[op2_pos]) : -1;
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
