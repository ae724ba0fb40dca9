/* CUDA code generation. Same mechanism as the C generator (codegen.c): the signature as a comment,
 * a prelude, the constants as literals, the user's kernel under #line, a block of #defines
 * describing the arguments, then a template (templates/cuda/) that expands them. The user's
 * kernel becomes a device function unchanged (NVRTC -default-device); one __global__ wrapper,
 * op2_cuda_kernel, runs it. The generated text stays within the subset of CUDA that is also C, so
 * the emulation backend can compile the very same file on the host. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit.h"
#include "../runtime/cuda/cuda.h"

const char *op2_cuda_strategy_name(op2_cuda_strategy s) {
  static const char *names[] = {"direct", "atomics", "global", "hierarchical"};
  return (unsigned)s < 4 ? names[s] : "?";
}

/* The type name as one token, for op2_atomic_add_<type>. */
static const char *type_token(op2_type t) {
  return t == OP2_TYPE_LONGLONG ? "longlong" : op2_type_name(t);
}

static int align8(int n) {
  return (n + 7) / 8 * 8;
}

static int is_reduction(const op2_arg_desc *d) {
  return d->kind == OP2_ARG_GBL && d->acc != OP_READ;
}

static int is_indirect_dat(const op2_arg_desc *d) {
  return d->kind == OP2_ARG_DAT && !d->opt_off && d->map_arity > 0;
}

/* Columns an argument reaches: [lo, hi). */
static void arg_columns(const op2_arg_desc *d, int *lo, int *hi) {
  *lo = d->idx < 0 ? 0 : d->idx;
  *hi = d->idx < 0 ? -d->idx : d->idx + 1;
}

static int find_group(const op2_cuda_layout *lay, const op2_arg_desc *d) {
  for (int g = 0; g < lay->ngroups; g++)
    if (lay->groups[g].dat_group == d->dat_group && lay->groups[g].map_group == d->map_group)
      return g;
  return -1;
}

static int find_slot(const op2_cuda_layout *lay, int group, int col) {
  for (int s = 0; s < lay->nslots; s++)
    if (lay->slots[s].group == group && lay->slots[s].col == col) return s;
  return -1;
}

int op2_cuda_layout_make(const op2_loop *loop, int asked, op2_cuda_layout *out) {
  memset(out, 0, sizeof *out);
  if (loop->nargs > OP2_CUDA_MAX_ARGS)
    return op2_error(OP2_ERR_ARG,
                     "op_par_loop '%s': the CUDA backends take at most %d "
                     "arguments, this loop has %d",
                     loop->name, OP2_CUDA_MAX_ARGS, loop->nargs);
  int indirect = 0, non_inc_writes = 0;
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    out->red_off[i] = -1;
    if (d->map_group + 1 > out->nmap_groups) out->nmap_groups = d->map_group + 1;
    if (is_reduction(d)) {
      out->red_off[i] = out->red_rec_bytes;
      out->red_rec_bytes += align8(d->dim * (int)op2_type_size(d->type));
      out->nred++;
    }
    if (!is_indirect_dat(d)) continue;
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
    if (!is_indirect_dat(d)) continue;
    int mode = d->acc == OP_READ ? OP2_STAGE_READ : d->acc == OP_INC ? OP2_STAGE_INC : OP2_STAGE_RW;
    int g = find_group(out, d);
    if (g < 0) {
      g = out->ngroups++;
      out->groups[g] = (op2_cuda_group){d->dat_group, d->map_group, i, mode};
    } else if (out->groups[g].mode != mode) {
      out->groups[g].mode = OP2_STAGE_RW; /* read and incremented: loaded and stored back */
    }
    int lo, hi;
    arg_columns(d, &lo, &hi);
    for (int c = lo; c < hi; c++) {
      if (find_slot(out, g, c) >= 0) continue;
      if (out->nslots == (int)(sizeof out->slots / sizeof out->slots[0]))
        return op2_error(OP2_ERR_ARG,
                         "op_par_loop '%s': too many map columns for the "
                         "hierarchical CUDA strategy",
                         loop->name);
      out->slots[out->nslots++] = (op2_cuda_slot){g, c};
    }
  }
  for (int g = 0; g < out->ngroups; g++) out->in_colour |= out->groups[g].mode == OP2_STAGE_RW;
  return OP2_OK;
}

