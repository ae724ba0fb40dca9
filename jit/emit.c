/* SPDX-License-Identifier: BSD-3-Clause */
/* Argument descriptors -> the argument macros of a generated kernel, for every target and
 * strategy (emit.h says what each macro is for). Where an argument's data lives during one
 * element is decided once, in `place`; every macro is spelled from that decision. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit_internal.h"
#include "kernel_lanes.h"

/* What differs between targets in the macros, as data rather than branches. */
typedef struct target_traits {
  const char *restrict_kw;
  const char *arg;    /* the argument array, indexed by argument */
  const char *map;    /* the map array */
  int maps_by_group;  /* maps passed per map group (CUDA) or per argument (C) */
  int count_traffic;  /* global loads and stores spelled OP2_LDG / OP2_TOUCH, counted by the
                         emulator and no-ops on the GPU */
  int red_from_zero;  /* an OP_INC reduction's partial starts at zero instead of the value given */
  int guard_inactive; /* threads past the end of a block (hierarchical) load nothing */
  const char *wide;   /* cast that makes an element index times a dim or arity 64-bit: a GPU's
                         dats pass 2^31 values long before their sets pass 2^31 elements */
} target_traits;

static const target_traits c_traits = {
    .restrict_kw = "restrict", .arg = "op2_args", .map = "op2_maps", .wide = ""};
static const target_traits cuda_traits = {.restrict_kw = "OP2_RESTRICT",
                                          .arg = "op2_p.arg",
                                          .map = "op2_p.map",
                                          .maps_by_group = 1,
                                          .count_traffic = 1,
                                          .red_from_zero = 1,
                                          .wide = "(size_t)"};
static const target_traits cuda_block_traits = {.restrict_kw = "OP2_RESTRICT",
                                                .arg = "op2_p.arg",
                                                .map = "op2_p.map",
                                                .maps_by_group = 1,
                                                .count_traffic = 1,
                                                .red_from_zero = 1,
                                                .guard_inactive = 1,
                                                .wide = "(size_t)"};

static const target_traits *traits_of(op2_emit_strategy s) {
  return s == OP2_EMIT_C_RANGE || s == OP2_EMIT_C_SIMD ? &c_traits
         : s == OP2_EMIT_CUDA_HIER                     ? &cuda_block_traits
                                                       : &cuda_traits;
}

int op2_first_arg_of_dat_group(const op2_loop_desc *loop, int group) {
  for (int i = 0; i < loop->nargs; i++)
    if (loop->desc[i].dat_group == group && !loop->desc[i].opt_off) return i;
  return -1;
}

int op2_first_arg_of_map_group(const op2_loop_desc *loop, int group) {
  for (int i = 0; i < loop->nargs; i++)
    if (loop->desc[i].map_group == group) return i;
  return -1;
}

/* Where an indirect dat argument's data is while an element runs. */
typedef enum {
  IN_PLACE,     /* global memory, through the map */
  IN_REGISTERS, /* increments summed from zero in registers, added after the call */
  STAGED        /* the block's copy in shared memory */
} placement;

/* Hierarchical: indirect dats are staged per block, reached through local indices. */
static int staged(const op2_emitter *e, const op2_arg_desc *d) {
  return e->strategy == OP2_EMIT_CUDA_HIER && op2_is_indirect_dat(d);
}

static placement place(const op2_emitter *e, const op2_arg_desc *d) {
  switch (e->strategy) {
    case OP2_EMIT_CUDA_ELEMENT:
      return d->acc == OP_INC ? IN_REGISTERS : IN_PLACE;
    case OP2_EMIT_CUDA_HIER:
      /* in colour, increments go to shared memory directly in the thread colour's turn */
      return d->acc == OP_INC && !e->lay->in_colour ? IN_REGISTERS : STAGED;
    default:
      return IN_PLACE;
  }
}

/* The access kind (templates/cuda/params.h) the emulator counts for an argument's access. */
static const char *access_kind(op_access acc) {
  return acc == OP_READ ? "OP2_ACCESS_LD" : acc == OP_WRITE ? "OP2_ACCESS_ST" : "OP2_ACCESS_LDST";
}

/* "EXPR", or OP2_LDG(EXPR) where the target counts traffic. */
static void emit_load(const op2_emitter *e, const char *expr) {
  if (traits_of(e->strategy)->count_traffic)
    op2_buf_printf(e->b, "OP2_LDG(%s)", expr);
  else
    op2_buf_printf(e->b, "%s", expr);
}

/* Counts an access the kernel makes through a pointer, where the target counts traffic. */
static void emit_touch(const op2_emitter *e, const char *kind, const char *ptr, int bytes) {
  const target_traits *t = traits_of(e->strategy);
  if (!t->count_traffic) return;
  op2_buf_printf(e->b, " \\\n    %sOP2_TOUCH(%s, %s, %d);",
                 t->guard_inactive ? "if (op2_active) " : "", kind, ptr, bytes);
}

static int map_group_count(const op2_loop_desc *loop) {
  int n = 0;
  for (int i = 0; i < loop->nargs; i++)
    if (loop->desc[i].map_group + 1 > n) n = loop->desc[i].map_group + 1;
  return n;
}

/* Reduction partials start from the value given, or from zero for a sum on targets that combine
 * partials themselves. */
