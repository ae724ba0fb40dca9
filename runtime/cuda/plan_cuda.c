/* SPDX-License-Identifier: BSD-3-Clause */
/* Plans for the GPU strategies, built once per loop shape on the host and uploaded once.
 *   global colouring: every element gets a colour so that no two elements of a colour write the
 *     same indirect element; the elements of a colour, ascending, form one launch.
 *   hierarchical (OP2's plan): the range is cut into blocks of part_size elements (the blocks and
 *     block colours of runtime/plan.c); within a block, elements get thread colours the same way
 *     as global colouring does for the whole set, and are reordered so that each thread colour is
 *     contiguous. Each staging group (one dat, through all the maps the loop reaches it by) gets,
 *     per block, the sorted, de-duplicated list of elements it reaches (ind_map) and, per
 *     position and (map, column) slot, the local index into that list (loc_map). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cuda/cuda.h"
#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/options.h"
#include "runtime/mesh.h"
#include "runtime/loop.h"
#include "runtime/plan.h"

void op2_cuda_plan_free(op2_cuda_plan *p) {
  if (!p) return;
  free(p->col_offset), free(p->col_elems), free(p->block_col_offset), free(p->blkmap);
  free(p->thr_elem), free(p->thrcol), free(p->nthrcol), free(p->ind_offs), free(p->ind_sizes);
  free(p->ind_map), free(p->loc_map);
  free(p);
}

/* The written (map, column) pairs, with one mask array per distinct target set. */
typedef struct writes {
  int n;
  op_map map[2 * OP2_CUDA_MAX_ARGS];
  int col[2 * OP2_CUDA_MAX_ARGS];
  uint32_t *mask[2 * OP2_CUDA_MAX_ARGS]; /* shared by pairs into the same set */
  int owner[2 * OP2_CUDA_MAX_ARGS];      /* 1: this pair allocated its mask */
} writes;

static void writes_free(writes *w) {
  for (int i = 0; i < w->n; i++)
    if (w->owner[i]) free(w->mask[i]);
}

static int writes_make(const op2_loop *loop, writes *w) {
  memset(w, 0, sizeof *w);
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (d->kind != OP2_ARG_DAT || d->opt_off || !d->map_arity || d->acc == OP_READ) continue;
    int lo = d->idx < 0 ? 0 : d->idx, hi = d->idx < 0 ? -d->idx : d->idx + 1;
    for (int c = lo; c < hi; c++) {
      op_map m = loop->args[i].map;
      int seen = 0;
      for (int k = 0; k < w->n; k++) seen |= w->map[k] == m && w->col[k] == c;
      if (seen || w->n == 2 * OP2_CUDA_MAX_ARGS) continue;
      w->map[w->n] = m;
      w->col[w->n] = c;
      for (int k = 0; k < w->n && !w->mask[w->n]; k++)
        if (w->map[k]->to == m->to) w->mask[w->n] = w->mask[k];
      if (!w->mask[w->n]) {
        w->mask[w->n] = calloc(op2_set_local_count(m->to) + 1, sizeof(uint32_t));
        w->owner[w->n] = 1;
        if (!w->mask[w->n]) return w->n++, writes_free(w), -1;
      }
      w->n++;
    }
  }
  return 0;
}

static uint32_t taken(const writes *w, int e) {
  uint32_t m = 0;
  for (int k = 0; k < w->n; k++)
    m |= w->mask[k][w->map[k]->values[(size_t)e * w->map[k]->dim + w->col[k]]];
  return m;
}

static void mark(const writes *w, int e, uint32_t bit) {
  for (int k = 0; k < w->n; k++)
    w->mask[k][w->map[k]->values[(size_t)e * w->map[k]->dim + w->col[k]]] |= bit;
}

static void unmark(const writes *w, int e) {
  for (int k = 0; k < w->n; k++)
    w->mask[k][w->map[k]->values[(size_t)e * w->map[k]->dim + w->col[k]]] = 0;
}

/* Greedy colouring of the elements elems[0..n) (32 colours per pass, like runtime/colour.c);
 * colour[i] for elems[i]. Returns the number of colours. */