/* ---- emitting ---- */

typedef struct gen {
  op2_buf *b;
  const op2_loop *loop;
  const op2_cuda_layout *lay;
  int site; /* next access site; 0..4 are the templates' own */
} gen;

static int next_site(gen *g) {
  return g->site++;
}

static int access_kind(op_access acc) {
  return acc == OP_READ ? OP2_ACCESS_LD : acc == OP_WRITE ? OP2_ACCESS_ST : OP2_ACCESS_LDST;
}

static void emit_declare(gen *g) {
  op2_buf *b = g->b;
  const op2_loop *loop = g->loop;
  op2_buf_printf(b, "#define OP2_DECLARE");
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (d->opt_off) continue;
    const char *t = op2_type_name(d->type);
    if (d->kind == OP2_ARG_IDX) {
      op2_buf_printf(b, " \\\n  int *const op2_orig%d = (int *)op2_p.arg[%d];", i, i);
    } else if (d->kind == OP2_ARG_GBL) {
      op2_buf_printf(b, " \\\n  %s *OP2_RESTRICT const op2_arg%d = (%s *)op2_p.arg[%d];", t, i, t,
                     i);
      /* A reduction accumulates per thread from the identity (INC) or the caller's value. */
      if (d->acc != OP_READ) {
        op2_buf_printf(b, " \\\n  %s op2_red%d[%d];", t, i, d->dim);
        for (int k = 0; k < d->dim; k++) {
          if (d->acc == OP_INC)
            op2_buf_printf(b, " \\\n  op2_red%d[%d] = (%s)0;", i, k, t);
          else
            op2_buf_printf(b, " \\\n  op2_red%d[%d] = OP2_LDG(%d, op2_arg%d[%d]);", i, k,
                           next_site(g), i, k);
        }
      }
    } else if (op2_first_arg_of_dat_group(loop, d->dat_group) == i) {
      op2_buf_printf(b, " \\\n  %s *OP2_RESTRICT const op2_dat%d = (%s *)op2_p.arg[%d];", t,
                     d->dat_group, t, i);
    }
  }
  for (int m = 0; m < g->lay->nmap_groups; m++)
    if (op2_first_arg_of_map_group(loop, m) >= 0)
      op2_buf_printf(b, " \\\n  const int *OP2_RESTRICT const op2_map%d = op2_p.map[%d];", m, m);
  op2_buf_printf(b, "\n\n");
}

/* Map indices some argument needs through global memory: (group, column) flags. */
static void needed_indices(const gen *g, int max_arity, char *need) {
  const op2_loop *loop = g->loop;
  int hier = g->lay->strategy == OP2_CUDA_HIER;
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (d->opt_off || !d->map_arity) continue;
    if (hier && d->kind == OP2_ARG_DAT) continue; /* staged: local indices instead */
    int lo, hi;
    arg_columns(d, &lo, &hi);
    for (int c = lo; c < hi; c++) need[d->map_group * max_arity + c] = 1;
  }
}

/* Hierarchical: threads past the end of a short block load nothing. */
static void emit_map_indices(gen *g, int hier) {
  const op2_loop *loop = g->loop;
  int max_arity = 1;
  for (int i = 0; i < loop->nargs; i++)
    if (loop->desc[i].map_arity > max_arity) max_arity = loop->desc[i].map_arity;
  int ngroups = g->lay->nmap_groups ? g->lay->nmap_groups : 1;
  char *need = calloc((size_t)ngroups * (size_t)max_arity, 1);
  if (!need) {
    g->b->failed = 1;
    return;
  }
  needed_indices(g, max_arity, need);
  for (int m = 0; m < g->lay->nmap_groups; m++) {
    int first = op2_first_arg_of_map_group(loop, m);
    if (first < 0) continue;
    int arity = loop->desc[first].map_arity;
    for (int c = 0; c < arity; c++)
      if (need[m * max_arity + c])
        op2_buf_printf(
            g->b, " \\\n    const int op2_i%d_%d = %sOP2_LDG(%d, op2_map%d[%d * op2_n + %d])%s;", m,
            c, hier ? "op2_active ? " : "", next_site(g), m, arity, c, hier ? " : 0" : "");
  }
  free(need);
}