static void emit_reduction_start(const op2_emitter *e, int i, const op2_arg_desc *d) {
  const char *t = op2_type_name(d->type);
  op2_buf_printf(e->b,
                 " \\\n  %s op2_red%d[%d]; \\\n  for (int op2_k = 0; op2_k < %d; op2_k++) "
                 "op2_red%d[op2_k] = ",
                 t, i, d->dim, d->dim, i);
  if (d->acc == OP_INC && traits_of(e->strategy)->red_from_zero) {
    op2_buf_printf(e->b, "-(%s)0;", t); /* -0.0: a sum of -0.0 terms stays -0.0 */
  } else {
    char expr[64];
    snprintf(expr, sizeof expr, "op2_arg%d[op2_k]", i);
    emit_load(e, expr);
    op2_buf_printf(e->b, ";");
  }
}

/* One restrict base pointer per dat (not per argument): arguments on the same dat derive from
 * the same pointer, so the promise "no other pointer reaches this data" stays true. */
static void emit_declare(const op2_emitter *e) {
  const op2_loop_desc *loop = e->loop;
  const target_traits *tr = traits_of(e->strategy);
  op2_buf *b = e->b;
  op2_buf_printf(b, "#define OP2_DECLARE");
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (d->opt_off) continue;
    const char *t = op2_type_name(d->type);
    if (d->kind == OP2_ARG_IDX) {
      op2_buf_printf(b, " \\\n  const int *const op2_orig%d = (const int *)%s[%d];", i, tr->arg, i);
    } else if (d->kind == OP2_ARG_GBL) {
      op2_buf_printf(b, " \\\n  %s *%s const op2_arg%d = (%s *)%s[%d];", t, tr->restrict_kw, i, t,
                     tr->arg, i);
      /* A reduction accumulates in a local copy the compiler can keep in registers. */
      if (op2_is_reduction(d)) emit_reduction_start(e, i, d);
    } else if (op2_first_arg_of_dat_group(loop, d->dat_group) == i) {
      op2_buf_printf(b, " \\\n  %s *%s const op2_dat%d = (%s *)%s[%d];", t, tr->restrict_kw,
                     d->dat_group, t, tr->arg, i);
    }
  }
  for (int g = 0; g < map_group_count(loop); g++)
    op2_buf_printf(b, " \\\n  const int *%s const op2_map%d = %s[%d];", tr->restrict_kw, g, tr->map,
                   tr->maps_by_group ? g : op2_first_arg_of_map_group(loop, g));
  op2_buf_printf(b, "\n\n");
}

/* The map indices an element loads: one per (map group, column) an argument reaches in global
 * memory. */
static void emit_map_indices(const op2_emitter *e) {
  const op2_loop_desc *loop = e->loop;
  int ngroups = map_group_count(loop), max_arity = 1;
  for (int i = 0; i < loop->nargs; i++)
    if (loop->desc[i].map_arity > max_arity) max_arity = loop->desc[i].map_arity;
  char *need = calloc((size_t)(ngroups ? ngroups : 1) * (size_t)max_arity, 1);
  if (!need) {
    e->b->failed = 1;
    return;
  }
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (d->opt_off || !d->map_arity) continue;
    if (staged(e, d)) continue; /* local indices instead */
    int lo, hi;
    op2_arg_columns(d, &lo, &hi);
    for (int c = lo; c < hi; c++) need[d->map_group * max_arity + c] = 1;
  }
  int guard = traits_of(e->strategy)->guard_inactive;
  for (int g = 0; g < ngroups; g++) {
    int arity = loop->desc[op2_first_arg_of_map_group(loop, g)].map_arity;
    for (int c = 0; c < arity; c++) {
      if (!need[g * max_arity + c]) continue;
      char expr[96];
      snprintf(expr, sizeof expr, "op2_map%d[%d * %sop2_n + %d]", g, arity,
               traits_of(e->strategy)->wide, c);
      op2_buf_printf(e->b, " \\\n    const int op2_i%d_%d = %s", g, c,
                     guard ? "op2_active ? " : "");
      emit_load(e, expr);
      op2_buf_printf(e->b, "%s;", guard ? " : 0" : "");
    }
  }
  free(need);
}

/* The data of argument i (descriptor d) at map column c, where the element uses it. */
static void data_at(const op2_emitter *e, int i, const op2_arg_desc *d, int c, char *out,
                    size_t len) {
  switch (place(e, d)) {
    case STAGED: {
      int group = op2_cuda_find_group(e->lay, d);
      snprintf(out, len, "op2_sh%d + %d * op2_l%d", group, d->dim,
               op2_cuda_find_slot(e->lay, group, d->map_group, c));
      break;
    }
    case IN_REGISTERS:
      if (d->idx < 0)
        snprintf(out, len, "op2_inc%d[%d]", i, c);
      else
        snprintf(out, len, "op2_inc%d", i);
      break;
    default:
      snprintf(out, len, "op2_dat%d + %d * %sop2_i%d_%d", d->dat_group, d->dim,
               traits_of(e->strategy)->wide, d->map_group, c);
  }
}

