/* SPDX-License-Identifier: BSD-3-Clause */
/* The CUDA strategies' own parts: the hierarchical staging in and out of shared memory and the
 * block's tree reduction, under the layout base/cuda_layout.c chose. The per-argument macros are
 * emit.c's, as for every target. */
#include <stdio.h>
#include <string.h>

#include "jit_internal.h"

void op2_emit_cuda_reduce(const op2_emitter *e) {
  const op2_loop_desc *loop = e->loop;
  const op2_cuda_layout *lay = e->lay;
  op2_buf *b = e->b;
  op2_buf_printf(b, "#define OP2_REDUCE");
  if (!lay->nred) {
    op2_buf_printf(b, "\n\n");
    return;
  }
  /* Scratch in shared memory, one array per reduction value (consecutive threads, consecutive
   * words); a tree halves the active threads each step; thread 0 writes the block's record. */
  op2_buf_printf(b,
                 " \\\n  { \\\n    OP2_DYNAMIC_SHARED(op2_rsm); \\\n"
                 "    char *const op2_rsb = op2_rsm + op2_p.red_smem_off; \\\n"
                 "    const int op2_bd = (int)blockDim.x, op2_tid = (int)threadIdx.x; \\\n"
                 "    int op2_p2 = 1;");
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (!op2_is_reduction(d)) continue;
    const char *t = op2_type_name(d->type);
    op2_buf_printf(b, " \\\n    %s *const op2_rs%d = (%s *)(op2_rsb + (size_t)op2_bd * %d);", t, i,
                   t, lay->red_off[i]);
    for (int k = 0; k < d->dim; k++)
      op2_buf_printf(b, " \\\n    op2_rs%d[%d * op2_bd + op2_tid] = op2_red%d[%d];", i, k, i, k);
  }
  op2_buf_printf(b,
                 " \\\n    __syncthreads(); \\\n    while (op2_p2 < op2_bd) op2_p2 <<= 1; \\\n"
                 "    for (int op2_s = op2_p2 / 2; op2_s > 0; op2_s >>= 1) { \\\n"
                 "      if (op2_tid < op2_s && op2_tid + op2_s < op2_bd) {");
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (!op2_is_reduction(d) || (int)d->acc == OP2_ACC_INFO) continue; /* infos: with their ref */
    const char *t = op2_type_name(d->type);
    for (int k = 0; k < d->dim; k++) {
      op2_buf_printf(b,
                     " \\\n        { %s *op2_x = op2_rs%d + %d * op2_bd + op2_tid; "
                     "const %s op2_y = op2_x[op2_s]; ",
                     t, i, k, t);
      if (d->acc == OP_INC) {
        op2_buf_printf(b, "*op2_x += op2_y; }");
        continue;
      }
      /* the higher thread's partial wins only when strictly better (a tie keeps the lower
       * thread's), and brings the infos of this reduction along */
      op2_buf_printf(b, "if (op2_y %s *op2_x) { *op2_x = op2_y;", d->acc == OP_MIN ? "<" : ">");
      for (int j = 0; j < loop->nargs; j++)
        if ((int)loop->desc[j].acc == OP2_ACC_INFO && loop->desc[j].info_of == i)
          op2_buf_printf(
              b, " op2_rs%d[%d * op2_bd + op2_tid] = op2_rs%d[%d * op2_bd + op2_tid + op2_s];", j,
              k, j, k);
      op2_buf_printf(b, " } }");
    }
  }
  op2_buf_printf(b,
                 " \\\n      } \\\n      __syncthreads(); \\\n    } \\\n"
                 "    if (op2_tid == 0) { \\\n      char *const op2_rec = op2_p.red + "
                 "(size_t)(op2_p.block_offset + (int)blockIdx.x) * %d;",
                 lay->red_rec_bytes);
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (!op2_is_reduction(d)) continue;
    const char *t = op2_type_name(d->type);
    op2_buf_printf(b, " \\\n      OP2_TOUCH(OP2_ACCESS_ST, op2_rec + %d, %d);", lay->red_off[i],
                   d->dim * (int)op2_type_size(d->type));
    for (int k = 0; k < d->dim; k++)
      op2_buf_printf(b, " \\\n      ((%s *)(op2_rec + %d))[%d] = op2_rs%d[%d * op2_bd];", t,
                     lay->red_off[i], k, i, k);
  }
  op2_buf_printf(b, " \\\n    } \\\n  }\n\n");
}