static void emit_touch(gen *g, int kind, const char *fmt_ptr, int bytes, int hier) {
  op2_buf_printf(g->b, " \\\n    %sOP2_TOUCH(%d, %d, %s, %d);", hier ? "if (op2_active) " : "",
                 next_site(g), kind, fmt_ptr, bytes);
}

/* Everything an element needs before the call. */
static void emit_element(gen *g) {
  const op2_loop *loop = g->loop;
  const op2_cuda_layout *lay = g->lay;
  int hier = lay->strategy == OP2_CUDA_HIER, atomics = lay->strategy == OP2_CUDA_ATOMICS;
  op2_buf *b = g->b;
  op2_buf_printf(b, "#define OP2_ELEMENT");
  if (hier)
    for (int s = 0; s < lay->nslots; s++)
      op2_buf_printf(b,
                     " \\\n    const int op2_l%d = op2_active ? OP2_LDG(%d, op2_p.loc_map[%d * "
                     "op2_p.npos + op2_pos]) : 0;",
                     s, next_site(g), s);
  emit_map_indices(g, hier);
  char ptr[160];
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (d->opt_off) continue;
    const char *t = op2_type_name(d->type);
    int bytes = d->dim * (int)op2_type_size(d->type);
    if (d->kind == OP2_ARG_GBL) {
      if (d->acc == OP_READ) {
        snprintf(ptr, sizeof ptr, "op2_arg%d", i);
        emit_touch(g, OP2_ACCESS_LD, ptr, bytes, hier);
      }
      continue;
    }
    if (d->kind == OP2_ARG_IDX) {
      char local[64];
      if (d->map_arity)
        snprintf(local, sizeof local, "op2_i%d_%d", d->map_group, d->idx);
      else
        snprintf(local, sizeof local, "op2_n");
      op2_buf_printf(b, " \\\n    int op2_idx%d = %sop2_orig%d ? OP2_LDG(%d, op2_orig%d[%s]) : %s;",
                     i, hier ? "op2_active && " : "", i, next_site(g), i, local, local);
      continue;
    }
    if (!d->map_arity) {
      snprintf(ptr, sizeof ptr, "op2_dat%d + %d * op2_n", d->dat_group, d->dim);
      emit_touch(g, access_kind(d->acc), ptr, bytes, hier);
      continue;
    }
    int lo, hi;
    arg_columns(d, &lo, &hi);
    int vector = d->idx < 0, k = hi - lo;
    int group = hier ? find_group(lay, d) : -1;
    int local_inc = d->acc == OP_INC && (atomics || (hier && !lay->in_colour));
    if (local_inc) { /* increments accumulate in registers */
      if (vector) {
        op2_buf_printf(b, " \\\n    %s op2_inc%d[%d][%d] = {{0}}; \\\n    %s *op2_vec%d[%d] = {", t,
                       i, k, d->dim, t, i, k);
        for (int c = 0; c < k; c++) op2_buf_printf(b, "%sop2_inc%d[%d]", c ? ", " : "", i, c);
        op2_buf_printf(b, "};");
      } else {
        op2_buf_printf(b, " \\\n    %s op2_inc%d[%d] = {0};", t, i, d->dim);
      }
      continue;
    }
    if (vector)
      op2_buf_printf(b, " \\\n    %s%s *op2_vec%d[%d] = {", d->acc == OP_READ ? "const " : "", t, i,
                     k);
    for (int c = lo; c < hi; c++) {
      if (hier)
        snprintf(ptr, sizeof ptr, "op2_sh%d + %d * op2_l%d", group, d->dim,
                 find_slot(lay, group, c));
      else
        snprintf(ptr, sizeof ptr, "op2_dat%d + %d * op2_i%d_%d", d->dat_group, d->dim, d->map_group,
                 c);
      if (vector) op2_buf_printf(b, "%s%s", c > lo ? ", " : "", ptr);
    }
    if (vector) op2_buf_printf(b, "};");
    if (!hier) /* staged data is in shared memory: nothing to count */
      for (int c = lo; c < hi; c++) {
        snprintf(ptr, sizeof ptr, "op2_dat%d + %d * op2_i%d_%d", d->dat_group, d->dim, d->map_group,
                 c);
        emit_touch(g, access_kind(d->acc), ptr, bytes, 0);
      }
  }
  op2_buf_printf(b, "\n\n");
}