static void emit_indirect_element(const op2_emitter *e, int i, const op2_arg_desc *d) {
  op2_buf *b = e->b;
  const char *t = op2_type_name(d->type);
  int lo, hi;
  op2_arg_columns(d, &lo, &hi);
  int vector = d->idx < 0;
  placement p = place(e, d);
  char ptr[160];
  if (p == IN_REGISTERS) { /* from -0.0: x + -0.0 is x for every x, +0.0 would turn -0.0 to +0.0 */
    if (vector)
      op2_buf_printf(b, " \\\n    %s op2_inc%d[%d][%d] = {", t, i, hi - lo, d->dim);
    else
      op2_buf_printf(b, " \\\n    %s op2_inc%d[%d] = ", t, i, d->dim);
    for (int c = 0; c < (vector ? hi - lo : 1); c++) {
      op2_buf_printf(b, "%s{", c ? ", " : "");
      for (int k = 0; k < d->dim; k++) op2_buf_printf(b, "%s-(%s)0", k ? ", " : "", t);
      op2_buf_printf(b, "}");
    }
    op2_buf_printf(b, "%s;", vector ? "}" : "");
  }
  if (vector) {
    op2_buf_printf(b, " \\\n    %s%s *op2_vec%d[%d] = {", d->acc == OP_READ ? "const " : "", t, i,
                   hi - lo);
    for (int c = lo; c < hi; c++) {
      data_at(e, i, d, c, ptr, sizeof ptr);
      op2_buf_printf(b, "%s%s", c > lo ? ", " : "", ptr);
    }
    op2_buf_printf(b, "};");
  }
  if (p == IN_PLACE) /* registers and shared memory are not global traffic */
    for (int c = lo; c < hi; c++) {
      data_at(e, i, d, c, ptr, sizeof ptr);
      emit_touch(e, access_kind(d->acc), ptr, d->dim * (int)op2_type_size(d->type));
    }
}

/* Everything an element needs before the call. */
static void emit_element(const op2_emitter *e) {
  const op2_loop_desc *loop = e->loop;
  const target_traits *tr = traits_of(e->strategy);
  op2_buf *b = e->b;
  op2_buf_printf(b, "#define OP2_ELEMENT");
  if (e->strategy == OP2_EMIT_CUDA_HIER)
    for (int s = 0; s < e->lay->nslots; s++)
      op2_buf_printf(b,
                     " \\\n    const int op2_l%d = op2_active ? OP2_LDG(op2_p.loc_map[%d * "
                     "(size_t)op2_p.npos + op2_pos]) : 0;",
                     s, s);
  emit_map_indices(e);
  char expr[160];
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (d->opt_off) continue;
    int bytes = d->dim * (int)op2_type_size(d->type);
    if (d->kind == OP2_ARG_GBL) {
      snprintf(expr, sizeof expr, "op2_arg%d", i);
      if (d->acc == OP_READ) emit_touch(e, access_kind(OP_READ), expr, bytes);
    } else if (d->kind == OP2_ARG_IDX) {
      /* Indices the user sees are the ones declared: through the set's original-index table
       * when the library has reordered the set. */
      char local[64];
      if (d->map_arity)
        snprintf(local, sizeof local, "op2_i%d_%d", d->map_group, d->idx);
      else
        snprintf(local, sizeof local, "op2_n");
      snprintf(expr, sizeof expr, "op2_orig%d[%s]", i, local);
      op2_buf_printf(b, " \\\n    int op2_idx%d = %sop2_orig%d ? ", i,
                     tr->guard_inactive ? "op2_active && " : "", i);
      emit_load(e, expr);
      op2_buf_printf(b, " : %s;", local);
    } else if (!d->map_arity) {
      snprintf(expr, sizeof expr, "op2_dat%d + %d * %sop2_n", d->dat_group, d->dim, tr->wide);
      emit_touch(e, access_kind(d->acc), expr, bytes);
    } else {
      emit_indirect_element(e, i, d);
    }
  }
  op2_buf_printf(b, "\n\n");
}

/* A switched-off optional argument: a null pointer of the kernel's parameter type. */
static void emit_null_arg(op2_buf *b, const op2_arg_desc *d, const char *indent, const char *sep) {
  const char *t = op2_type_name(d->type);
  if (d->idx < -1) /* a vector: the kernel takes (const) T ** */
    op2_buf_printf(b, " \\\n%s(%s%s **)0%s", indent, d->acc == OP_READ ? "const " : "", t, sep);
  else
    op2_buf_printf(b, " \\\n%s(%s *)0%s", indent, t, sep);
}

static void emit_call_args(const op2_emitter *e) {
  const op2_loop_desc *loop = e->loop;
  op2_buf *b = e->b;
  op2_buf_printf(b, "#define OP2_CALL_ARGS");
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    const char *sep = i + 1 < loop->nargs ? "," : "";
    char data[160];
    const char *t = op2_type_name(d->type);
    /* Read-only data goes in as const, so a kernel that declares it const and writes through it
     * fails at its own line; a non-const parameter only draws a warning in C.
     * C only: C++ (CUDA) refuses the conversion to a non-const parameter. */
    char ro[64] = "";
    const char *ro_end = "";
    if (traits_of(e->strategy) == &c_traits && d->acc == OP_READ && d->kind != OP2_ARG_IDX &&
        !d->opt_off && d->idx >= -1)
      snprintf(ro, sizeof ro, "(const %s *)(", t), ro_end = ")";
    if (d->opt_off)
      emit_null_arg(b, d, "    ", sep);
    else if (d->kind == OP2_ARG_GBL)
      op2_buf_printf(b, " \\\n    %sop2_%s%d%s%s", ro, d->acc == OP_READ ? "arg" : "red", i, ro_end,
                     sep);
    else if (d->kind == OP2_ARG_IDX)
      op2_buf_printf(b, " \\\n    &op2_idx%d%s", i, sep);
    else if (!d->map_arity)
      op2_buf_printf(b, " \\\n    %sop2_dat%d + %d * %sop2_n%s%s", ro, d->dat_group, d->dim,
                     traits_of(e->strategy)->wide, ro_end, sep);
    else if (d->idx < 0 && d->acc == OP_READ && traits_of(e->strategy) != &c_traits)
      /* C++ converts const T ** to neither T ** (OP2's kernels: `double **x`) nor back */
      op2_buf_printf(b, " \\\n    OP2_READ_VEC(%s, op2_vec%d)%s", t, i, sep);
    else if (d->idx < 0)
      op2_buf_printf(b, " \\\n    op2_vec%d%s", i, sep);
    else {
      data_at(e, i, d, d->idx, data, sizeof data);
      op2_buf_printf(b, " \\\n    %s%s%s%s", ro, data, ro_end, sep);
    }
  }
  op2_buf_printf(b, "\n\n");
}