static int colour_elements(const writes *w, const int *elems, int n, int *colour) {
  int ncolours = 0, coloured = 0;
  for (int i = 0; i < n; i++) colour[i] = -1;
  for (int base = 0; coloured < n; base += 32) {
    for (int i = 0; i < n; i++) {
      if (colour[i] >= 0) continue;
      uint32_t t = taken(w, elems[i]);
      if (t == UINT32_MAX) continue;
      int c = __builtin_ctz(~t);
      mark(w, elems[i], 1u << c);
      colour[i] = base + c;
      if (base + c + 1 > ncolours) ncolours = base + c + 1;
      coloured++;
    }
    for (int i = 0; i < n; i++) unmark(w, elems[i]);
  }
  return ncolours;
}

static int build_global(const op2_loop *loop, op2_cuda_plan *p) {
  int n = p->end - p->begin;
  writes w;
  int *elems = malloc(sizeof(int) * (size_t)(n ? n : 1));
  int *colour = malloc(sizeof(int) * (size_t)(n ? n : 1));
  if (!elems || !colour || writes_make(loop, &w) != 0) return free(elems), free(colour), -1;
  for (int i = 0; i < n; i++) elems[i] = p->begin + i;
  p->ncolours = colour_elements(&w, elems, n, colour);
  writes_free(&w);
  p->col_offset = calloc((size_t)p->ncolours + 1, sizeof(int));
  p->col_elems = malloc(sizeof(int) * (size_t)(n ? n : 1));
  int *fill = calloc((size_t)p->ncolours + 1, sizeof(int));
  if (!p->col_offset || !p->col_elems || !fill) return free(elems), free(colour), free(fill), -1;
  for (int i = 0; i < n; i++) p->col_offset[colour[i] + 1]++;
  for (int c = 0; c < p->ncolours; c++) p->col_offset[c + 1] += p->col_offset[c];
  for (int i = 0; i < n; i++) p->col_elems[p->col_offset[colour[i]] + fill[colour[i]]++] = elems[i];
  free(elems), free(colour), free(fill);
  return 0;
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Block colours: the loop's own plan when it has one for this range (one MPI phase, or the whole
 * set) and part size, else (no indirect writes) one colour. */
static int block_colours(const op2_loop *loop, op2_cuda_plan *p) {
  const op2_plan *lp = NULL;
  for (int ph = 0; ph < loop->nphases; ph++)
    if (loop->plans[ph] && loop->plans[ph]->begin == p->begin && loop->plans[ph]->end == p->end)
      lp = loop->plans[ph];
  p->blkmap = malloc(sizeof(int) * (size_t)p->nblocks);
  if (!p->blkmap) return -1;
  if (lp && lp->begin == p->begin && lp->end == p->end && lp->part_size == p->part_size &&
      lp->nblocks == p->nblocks) {
    p->nblock_colours = lp->ncolours;
    p->block_col_offset = malloc(sizeof(int) * (size_t)(lp->ncolours + 1));
    if (!p->block_col_offset) return -1;
    memcpy(p->block_col_offset, lp->colour_offset, sizeof(int) * (size_t)(lp->ncolours + 1));
    memcpy(p->blkmap, lp->blocks_by_colour, sizeof(int) * (size_t)p->nblocks);
    return 0;
  }
  if (loop->writes_indirectly) { /* a plan of another shape: colour here, as plan.c would */
    writes w;
    if (writes_make(loop, &w) != 0) return -1;
    op_map maps[2 * OP2_CUDA_MAX_ARGS];
    int idx[2 * OP2_CUDA_MAX_ARGS];
    for (int k = 0; k < w.n; k++) maps[k] = w.map[k], idx[k] = w.col[k];
    writes_free(&w);
    int *colour = malloc(sizeof(int) * (size_t)p->nblocks);
    int nc = colour ? op2_colour_blocks(p->begin, p->end, p->part_size, w.n, maps, idx, p->nblocks,
                                        colour)
                    : -1;
    if (nc < 0 || !(p->block_col_offset = calloc((size_t)nc + 1, sizeof(int))))
      return free(colour), -1;
    p->nblock_colours = nc;
    for (int b = 0; b < p->nblocks; b++) p->block_col_offset[colour[b] + 1]++;
    for (int c = 0; c < nc; c++) p->block_col_offset[c + 1] += p->block_col_offset[c];
    int *fill = calloc((size_t)nc + 1, sizeof(int));
    if (!fill) return free(colour), -1;
    for (int b = 0; b < p->nblocks; b++)
      p->blkmap[p->block_col_offset[colour[b]] + fill[colour[b]]++] = b;
    free(fill), free(colour);
    return 0;
  }
  p->nblock_colours = 1;
  p->block_col_offset = malloc(2 * sizeof(int));
  if (!p->block_col_offset) return -1;
  p->block_col_offset[0] = 0, p->block_col_offset[1] = p->nblocks;
  for (int b = 0; b < p->nblocks; b++) p->blkmap[b] = b;
  return 0;
}