static void emit_call_args(gen *g) {
  const op2_loop *loop = g->loop;
  const op2_cuda_layout *lay = g->lay;
  int hier = lay->strategy == OP2_CUDA_HIER, atomics = lay->strategy == OP2_CUDA_ATOMICS;
  op2_buf *b = g->b;
  op2_buf_printf(b, "#define OP2_CALL_ARGS");
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    const char *sep = i + 1 < loop->nargs ? "," : "";
    const char *t = op2_type_name(d->type);
    if (d->opt_off && d->idx < -1)
      op2_buf_printf(b, " \\\n    (%s%s **)0%s", d->acc == OP_READ ? "const " : "", t, sep);
    else if (d->opt_off)
      op2_buf_printf(b, " \\\n    (%s *)0%s", t, sep);
    else if (d->kind == OP2_ARG_GBL)
      op2_buf_printf(b, " \\\n    op2_%s%d%s", d->acc == OP_READ ? "arg" : "red", i, sep);
    else if (d->kind == OP2_ARG_IDX)
      op2_buf_printf(b, " \\\n    &op2_idx%d%s", i, sep);
    else if (!d->map_arity)
      op2_buf_printf(b, " \\\n    op2_dat%d + %d * op2_n%s", d->dat_group, d->dim, sep);
    else if (d->idx < 0)
      op2_buf_printf(b, " \\\n    op2_vec%d%s", i, sep);
    else if (d->acc == OP_INC && (atomics || (hier && !lay->in_colour)))
      op2_buf_printf(b, " \\\n    op2_inc%d%s", i, sep);
    else if (hier) {
      int group = find_group(lay, d);
      op2_buf_printf(b, " \\\n    op2_sh%d + %d * op2_l%d%s", group, d->dim,
                     find_slot(lay, group, d->idx), sep);
    } else {
      op2_buf_printf(b, " \\\n    op2_dat%d + %d * op2_i%d_%d%s", d->dat_group, d->dim,
                     d->map_group, d->idx, sep);
    }
  }
  op2_buf_printf(b, "\n\n");
}

/* The increment registers of argument i, column c (its position within the argument). */
static void inc_register(const op2_arg_desc *d, int i, int c_pos, int k, char *out, size_t len) {
  if (d->idx < 0)
    snprintf(out, len, "op2_inc%d[%d][%d]", i, c_pos, k);
  else
    snprintf(out, len, "op2_inc%d[%d]", i, k);
}

/* Atomics: the increments go to global memory, one atomic add per value. */
static void emit_after(gen *g) {
  const op2_loop *loop = g->loop;
  op2_buf *b = g->b;
  op2_buf_printf(b, "#define OP2_AFTER");
  if (g->lay->strategy == OP2_CUDA_ATOMICS)
    for (int i = 0; i < loop->nargs; i++) {
      const op2_arg_desc *d = &loop->desc[i];
      if (!is_indirect_dat(d) || d->acc != OP_INC) continue;
      int lo, hi;
      arg_columns(d, &lo, &hi);
      for (int c = lo; c < hi; c++)
        for (int k = 0; k < d->dim; k++) {
          char reg[64];
          inc_register(d, i, c - lo, k, reg, sizeof reg);
          op2_buf_printf(b, " \\\n    op2_atomic_add_%s(%d, op2_dat%d + %d * op2_i%d_%d + %d, %s);",
                         type_token(d->type), next_site(g), d->dat_group, d->dim, d->map_group, c,
                         k, reg);
        }
    }
  op2_buf_printf(b, "\n\n");
}