/* One line per value of every argument whose increments are in registers: `line` gets the
 * argument, its map column and the value's register and offset. */
static void for_each_increment(const op2_emitter *e,
                               void (*line)(const op2_emitter *e, int i, const op2_arg_desc *d,
                                            int c, int k, const char *reg)) {
  const op2_loop_desc *loop = e->loop;
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (!op2_is_indirect_dat(d) || place(e, d) != IN_REGISTERS) continue;
    int lo, hi;
    op2_arg_columns(d, &lo, &hi);
    for (int c = lo; c < hi; c++)
      for (int k = 0; k < d->dim; k++) {
        char reg[64];
        if (d->idx < 0)
          snprintf(reg, sizeof reg, "op2_inc%d[%d][%d]", i, c - lo, k);
        else
          snprintf(reg, sizeof reg, "op2_inc%d[%d]", i, k);
        line(e, i, d, c, k, reg);
      }
  }
}

/* The type name as one token, for op2_atomic_add_<type>. */
static const char *type_token(op2_type t) {
  return t == OP2_TYPE_LONGLONG ? "longlong" : op2_type_name(t);
}

static void atomic_add_line(const op2_emitter *e, int i, const op2_arg_desc *d, int c, int k,
                            const char *reg) {
  (void)i;
  op2_buf_printf(e->b, " \\\n    op2_atomic_add_%s(op2_dat%d + %d * (size_t)op2_i%d_%d + %d, %s);",
                 type_token(d->type), d->dat_group, d->dim, d->map_group, c, k, reg);
}

static void shared_add_line(const op2_emitter *e, int i, const op2_arg_desc *d, int c, int k,
                            const char *reg) {
  (void)i;
  int group = op2_cuda_find_group(e->lay, d);
  int slot = op2_cuda_find_slot(e->lay, group, d->map_group, c);
  op2_buf_printf(e->b,
                 " \\\n        OP2_TOUCH(OP2_ACCESS_LDST, op2_sh%d + %d * op2_l%d + %d, %d); "
                 "op2_sh%d[%d * op2_l%d + %d] += %s;",
                 group, d->dim, slot, k, (int)op2_type_size(d->type), group, d->dim, slot, k, reg);
}

/* In colour, the kernel itself used its staged data in the thread colour's turn: marked here, in
 * that turn, for the emulator's race checker. */
static void emit_staged_touches(const op2_emitter *e) {
  const op2_loop_desc *loop = e->loop;
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (d->opt_off || !op2_is_indirect_dat(d) || place(e, d) != STAGED) continue;
    int lo, hi;
    op2_arg_columns(d, &lo, &hi);
    for (int c = lo; c < hi; c++) {
      char ptr[160];
      data_at(e, i, d, c, ptr, sizeof ptr);
      op2_buf_printf(e->b, " \\\n        OP2_TOUCH(%s, %s, %d);", access_kind(d->acc), ptr,
                     d->dim * (int)op2_type_size(d->type));
    }
  }
}

void op2_emit_inc_add(const op2_emitter *e) {
  op2_buf_printf(e->b, "#define OP2_INC_ADD");
  for_each_increment(e, shared_add_line);
  if (e->lay->in_colour) emit_staged_touches(e);
  op2_buf_printf(e->b, "\n\n");
}

/* C: the reductions' local copies written back once the range is done. */
static void emit_finish(const op2_emitter *e) {
  const op2_loop_desc *loop = e->loop;
  op2_buf_printf(e->b, "#define OP2_FINISH");
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (op2_is_reduction(d))
      op2_buf_printf(e->b,
                     " \\\n  for (int op2_k = 0; op2_k < %d; op2_k++) op2_arg%d[op2_k] = "
                     "op2_red%d[op2_k];",
                     d->dim, i, i);
  }
  op2_buf_printf(e->b, "\n\n");
}

void op2_emit_arg_macros(const op2_emitter *e) {
  op2_buf_printf(e->b, "#define OP2_KERNEL %s\n\n", e->loop->name);
  emit_declare(e);
  emit_element(e);
  emit_call_args(e);
  if (e->strategy == OP2_EMIT_C_RANGE) {
    emit_finish(e);
    return;
  }
  op2_buf_printf(e->b, "#define OP2_AFTER");
  if (e->strategy == OP2_EMIT_CUDA_ELEMENT) for_each_increment(e, atomic_add_line);
  op2_buf_printf(e->b, "\n\n");
}