/* Thread colours per block, positions sorted by colour (stable: element order within one). */
static int thread_colours(op2_context *ctx, const op2_loop *loop, op2_cuda_plan *p) {
  writes w;
  int part = p->part_size;
  p->thr_elem = malloc(sizeof(int) * (size_t)p->npos);
  p->thrcol = malloc((size_t)p->npos);
  p->nthrcol = calloc((size_t)p->nblocks, sizeof(int));
  int *elems = malloc(sizeof(int) * (size_t)part), *colour = malloc(sizeof(int) * (size_t)part);
  int *count = calloc(257, sizeof(int));
  if (!p->thr_elem || !p->thrcol || !p->nthrcol || !elems || !colour || !count ||
      writes_make(loop, &w) != 0)
    return free(elems), free(colour), free(count), -1;
  int rc = 0;
  for (int b = 0; b < p->nblocks && rc == 0; b++) {
    int first = b * part, n = p->npos - first < part ? p->npos - first : part;
    for (int j = 0; j < n; j++) elems[j] = p->begin + first + j;
    int nc = colour_elements(&w, elems, n, colour);
    if (nc > 255) {
      rc = op2_error(OP2_ERR_ARG,
                     "op_par_loop '%s': a block needs %d thread colours (at most "
                     "255); lower OP2_PART_SIZE (now %d)",
                     loop->name, nc, part);
      break;
    }
    p->nthrcol[b] = nc;
    if (nc > p->max_thread_colours) p->max_thread_colours = nc;
    memset(count, 0, 257 * sizeof(int));
    for (int j = 0; j < n; j++) count[colour[j] + 1]++;
    for (int c = 0; c < nc; c++) count[c + 1] += count[c];
    for (int j = 0; j < n; j++) {
      int pos = first + count[colour[j]]++;
      p->thr_elem[pos] = elems[j];
      p->thrcol[pos] = (unsigned char)colour[j];
    }
  }
  (void)ctx;
  writes_free(&w);
  free(elems), free(colour), free(count);
  return rc;
}