static void emit_reduce(gen *g) {
  const op2_loop *loop = g->loop;
  const op2_cuda_layout *lay = g->lay;
  op2_buf *b = g->b;
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
    if (!is_reduction(d)) continue;
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
    if (!is_reduction(d)) continue;
    const char *t = op2_type_name(d->type);
    for (int k = 0; k < d->dim; k++) {
      op2_buf_printf(b,
                     " \\\n        { %s *op2_x = op2_rs%d + %d * op2_bd + op2_tid; "
                     "const %s op2_y = op2_x[op2_s]; ",
                     t, i, k, t);
      if (d->acc == OP_INC)
        op2_buf_printf(b, "*op2_x += op2_y; }");
      else
        op2_buf_printf(b, "if (op2_y %s *op2_x) *op2_x = op2_y; }", d->acc == OP_MIN ? "<" : ">");
    }
  }
  op2_buf_printf(b,
                 " \\\n      } \\\n      __syncthreads(); \\\n    } \\\n"
                 "    if (op2_tid == 0) { \\\n      char *const op2_rec = op2_p.red + "
                 "(size_t)(op2_p.block_offset + (int)blockIdx.x) * %d;",
                 lay->red_rec_bytes);
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (!is_reduction(d)) continue;
    const char *t = op2_type_name(d->type);
    op2_buf_printf(b, " \\\n      OP2_TOUCH(%d, %d, op2_rec + %d, %d);", next_site(g),
                   OP2_ACCESS_ST, lay->red_off[i], d->dim * (int)op2_type_size(d->type));
    for (int k = 0; k < d->dim; k++)
      op2_buf_printf(b, " \\\n      ((%s *)(op2_rec + %d))[%d] = op2_rs%d[%d * op2_bd];", t,
                     lay->red_off[i], k, i, k);
  }
  op2_buf_printf(b, " \\\n    } \\\n  }\n\n");
}

