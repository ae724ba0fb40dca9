/* SPDX-License-Identifier: BSD-3-Clause */
/* Choosing a loop's CUDA strategy and laying out its staging areas and reduction records
 * (cuda_layout.h). */
#include <stdio.h>
#include <string.h>

#include "base/cuda_layout.h"

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

int op2_cuda_layout_make(const op2_loop_desc *loop, int asked, op2_cuda_layout *out,
                         op2_jit_error *err) {
  memset(out, 0, sizeof *out);
  if (loop->nargs > OP2_CUDA_MAX_ARGS)
    return op2_jit_error_set(err, OP2_ERR_ARG,
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
        return op2_jit_error_set(err, OP2_ERR_ARG,
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