/* ---- SIMD: groups of OP2_SIMD_W elements ----
 * Direct arguments are used in place: lane l's data is the dat's row op2_n0 + l, and the
 * vectorised loop reads and writes it with (strided) vector accesses. Indirect arguments are
 * copied into local arrays with indexed loads (gcc vectorises `dat[dim * map[..] + k]` gathers,
 * not loads through pointers into the dat): component-major, [component][lane], where the
 * kernel's copy can index them so (kernel_lanes.c), else [lane][component]. The kernel runs on
 * all lanes in one `#pragma omp simd` loop, and what it wrote through a map is put back lane by
 * lane, that is in element order. Indirect increments start from -0.0 in their lane (x + -0.0
 * is x for every x, +0.0 included, where +0.0 would turn a -0.0 increment into +0.0) and are
 * added afterwards, so for a kernel adding to each component once per element each location
 * receives the same additions in the same order as in the scalar loop, bit for bit. A kernel
 * adding twice to one component gets its two terms summed first, and two arguments reaching one
 * element add in argument order: within rounding of the scalar loop, not identical (the same
 * holds for reductions). OP2_SIMD=auto runs such loops scalar (op2_simd_pays). Reductions: OP_INC
 * lanes start from -0.0 and are folded into the running value lane by lane after every group;
 * OP_MIN/OP_MAX lanes start from the running value. */

int op2_simd_check(const op2_loop_desc *loop, char *why, size_t len) {
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (d->opt_off) continue;
    if (d->kind == OP2_ARG_GBL && (d->acc == OP_RW || d->acc == OP_WRITE)) {
      snprintf(why, len, "argument %d is a global written by every element (%s)", i,
               d->acc == OP_RW ? "OP_RW" : "OP_WRITE");
      return -1;
    }
    if (d->kind == OP2_ARG_GBL && d->acc == OP_INC &&
        (d->type == OP2_TYPE_DOUBLE || d->type == OP2_TYPE_FLOAT)) {
      snprintf(why, len,
               "argument %d is a floating-point OP_INC reduction: summed per lane, a kernel "
               "adding to it more than once per element would round differently",
               i);
      return -1;
    }
    if (d->kind != OP2_ARG_DAT) continue;
    if (d->map_arity && (d->acc == OP_RW || d->acc == OP_WRITE)) {
      snprintf(why, len,
               "argument %d writes through a map (%s): elements of one group may share data "
               "and would not see each other's writes",
               i, d->acc == OP_RW ? "OP_RW" : "OP_WRITE");
      return -1;
    }
    for (int j = 0; j < i; j++) {
      const op2_arg_desc *o = &loop->desc[j];
      if (o->opt_off || o->kind != OP2_ARG_DAT || o->dat_group != d->dat_group) continue;
      int both_inc = d->acc == OP_INC && o->acc == OP_INC && d->map_arity && o->map_arity;
      if ((d->acc != OP_READ || o->acc != OP_READ) && !both_inc) {
        snprintf(why, len,
                 "arguments %d and %d reach the same dat and one of them writes it: an element "
                 "could see another element's writes in the scalar loop, not in a group",
                 j, i);
        return -1;
      }
    }
  }
  return 0;
}

static int is_direct_dat(const op2_arg_desc *d) {
  return d->kind == OP2_ARG_DAT && !d->map_arity;
}

static int is_component_major(const op2_emitter *e, int i) {
  return i < 64 && (e->lanes_cm >> i & 1);
}

uint64_t op2_simd_lanes_wanted(const op2_loop_desc *loop) {
  uint64_t want = 0;
  for (int i = 0; i < loop->nargs && i < 64; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (!d->opt_off && d->kind == OP2_ARG_DAT && d->map_arity && d->idx >= 0)
      want |= (uint64_t)1 << i;
  }
  return want;
}

/* A component-major argument whose element rows (2 to ROWS_MOVED_MAX doubles)
 * templates/c/loop_simd.c moves to and from its lane array whole: op2_rows_to_lanes_D,
 * op2_lanes_to_rows_D and op2_add_row_D for rows of 2 and 4, the _n functions (taking the
 * length) for the others. */
enum { ROWS_MOVED_MAX = 16 };
static int moved_by_rows(const op2_emitter *e, const op2_arg_desc *d, int i) {
  return is_component_major(e, i) && d->type == OP2_TYPE_DOUBLE && d->dim >= 2 &&
         d->dim <= ROWS_MOVED_MAX;
}

/* Rows of 2 and 4 have functions of their own in the template (rows side by side in
 * registers); the others go through the _n functions, which take the length. */
static int fixed_rows(const op2_arg_desc *d) {
  return d->dim == 2 || d->dim == 4;
}

/* Lane counts whose rows templates/c/loop_simd.c moves through registers (its
 * OP2_ROWS_IN_REGISTERS): AVX-512's 8 doubles and AVX2's 4. Other widths copy one double at a
 * time. */
static int rows_in_registers(int width) {
  return width == 8 || width == 4;
}