/* Hierarchical: staging in, increments into shared memory, staging out. */
static void emit_stage(gen *g) {
  const op2_loop *loop = g->loop;
  const op2_cuda_layout *lay = g->lay;
  op2_buf *b = g->b;
  op2_buf_printf(b, "#define OP2_STAGE_IN");
  for (int gi = 0; gi < lay->ngroups; gi++) {
    const op2_cuda_group *gr = &lay->groups[gi];
    const op2_arg_desc *d = &loop->desc[gr->first_arg];
    const char *t = op2_type_name(d->type);
    int s_size = next_site(g), s_off = next_site(g); /* in order: printf's are not */
    op2_buf_printf(b,
                   " \\\n  const int op2_gs%d = OP2_LDG(%d, op2_p.ind_sizes[%d * op2_p.nblocks + "
                   "op2_blk]); \\\n  const int *OP2_RESTRICT const op2_gm%d = op2_p.ind_map + "
                   "OP2_LDG(%d, op2_p.ind_offs[%d * op2_p.nblocks + op2_blk]); \\\n"
                   "  %s *OP2_RESTRICT const op2_sh%d = (%s *)(op2_smem + op2_p.goff[%d]); \\\n"
                   "  for (int op2_k = (int)threadIdx.x; op2_k < op2_gs%d * %d; op2_k += "
                   "(int)blockDim.x)",
                   gi, s_size, gi, gi, s_off, gi, t, gi, t, gi, gi, d->dim);
    if (gr->mode == OP2_STAGE_INC) {
      op2_buf_printf(b, " op2_sh%d[op2_k] = (%s)0;", gi, t);
    } else {
      int s_map = next_site(g), s_dat = next_site(g);
      op2_buf_printf(b,
                     " \\\n    op2_sh%d[op2_k] = OP2_LDG(%d, op2_dat%d[%d * OP2_LDG(%d, "
                     "op2_gm%d[op2_k / %d]) + op2_k %% %d]);",
                     gi, s_dat, gr->dat_group, d->dim, s_map, gi, d->dim, d->dim);
    }
  }
  op2_buf_printf(b, "\n\n#define OP2_INC_ADD");
  if (!lay->in_colour)
    for (int i = 0; i < loop->nargs; i++) {
      const op2_arg_desc *d = &loop->desc[i];
      if (!is_indirect_dat(d) || d->acc != OP_INC) continue;
      int gi = find_group(lay, d), lo, hi;
      arg_columns(d, &lo, &hi);
      for (int c = lo; c < hi; c++)
        for (int k = 0; k < d->dim; k++) {
          char reg[64];
          inc_register(d, i, c - lo, k, reg, sizeof reg);
          op2_buf_printf(b, " \\\n        op2_sh%d[%d * op2_l%d + %d] += %s;", gi, d->dim,
                         find_slot(lay, gi, c), k, reg);
        }
    }
  op2_buf_printf(b, "\n\n#define OP2_STAGE_OUT");
  int any_out = 0;
  for (int gi = 0; gi < lay->ngroups; gi++) any_out |= lay->groups[gi].mode != OP2_STAGE_READ;
  if (any_out) op2_buf_printf(b, " \\\n  __syncthreads();");
  for (int gi = 0; gi < lay->ngroups; gi++) {
    const op2_cuda_group *gr = &lay->groups[gi];
    if (gr->mode == OP2_STAGE_READ) continue;
    const op2_arg_desc *d = &loop->desc[gr->first_arg];
    const char *t = op2_type_name(d->type);
    int s_map = next_site(g), s_dat = next_site(g);
    op2_buf_printf(b,
                   " \\\n  for (int op2_k = (int)threadIdx.x; op2_k < op2_gs%d * %d; op2_k += "
                   "(int)blockDim.x) { \\\n    %s *const op2_o = op2_dat%d + %d * OP2_LDG(%d, "
                   "op2_gm%d[op2_k / %d]) + op2_k %% %d; \\\n    OP2_TOUCH(%d, %d, op2_o, %d); "
                   "\\\n    *op2_o %s op2_sh%d[op2_k]; \\\n  }",
                   gi, d->dim, t, gr->dat_group, d->dim, s_map, gi, d->dim, d->dim, s_dat,
                   gr->mode == OP2_STAGE_INC ? OP2_ACCESS_LDST : OP2_ACCESS_ST,
                   (int)op2_type_size(d->type), gr->mode == OP2_STAGE_INC ? "+=" : "=", gi);
  }
  op2_buf_printf(b, "\n\n");
}

static int count_lines(const char *s, size_t len) {
  int n = 0;
  for (size_t i = 0; i < len; i++) n += s[i] == '\n';
  return n;
}