/* Hierarchical: staging in, increments into shared memory, staging out. */
void op2_emit_cuda_stage(const op2_emitter *e) {
  const op2_loop_desc *loop = e->loop;
  const op2_cuda_layout *lay = e->lay;
  op2_buf *b = e->b;
  op2_buf_printf(b, "#define OP2_STAGE_IN");
  for (int gi = 0; gi < lay->ngroups; gi++) {
    const op2_cuda_group *gr = &lay->groups[gi];
    const op2_arg_desc *d = &loop->desc[gr->first_arg];
    const char *t = op2_type_name(d->type);
    op2_buf_printf(b,
                   " \\\n  const int op2_gs%d = OP2_LDG(op2_p.ind_sizes[%d * op2_p.nblocks + "
                   "op2_blk]); \\\n  const int *OP2_RESTRICT const op2_gm%d = op2_p.ind_map + "
                   "OP2_LDG(op2_p.ind_offs[%d * op2_p.nblocks + op2_blk]); \\\n"
                   "  %s *OP2_RESTRICT const op2_sh%d = (%s *)(op2_smem + op2_p.goff[%d]); \\\n"
                   "  for (int op2_k = (int)threadIdx.x; op2_k < op2_gs%d * %d; op2_k += "
                   "(int)blockDim.x)",
                   gi, gi, gi, gi, t, gi, t, gi, gi, d->dim);
    /* shared-memory accesses are marked too: the emulator's race checker sees them */
    op2_buf_printf(b, " { \\\n    OP2_TOUCH(OP2_ACCESS_ST, op2_sh%d + op2_k, %d);", gi,
                   (int)op2_type_size(d->type));
    if (gr->mode == OP2_STAGE_INC) {
      op2_buf_printf(b, " op2_sh%d[op2_k] = -(%s)0;", gi, t); /* -0.0 + x is x, signs kept */
    } else {
      op2_buf_printf(b,
                     " \\\n    op2_sh%d[op2_k] = OP2_LDG(op2_dat%d[%d * (size_t)OP2_LDG("
                     "op2_gm%d[op2_k / %d]) + op2_k %% %d]);",
                     gi, gr->dat_group, d->dim, gi, d->dim, d->dim);
    }
    op2_buf_printf(b, " }");
  }
  op2_buf_printf(b, "\n\n");
  op2_emit_inc_add(e);
  op2_buf_printf(b, "#define OP2_STAGE_OUT");
  int any_out = 0;
  for (int gi = 0; gi < lay->ngroups; gi++) any_out |= lay->groups[gi].mode != OP2_STAGE_READ;
  if (any_out) op2_buf_printf(b, " \\\n  __syncthreads();");
  for (int gi = 0; gi < lay->ngroups; gi++) {
    const op2_cuda_group *gr = &lay->groups[gi];
    if (gr->mode == OP2_STAGE_READ) continue;
    const op2_arg_desc *d = &loop->desc[gr->first_arg];
    const char *t = op2_type_name(d->type);
    op2_buf_printf(b,
                   " \\\n  for (int op2_k = (int)threadIdx.x; op2_k < op2_gs%d * %d; op2_k += "
                   "(int)blockDim.x) { \\\n    %s *const op2_o = op2_dat%d + %d * (size_t)OP2_LDG("
                   "op2_gm%d[op2_k / %d]) + op2_k %% %d; \\\n    OP2_TOUCH(%s, op2_o, %d); "
                   "OP2_TOUCH(OP2_ACCESS_LD, op2_sh%d + op2_k, %d); "
                   "\\\n    *op2_o %s op2_sh%d[op2_k]; \\\n  }",
                   gi, d->dim, t, gr->dat_group, d->dim, gi, d->dim, d->dim,
                   gr->mode == OP2_STAGE_INC ? "OP2_ACCESS_LDST" : "OP2_ACCESS_ST",
                   (int)op2_type_size(d->type), gi, (int)op2_type_size(d->type),
                   gr->mode == OP2_STAGE_INC ? "+=" : "=", gi);
  }
  op2_buf_printf(b, "\n\n");
}