/* A loop adding through a map, with every argument copied one double at a time, makes many
 * scalar stores per element in its copies and element-order scatter (44 for Airfoil's res_calc),
 * and the store port costs what the vector arithmetic saves: in groups of 8 (AVX-512) it ran no
 * faster than the scalar loop, in groups of 4 (AVX2) it gained clearly less than moving rows of
 * 2 and 4 doubles whole (moved_by_rows), which beats the scalar loop at both widths (figures:
 * docs/PERFORMANCE.md, Measurements behind the code). An argument of one double per element
 * (dim 1, one map column) costs nothing of that kind: its scatter is the scalar loop's own load,
 * add and store per element, and the kernel's arithmetic runs in vectors, its branches as blends
 * (mg3d's upwind res_edge runs clearly faster in groups: the same table). So a loop adding through
 * a map runs in
 * groups under auto only when each such argument's rows are moved whole (component-major, double,
 * dim 2 to 16, 8 or 4 lanes) or are single doubles; either way only when the kernel provably adds
 * to each component once, so that auto keeps the scalar loop's bits. */
static int single_doubles(const op2_arg_desc *d) {
  return d->type == OP2_TYPE_DOUBLE && d->dim == 1 && d->idx >= 0;
}

int op2_simd_pays(const op2_loop_desc *loop, const op2_kernel_facts *kernel, uint64_t lanes_cm,
                  int width, char *why, size_t len) {
  int group[64];
  for (int i = 0; i < 64; i++) group[i] = i < loop->nargs ? loop->desc[i].dat_group : -1;
  uint64_t adds_once =
      kernel ? op2_kernel_adds_once(kernel, op2_simd_lanes_wanted(loop), group) : 0;
  return op2_simd_pays_once(loop, adds_once, lanes_cm, width, why, len);
}

int op2_simd_pays_once(const op2_loop_desc *loop, uint64_t adds_once, uint64_t lanes_cm, int width,
                       char *why, size_t len) {
  op2_emitter e = {NULL, loop, OP2_EMIT_C_SIMD, NULL, lanes_cm};
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (d->opt_off || d->kind != OP2_ARG_DAT || !d->map_arity || d->acc != OP_INC) continue;
    int whole = rows_in_registers(width) && moved_by_rows(&e, d, i);
    if ((whole || single_doubles(d)) && (i >= 64 || !(adds_once >> i & 1))) {
      snprintf(why, len,
               "argument %d adds through a map (OP_INC) and the kernel may add to one of its "
               "components more than once on a path (what it can tell apart: statements "
               "p[N] += e; and *p += e; with N a constant of literals and macros, or p[v] += e; in "
               "a loop "
               "for (int v = A; v < B; v++) with A, B literals): in groups the terms "
               "would be summed before they reach the row, within rounding of the scalar loop but "
               "not bit for bit, so with OP2_SIMD=auto it stays scalar (OP2_SIMD=W runs it in "
               "groups)",
               i);
      return -1;
    }
    if (whole || single_doubles(d)) continue;
    snprintf(
        why, len,
        "argument %d adds through a map (OP_INC) and its rows cannot be moved whole (that "
        "needs 8 or 4 lanes, double, dim 2 to 16, and a kernel indexing the parameter p[e] or *p "
        "only) nor are they single doubles (dim 1, one map column): with OP2_SIMD=auto such loops "
        "stay scalar, the gathers and the "
        "element-order scatter cost more than the vector arithmetic gains (OP2_SIMD=W runs "
        "them in groups)",
        i);
    return -1;
  }
  return 0;
}

/* Component op2_k of argument i's lane copy at map column c, lane op2_l. */
static void lane_data(const op2_emitter *e, const op2_arg_desc *d, int i, int c, char *out,
                      size_t len) {
  int lo, hi;
  op2_arg_columns(d, &lo, &hi);
  if (is_component_major(e, i))
    snprintf(out, len, "op2_g%d[op2_k][op2_l]", i);
  else if (d->idx < 0 && d->map_arity)
    snprintf(out, len, "op2_g%d[op2_l][%d][op2_k]", i, c - lo);
  else
    snprintf(out, len, "op2_g%d[op2_l][op2_k]", i);
}

/* The global data of argument i at map column c, element op2_n. */
static void global_data(const op2_arg_desc *d, int c, char *out, size_t len) {
  if (d->map_arity)
    snprintf(out, len, "op2_dat%d + %d * op2_i%d_%d", d->dat_group, d->dim, d->map_group, c);
  else
    snprintf(out, len, "op2_dat%d + %d * op2_n", d->dat_group, d->dim);
}

