/* SPDX-License-Identifier: BSD-3-Clause */
/* The CUDA strategies' own parts: choosing a strategy and laying out its staging areas and
 * reduction records, the hierarchical staging in and out of shared memory, and the block's tree
 * reduction. The per-argument macros are emit.c's, as for every target. */
#include <stdio.h>
#include <string.h>

#include "jit_internal.h"

const char *op2_cuda_strategy_name(op2_cuda_strategy s) {
  static const char *names[] = {"direct", "atomics", "global", "hierarchical"};
  return (unsigned)s < 4 ? names[s] : "?";
}

static int align8(int n) {
  return (n + 7) / 8 * 8;
}

int op2_cuda_find_group(const op2_cuda_layout *lay, const op2_arg_desc *d) {
  for (int g = 0; g < lay->ngroups; g++)
    if (lay->groups[g].dat_group == d->dat_group) return g;
  return -1;
}

int op2_cuda_find_slot(const op2_cuda_layout *lay, int group, int map_group, int col) {
  group = lay->groups[group].index_of;
  for (int s = 0; s < lay->nslots; s++)
    if (lay->slots[s].group == group && lay->slots[s].map_group == map_group &&
        lay->slots[s].col == col)
      return s;
  return -1;
}

/* Whether groups a and b are reached through the same set of (map, column) pairs. */
static int same_slots(const op2_cuda_layout *lay, int a, int b) {
  int na = 0, nb = 0;
  for (int s = 0; s < lay->nslots; s++) {
    const op2_cuda_slot *x = &lay->slots[s];
    if (x->group == b) nb++;
    if (x->group != a) continue;
    na++;
    int found = 0;
    for (int t = 0; t < lay->nslots && !found; t++)
      found = lay->slots[t].group == b && lay->slots[t].map_group == x->map_group &&
              lay->slots[t].col == x->col;
    if (!found) return 0;
  }
  return na == nb;
}

/* One staging index row per (map, column) where groups agree (Airfoil's res_calc: q, adt and
 * res through pecell share theirs): a group with an earlier twin drops its own slots. */
static void share_index_rows(op2_cuda_layout *lay) {
  for (int g = 1; g < lay->ngroups; g++)
    for (int h = 0; h < g; h++)
      if (lay->groups[h].index_of == h && same_slots(lay, g, h)) {
        lay->groups[g].index_of = h;
        break;
      }
  int kept = 0;
  for (int s = 0; s < lay->nslots; s++)
    if (lay->groups[lay->slots[s].group].index_of == lay->slots[s].group)
      lay->slots[kept++] = lay->slots[s];
  lay->nslots = kept;
}

int op2_cuda_layout_make(op2_jit *jit, const op2_loop_desc *loop, int asked, op2_cuda_layout *out) {
  memset(out, 0, sizeof *out);
  if (loop->nargs > OP2_CUDA_MAX_ARGS)
    return op2_jit_fail(jit, OP2_ERR_ARG,
                        "op_par_loop '%s': the CUDA backends take at most %d "
                        "arguments, this loop has %d",
                        loop->name, OP2_CUDA_MAX_ARGS, loop->nargs);
  int indirect = 0, non_inc_writes = 0;
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    out->red_off[i] = -1;
    if (d->map_group + 1 > out->nmap_groups) out->nmap_groups = d->map_group + 1;
    if (op2_is_reduction(d)) {
      out->red_off[i] = out->red_rec_bytes;
      out->red_rec_bytes += align8(d->dim * (int)op2_type_size(d->type));
      out->nred++;
    }
    if (!op2_is_indirect_dat(d)) continue;
    indirect = 1;
    if (d->acc != OP_READ) out->indirect_writes = 1;
    if (d->acc != OP_READ && d->acc != OP_INC) non_inc_writes = 1;
  }
  out->red_thread_bytes = out->red_rec_bytes;
  op2_cuda_strategy s;
  if (!indirect)
    s = OP2_CUDA_DIRECT;
  else if (asked < 0)
    s = non_inc_writes ? OP2_CUDA_HIER : OP2_CUDA_ATOMICS;
  else
    s = (op2_cuda_strategy)asked;
  if (s == OP2_CUDA_ATOMICS && non_inc_writes) {
    s = OP2_CUDA_GLOBAL;
    snprintf(out->why, sizeof out->why,
             "atomics asked, but an indirect argument is written "
             "with OP_WRITE or OP_RW: global colouring instead");
  }
  if (s == OP2_CUDA_GLOBAL && !out->indirect_writes) {
    s = OP2_CUDA_ATOMICS; /* nothing to colour: one launch over every element */
    snprintf(out->why, sizeof out->why,
             "global colouring asked, but nothing is written through "
             "a map: one launch, as atomics");
  }
  out->strategy = s;
  if (s != OP2_CUDA_HIER) return OP2_OK;
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (!op2_is_indirect_dat(d)) continue;
    int mode = d->acc == OP_READ ? OP2_STAGE_READ : d->acc == OP_INC ? OP2_STAGE_INC : OP2_STAGE_RW;
    int g = op2_cuda_find_group(out, d);
    if (g < 0) {
      g = out->ngroups++;
      out->groups[g] = (op2_cuda_group){d->dat_group, i, mode, g};
    } else if (out->groups[g].mode != mode) {
      out->groups[g].mode = OP2_STAGE_RW; /* read and incremented: loaded and stored back */
    }
    int lo, hi;
    op2_arg_columns(d, &lo, &hi);
    for (int c = lo; c < hi; c++) {
      if (op2_cuda_find_slot(out, g, d->map_group, c) >= 0) continue;
      if (out->nslots == (int)(sizeof out->slots / sizeof out->slots[0]))
        return op2_jit_fail(jit, OP2_ERR_ARG,
                            "op_par_loop '%s': too many map columns for the "
                            "hierarchical CUDA strategy",
                            loop->name);
      out->slots[out->nslots++] = (op2_cuda_slot){g, d->map_group, c, i};
    }
  }
  for (int g = 0; g < out->ngroups; g++) out->in_colour |= out->groups[g].mode == OP2_STAGE_RW;
  share_index_rows(out);
  return OP2_OK;
}

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
