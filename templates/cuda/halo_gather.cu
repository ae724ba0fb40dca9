/* SPDX-License-Identifier: BSD-3-Clause */
/* op2jit CUDA halo gather: packs the rows of a dat that neighbouring ranks need into one
 * contiguous buffer, which the host then copies back and hands to MPI. A thread per word of the
 * packed rows, so stores are coalesced and a row's words are read together. The code generator
 * defines, before this text:
 *   OP2_HALO_WORD       the unsigned type copied (8 or 4 bytes, whichever divides a row)
 *   OP2_HALO_ROW_WORDS  words per row
 * Parameters: arg[0] the dat, arg[1] the packed rows, map[0] the row list, [begin, end) the
 * entries of the list to pack. */
OP2_EXTERN_C __global__ void op2_cuda_kernel(op2_cuda_params op2_p) {
  const long op2_t = (long)blockIdx.x * (long)blockDim.x + (long)threadIdx.x;
  if (op2_t < (long)(op2_p.end - op2_p.begin) * OP2_HALO_ROW_WORDS) {
    const int op2_r = (int)(op2_t / OP2_HALO_ROW_WORDS);
    const int op2_k = (int)(op2_t % OP2_HALO_ROW_WORDS);
    const int op2_n = OP2_LDG(op2_p.map[0][op2_p.begin + op2_r]);
    const OP2_HALO_WORD *op2_src =
        (const OP2_HALO_WORD *)op2_p.arg[0] + (long)op2_n * OP2_HALO_ROW_WORDS + op2_k;
    OP2_HALO_WORD *op2_dst = (OP2_HALO_WORD *)op2_p.arg[1] + op2_t;
    OP2_TOUCH(OP2_ACCESS_LD, op2_src, (unsigned)sizeof(OP2_HALO_WORD));
    OP2_TOUCH(OP2_ACCESS_ST, op2_dst, (unsigned)sizeof(OP2_HALO_WORD));
    *op2_dst = *op2_src;
  }
}