static void emit_simd_gather(const op2_emitter *e) {
  const op2_loop_desc *loop = e->loop;
  op2_buf *b = e->b;
  op2_buf_printf(b, "#define OP2_SIMD_GATHER");
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (d->opt_off) continue;
    const char *t = op2_type_name(d->type);
    int lo, hi;
    op2_arg_columns(d, &lo, &hi);
    if (d->kind == OP2_ARG_IDX)
      op2_buf_printf(b, " \\\n    int op2_idx%d[OP2_SIMD_W];", i);
    else if (op2_is_reduction(d))
      op2_buf_printf(b, " \\\n    %s op2_rl%d[OP2_SIMD_W][%d];", t, i, d->dim);
    else if (d->kind != OP2_ARG_DAT || is_direct_dat(d))
      continue;
    else if (is_component_major(e, i)) {
      op2_buf_printf(b, " \\\n    %s op2_g%d[%d][OP2_SIMD_W];", t, i, d->dim);
      if (moved_by_rows(e, d, i) && d->acc == OP_INC)
        op2_buf_printf(b,
                       " \\\n    for (int op2_k = 0; op2_k < %d; op2_k++) for (int op2_l = 0; "
                       "op2_l < OP2_SIMD_W; op2_l++) op2_g%d[op2_k][op2_l] = -0.0;",
                       d->dim, i);
      else if (moved_by_rows(e, d, i) && fixed_rows(d))
        op2_buf_printf(b,
                       " \\\n    op2_rows_to_lanes_%d(op2_g%d, op2_dat%d, op2_map%d + %d * "
                       "op2_n0 + %d, %d);",
                       d->dim, i, d->dat_group, d->map_group, d->map_arity, d->idx, d->map_arity);
      else if (moved_by_rows(e, d, i))
        op2_buf_printf(b,
                       " \\\n    op2_rows_to_lanes_n(op2_g%d, op2_dat%d, %d, op2_map%d + %d * "
                       "op2_n0 + %d, %d);",
                       i, d->dat_group, d->dim, d->map_group, d->map_arity, d->idx, d->map_arity);
    } else if (d->idx < 0)
      op2_buf_printf(b, " \\\n    %s op2_g%d[OP2_SIMD_W][%d][%d];", t, i, hi - lo, d->dim);
    else
      op2_buf_printf(b, " \\\n    %s op2_g%d[OP2_SIMD_W][%d];", t, i, d->dim);
  }
  op2_buf_printf(b,
                 " \\\n    for (int op2_l = 0; op2_l < OP2_SIMD_W; op2_l++) { \\\n"
                 "    const int op2_n = op2_n0 + op2_l; (void)op2_n;");
  emit_map_indices(e);
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (d->opt_off) continue;
    const char *t = op2_type_name(d->type);
    char lane[96], global[96];
    if (d->kind == OP2_ARG_IDX) {
      char local[64];
      if (d->map_arity)
        snprintf(local, sizeof local, "op2_i%d_%d", d->map_group, d->idx);
      else
        snprintf(local, sizeof local, "op2_n");
      op2_buf_printf(b, " \\\n    op2_idx%d[op2_l] = op2_orig%d ? op2_orig%d[%s] : %s;", i, i, i,
                     local, local);
    } else if (op2_is_reduction(d)) {
      op2_buf_printf(
          b, " \\\n    for (int op2_k = 0; op2_k < %d; op2_k++) op2_rl%d[op2_l][op2_k] = ", d->dim,
          i);
      if (d->acc == OP_INC)
        op2_buf_printf(b, "-(%s)0;", t);
      else
        op2_buf_printf(b, "op2_red%d[op2_k];", i);
    } else if (d->kind == OP2_ARG_DAT && d->map_arity && !moved_by_rows(e, d, i)) {
      int lo, hi;
      op2_arg_columns(d, &lo, &hi);
      for (int c = lo; c < hi; c++) {
        lane_data(e, d, i, c, lane, sizeof lane);
        global_data(d, c, global, sizeof global);
        if (d->acc == OP_INC)
          op2_buf_printf(b, " \\\n    for (int op2_k = 0; op2_k < %d; op2_k++) %s = -(%s)0;",
                         d->dim, lane, t);
        else
          op2_buf_printf(b, " \\\n    for (int op2_k = 0; op2_k < %d; op2_k++) %s = (%s)[op2_k];",
                         d->dim, lane, global);
      }
    }
  }
  op2_buf_printf(b, " \\\n    }\n\n");
}

/* Inside the lane loop: the vector arguments' pointer arrays. */
static void emit_simd_lane(const op2_emitter *e) {
  const op2_loop_desc *loop = e->loop;
  op2_buf *b = e->b;
  op2_buf_printf(b, "#define OP2_SIMD_LANE");
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (d->opt_off || d->kind != OP2_ARG_DAT || d->idx >= 0 || !d->map_arity) continue;
    int lo, hi;
    op2_arg_columns(d, &lo, &hi);
    op2_buf_printf(b, " \\\n      %s%s *op2_vec%d[%d] = {", d->acc == OP_READ ? "const " : "",
                   op2_type_name(d->type), i, hi - lo);
    for (int c = lo; c < hi; c++)
      op2_buf_printf(b, "%sop2_g%d[op2_l][%d]", c > lo ? ", " : "", i, c - lo);
    op2_buf_printf(b, "};");
  }
  op2_buf_printf(b, "\n\n");
}

static void emit_simd_call_args(const op2_emitter *e) {
  const op2_loop_desc *loop = e->loop;
  op2_buf *b = e->b;
  op2_buf_printf(b, "#define OP2_SIMD_CALL_ARGS");
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    const char *sep = i + 1 < loop->nargs ? "," : "";
    if (d->opt_off)
      emit_null_arg(b, d, "        ", sep);
    else if (d->kind == OP2_ARG_IDX)
      op2_buf_printf(b, " \\\n        &op2_idx%d[op2_l]%s", i, sep);
    else if (op2_is_reduction(d))
      op2_buf_printf(b, " \\\n        op2_rl%d[op2_l]%s", i, sep);
    else if (d->kind == OP2_ARG_GBL)
      op2_buf_printf(b, " \\\n        op2_arg%d%s", i, sep);
    else if (is_direct_dat(d)) /* in place, read-only data as const as in the scalar loop */
      op2_buf_printf(b, " \\\n        (%s%s *)(op2_dat%d + %d * (op2_n0 + op2_l))%s",
                     d->acc == OP_READ ? "const " : "", op2_type_name(d->type), d->dat_group,
                     d->dim, sep);
    else if (d->idx < 0)
      op2_buf_printf(b, " \\\n        op2_vec%d%s", i, sep);
    else if (is_component_major(e, i))
      op2_buf_printf(b, " \\\n        &op2_g%d[0][op2_l]%s", i, sep);
    else
      op2_buf_printf(b, " \\\n        op2_g%d[op2_l]%s", i, sep);
  }
  op2_buf_printf(b, "\n\n");
}