int op2_codegen_cuda(const op2_context *ctx, const op2_loop *loop, const char *kernel_src,
                     const op2_cuda_layout *lay, op2_generated *out) {
  memset(out, 0, sizeof *out);
  op2_const **used = NULL;
  int nused = 0;
  int hier = lay->strategy == OP2_CUDA_HIER;
  OP2_CALL(op2_signature_describe(loop, "cuda", &out->signature));
  op2_buf_printf(&out->signature, "strategy %s\n", op2_cuda_strategy_name(lay->strategy));
  OP2_CALL(op2_constants_used(ctx, kernel_src, &used, &nused));
  char *prelude = op2_template_load(ctx, "cuda/prelude.h");
  char *params = prelude ? op2_template_load(ctx, "cuda/params.h") : NULL;
  char *tmpl =
      params ? op2_template_load(ctx, hier ? "cuda/hierarchical.cu" : "cuda/elementwise.cu") : NULL;
  if (!tmpl) {
    free(prelude), free(params), free(used);
    return OP2_ERR_JIT;
  }
  op2_buf *b = &out->source;
  op2_emit_header(b, loop->name, "cu", "CUDA kernel", out->signature.data, used, nused);
  op2_buf_printf(b, " */\n#ifndef OP2_EMULATION\n");
  op2_buf_append(b, prelude, strlen(prelude));
  op2_buf_printf(b, "#endif\n");
  op2_buf_append(b, params, strlen(params));
  /* scalars fold into the code as literals; arrays live in constant memory */
  op2_emit_constants(b, used, nused, "__constant__ ");
  out->kernel_first_line = count_lines(b->data, b->len) + 3;
  op2_buf_printf(b,
                 "\n/* The user's kernel, as given to op_par_loop: a device function. */\n"
                 "#line 1 \"kernel:%s\"\n",
                 loop->name);
  size_t klen = strlen(kernel_src);
  op2_buf_append(b, kernel_src, klen);
  if (klen && kernel_src[klen - 1] != '\n') op2_buf_append(b, "\n", 1);
  op2_buf_printf(b, "#line %d \"%s.cu\"\n", count_lines(b->data, b->len) + 2, loop->name);
  gen g = {b, loop, lay, 8};
  op2_buf_printf(b,
                 "\n#define OP2_KERNEL %s\n#define OP2_COLOURED %d\n#define OP2_IN_COLOUR %d\n"
                 "#define OP2_USES_BARRIERS %d\n\n",
                 loop->name, lay->strategy == OP2_CUDA_GLOBAL, lay->in_colour,
                 hier || lay->nred > 0);
  emit_declare(&g);
  emit_element(&g);
  emit_call_args(&g);
  emit_after(&g);
  if (hier) emit_stage(&g);
  emit_reduce(&g);
  op2_buf_append(b, tmpl, strlen(tmpl));
  free(prelude), free(params), free(tmpl), free(used);
  if (b->failed || out->signature.failed) {
    op2_buf_free(&out->source), op2_buf_free(&out->signature);
    return op2_error(OP2_ERR_MEM, "out of memory generating CUDA code for loop '%s'", loop->name);
  }
  return OP2_OK;
}

int op2_codegen_cuda_halo_gather(const op2_context *ctx, size_t row_bytes, op2_generated *out) {
  memset(out, 0, sizeof *out);
  size_t word = row_bytes % 8 == 0 ? 8 : row_bytes % 4 == 0 ? 4 : 1;
  const char *word_type = word == 8   ? "unsigned long long"
                          : word == 4 ? "unsigned int"
                                      : "unsigned char";
  op2_buf_printf(&out->signature, "halo gather\nrow bytes %zu\ntarget cuda\n", row_bytes);
  char *prelude = op2_template_load(ctx, "cuda/prelude.h");
  char *params = prelude ? op2_template_load(ctx, "cuda/params.h") : NULL;
  char *tmpl = params ? op2_template_load(ctx, "cuda/halo_gather.cu") : NULL;
  if (!tmpl) {
    free(prelude), free(params);
    return OP2_ERR_JIT;
  }
  op2_buf *b = &out->source;
  op2_emit_header(b, "op2_halo_gather", "cu", "CUDA kernel", out->signature.data, NULL, 0);
  op2_buf_printf(b, " */\n#ifndef OP2_EMULATION\n");
  op2_buf_append(b, prelude, strlen(prelude));
  op2_buf_printf(b, "#endif\n");
  op2_buf_append(b, params, strlen(params));
  op2_buf_printf(b,
                 "\n#define OP2_USES_BARRIERS 0\n#define OP2_HALO_WORD %s\n"
                 "#define OP2_HALO_ROW_WORDS %zu\n\n",
                 word_type, row_bytes / word);
  op2_buf_append(b, tmpl, strlen(tmpl));
  free(prelude), free(params), free(tmpl);
  if (b->failed || out->signature.failed) {
    op2_buf_free(&out->source), op2_buf_free(&out->signature);
    return op2_error(OP2_ERR_MEM, "out of memory generating the CUDA halo gather kernel");
  }
  return OP2_OK;
}