/* The staged elements of every group and block, and the local index of every (slot, position). */
static int staging(const op2_loop *loop, const op2_cuda_layout *lay, op2_cuda_plan *p) {
  int part = p->part_size, nb = p->nblocks, ng = lay->ngroups;
  size_t max_to = 1;
  for (int s = 0; s < lay->nslots; s++) {
    size_t n = op2_set_local_count(loop->args[lay->slots[s].arg].map->to);
    if (n > max_to) max_to = n;
  }
  p->ind_offs = malloc(sizeof(int) * (size_t)(ng * nb + 1));
  p->ind_sizes = malloc(sizeof(int) * (size_t)(ng * nb + 1));
  p->loc_map = malloc(sizeof(unsigned short) * (size_t)p->npos * (size_t)(lay->nslots + 1));
  int max_cols = 1; /* columns of the widest group */
  for (int g = 0; g < ng; g++) {
    int n = 0;
    for (int k = 0; k < lay->nslots; k++) n += lay->slots[k].group == g;
    if (n > max_cols) max_cols = n;
  }
  int *local = malloc(sizeof(int) * max_to);
  int *buf = malloc(sizeof(int) * (size_t)part * (size_t)max_cols);
  if (!p->ind_offs || !p->ind_sizes || !p->loc_map || !local || !buf)
    return free(local), free(buf), -1;
  long cap = 1024, len = 0;
  p->ind_map = malloc(sizeof(int) * (size_t)cap);
  if (!p->ind_map) return free(local), free(buf), -1;
  int stage = 0;
  for (int g = 0; g < ng; g++) {
    const op2_cuda_group *gr = &lay->groups[g];
    const op2_arg_desc *d = &loop->desc[gr->first_arg];
    if (gr->index_of != g) { /* the same elements as an earlier group: its list and rows */
      int max_size = 0;
      for (int b = 0; b < nb; b++) {
        p->ind_offs[g * nb + b] = p->ind_offs[gr->index_of * nb + b];
        p->ind_sizes[g * nb + b] = p->ind_sizes[gr->index_of * nb + b];
        if (p->ind_sizes[g * nb + b] > max_size) max_size = p->ind_sizes[g * nb + b];
      }
      p->goff[g] = stage;
      stage += (max_size * d->dim * (int)op2_type_size(d->type) + 15) / 16 * 16;
      continue;
    }
    op_map maps[2 * OP2_CUDA_MAX_ARGS];
    int cols[2 * OP2_CUDA_MAX_ARGS], ncols = 0;
    for (int s = 0; s < lay->nslots; s++)
      if (lay->slots[s].group == g)
        maps[ncols] = loop->args[lay->slots[s].arg].map, cols[ncols++] = lay->slots[s].col;
    int max_size = 0;
    for (int b = 0; b < nb; b++) {
      int first = b * part, n = p->npos - first < part ? p->npos - first : part, m = 0;
      for (int j = 0; j < n; j++) {
        int e = p->thr_elem ? p->thr_elem[first + j] : p->begin + first + j;
        for (int c = 0; c < ncols; c++)
          buf[m++] = maps[c]->values[(size_t)e * maps[c]->dim + cols[c]];
      }
      qsort(buf, (size_t)m, sizeof(int), cmp_int);
      int u = 0;
      for (int k = 0; k < m; k++)
        if (k == 0 || buf[k] != buf[k - 1]) buf[u++] = buf[k];
      if (u > 65535)
        return free(local), free(buf),
               op2_error(OP2_ERR_ARG,
                         "op_par_loop '%s': a block stages %d elements (at most "
                         "65535); lower OP2_PART_SIZE (now %d)",
                         loop->name, u, part);
      if (len + u > cap) {
        while (len + u > cap) cap *= 2;
        int *grown = realloc(p->ind_map, sizeof(int) * (size_t)cap);
        if (!grown) return free(local), free(buf), -1;
        p->ind_map = grown;
      }
      p->ind_offs[g * nb + b] = (int)len;
      p->ind_sizes[g * nb + b] = u;
      for (int k = 0; k < u; k++) local[buf[k]] = k, p->ind_map[len + k] = buf[k];
      len += u;
      if (u > max_size) max_size = u;
      for (int s = 0; s < lay->nslots; s++) {
        if (lay->slots[s].group != g) continue;
        op_map map = loop->args[lay->slots[s].arg].map;
        for (int j = 0; j < n; j++) {
          int e = p->thr_elem ? p->thr_elem[first + j] : p->begin + first + j;
          p->loc_map[(size_t)s * p->npos + first + j] =
              (unsigned short)local[map->values[(size_t)e * map->dim + lay->slots[s].col]];
        }
      }
    }
    p->goff[g] = stage;
    stage += (max_size * d->dim * (int)op2_type_size(d->type) + 15) / 16 * 16;
  }
  p->ind_map_len = len;
  p->stage_bytes = stage;
  free(local), free(buf);
  return 0;
}

int op2_cuda_plan_build(op2_context *ctx, const op2_loop *loop, const op2_cuda_layout *lay,
                        int begin, int end, op2_cuda_plan **out) {
  double t0 = op2_wall_seconds();
  char use[160];
  snprintf(use, sizeof use, "the plan of op_par_loop '%.120s'", loop->name);
  OP2_CALL(op2_loop_maps_check(loop->nargs, loop->args, use, false)); /* the program writes them */
  op2_cuda_plan *p = calloc(1, sizeof *p);
  if (!p) return op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory", loop->name);
  p->strategy = lay->strategy;
  p->begin = begin;
  p->end = end;
  int rc = 0;
  if (lay->strategy == OP2_CUDA_GLOBAL) {
    rc = build_global(loop, p);
  } else if (lay->strategy == OP2_CUDA_HIER) {
    p->part_size = ctx->opt.part_size;
    p->npos = end - begin;
    p->nblocks = (int)(((long)p->npos + p->part_size - 1) / p->part_size);
    rc = block_colours(loop, p);
    if (rc == 0 && lay->indirect_writes) rc = thread_colours(ctx, loop, p);
    if (rc == 0) rc = staging(loop, lay, p);
  }
  if (rc != 0) {
    op2_cuda_plan_free(p);
    return rc > 0 ? rc
                  : op2_error(OP2_ERR_MEM,
                              "op_par_loop '%s': out of memory for the CUDA "
                              "plan",
                              loop->name);
  }
  p->build_seconds = op2_wall_seconds() - t0;
  *out = p;
  return OP2_OK;
}