/* After the lane loop, lane by lane: writes stored, increments added, reductions folded. */
static void emit_simd_scatter(const op2_emitter *e) {
  const op2_loop_desc *loop = e->loop;
  op2_buf *b = e->b;
  int any = 0;
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    any |= !d->opt_off && d->acc != OP_READ && (op2_is_reduction(d) || op2_is_indirect_dat(d));
  }
  op2_buf_printf(b, "#define OP2_SIMD_SCATTER");
  if (!any) {
    op2_buf_printf(b, "\n\n");
    return;
  }
  /* rows of increments out of their lane arrays first, then every lane's in element order */
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (d->opt_off || d->acc != OP_INC || !moved_by_rows(e, d, i)) continue;
    op2_buf_printf(b, " \\\n    double op2_r%d[OP2_SIMD_W][%d]; ", i, d->dim);
    if (fixed_rows(d))
      op2_buf_printf(b, "op2_lanes_to_rows_%d(op2_r%d, op2_g%d);", d->dim, i, i);
    else
      op2_buf_printf(b, "op2_lanes_to_rows_n(op2_r%d[0], %d, op2_g%d);", i, d->dim, i);
  }
  op2_buf_printf(b,
                 " \\\n    for (int op2_l = 0; op2_l < OP2_SIMD_W; op2_l++) { \\\n"
                 "    const int op2_n = op2_n0 + op2_l; (void)op2_n;");
  emit_map_indices(e);
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (d->opt_off || d->acc == OP_READ) continue;
    if ((int)d->acc == OP2_ACC_INFO) continue; /* with its reduction, below */
    if (op2_is_reduction(d) && op2_has_info(loop->desc, loop->nargs, i)) {
      /* the lane whose partial is strictly better brings its infos along: ties keep the
       * earlier lane's, the earlier element's */
      op2_buf_printf(b,
                     " \
    for (int op2_k = 0; op2_k < %d; op2_k++) if (op2_rl%d[op2_l][op2_k] "
                     "%s op2_red%d[op2_k]) { op2_red%d[op2_k] = op2_rl%d[op2_l][op2_k];",
                     d->dim, i, d->acc == OP_MIN ? "<" : ">", i, i, i);
      for (int j = 0; j < loop->nargs; j++)
        if ((int)loop->desc[j].acc == OP2_ACC_INFO && loop->desc[j].info_of == i)
          op2_buf_printf(b, " op2_red%d[op2_k] = op2_rl%d[op2_l][op2_k];", j, j);
      op2_buf_printf(b, " }");
      continue;
    }
    if (op2_is_reduction(d)) {
      const char *fold = d->acc == OP_INC   ? "op2_red%d[op2_k] += op2_rl%d[op2_l][op2_k];"
                         : d->acc == OP_MIN ? "if (op2_rl%d[op2_l][op2_k] < op2_red%d[op2_k]) "
                                              "op2_red%d[op2_k] = op2_rl%d[op2_l][op2_k];"
                                            : "if (op2_rl%d[op2_l][op2_k] > op2_red%d[op2_k]) "
                                              "op2_red%d[op2_k] = op2_rl%d[op2_l][op2_k];";
      op2_buf_printf(b, " \\\n    for (int op2_k = 0; op2_k < %d; op2_k++) ", d->dim);
      op2_buf_printf(b, fold, i, i, i, i);
      continue;
    }
    if (d->kind != OP2_ARG_DAT || is_direct_dat(d)) continue;
    int lo, hi;
    op2_arg_columns(d, &lo, &hi);
    for (int c = lo; c < hi; c++) { /* writes through a map never reach here (op2_simd_check) */
      char lane[96], global[96];
      global_data(d, c, global, sizeof global);
      if (moved_by_rows(e, d, i) && fixed_rows(d)) {
        op2_buf_printf(b, " \\\n    op2_add_row_%d(%s, op2_r%d[op2_l]);", d->dim, global, i);
        continue;
      }
      if (moved_by_rows(e, d, i)) {
        op2_buf_printf(b, " \\\n    op2_add_row_n(%s, op2_r%d[op2_l], %d);", global, i, d->dim);
        continue;
      }
      lane_data(e, d, i, c, lane, sizeof lane);
      op2_buf_printf(b, " \\\n    for (int op2_k = 0; op2_k < %d; op2_k++) (%s)[op2_k] += %s;",
                     d->dim, global, lane);
    }
  }
  op2_buf_printf(b, " \\\n    }\n\n");
}

void op2_emit_simd_macros(const op2_emitter *e) {
  emit_simd_gather(e);
  emit_simd_lane(e);
  emit_simd_call_args(e);
  emit_simd_scatter(e);
}
