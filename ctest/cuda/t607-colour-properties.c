/* SPDX-License-Identifier: BSD-3-Clause */
/* Colouring properties of every plan a backend runs from, on random meshes and Airfoil's 45k mesh:
 *   global colours (CUDA global strategy): no two elements of one colour write the same target;
 *   block colours (runtime/plan.c, OpenMP and CUDA hierarchical): no two blocks of one colour do;
 *   thread colours (CUDA hierarchical): no two threads of one block and colour do;
 * for every written (map, column) pair, pairs into one target set counted together (one dat written
 * through two maps), and every element is covered exactly once. Each checker is first shown to
 * fail on a corrupted copy of a real plan (two colours merged, one element duplicated). */
#include "test.h"
#include "runtime/cuda/cuda.h"
#include "mesh_io.h"

/* The written (map, index) pairs of one loop shape; index -k writes columns 0..k-1. */
typedef struct shape {
  int n;
  op_map map[4];
  int idx[4];
} shape;

/* Who wrote each target last: the class (a colour, numbered uniquely over a whole check) and the
 * unit (element or block) inside it. One table per distinct target set. */
typedef struct checker {
  const shape *s;
  int *cls[4], *unit[4];
  int owner[4]; /* 1: pair w allocated its tables */
  long conflicts;
} checker;

static void checker_init(checker *ck, const shape *s) {
  memset(ck, 0, sizeof *ck);
  ck->s = s;
  for (int w = 0; w < s->n; w++) {
    for (int v = 0; v < w && !ck->cls[w]; v++)
      if (s->map[v]->to == s->map[w]->to) ck->cls[w] = ck->cls[v], ck->unit[w] = ck->unit[v];
    if (ck->cls[w]) continue;
    int n = s->map[w]->to->size;
    ck->cls[w] = malloc(sizeof(int) * (size_t)(n + 1));
    ck->unit[w] = malloc(sizeof(int) * (size_t)(n + 1));
    CHECK(ck->cls[w] && ck->unit[w]);
    for (int t = 0; t < n; t++) ck->cls[w][t] = -1;
    ck->owner[w] = 1;
  }
}

static void checker_free(checker *ck) {
  for (int w = 0; w < ck->s->n; w++)
    if (ck->owner[w]) free(ck->cls[w]), free(ck->unit[w]);
}

/* Element e runs in class `cls` as part of `unit`; a target already written by another unit of
 * the same class is a conflict. */
static void visit(checker *ck, int cls, int unit, int e) {
  const shape *s = ck->s;
  for (int w = 0; w < s->n; w++) {
    int lo = s->idx[w] < 0 ? 0 : s->idx[w], hi = s->idx[w] < 0 ? -s->idx[w] : s->idx[w] + 1;
    for (int c = lo; c < hi; c++) {
      int t = s->map[w]->values[(size_t)e * s->map[w]->dim + c];
      if (ck->cls[w][t] == cls && ck->unit[w][t] != unit) ck->conflicts++;
      ck->cls[w][t] = cls, ck->unit[w][t] = unit;
    }
  }
}

/* Elements covered other than exactly once by the plan. */
static long coverage_errors(const int *count, int begin, int end) {
  long bad = 0;
  for (int e = begin; e < end; e++) bad += count[e] != 1;
  return bad;
}

/* Global colours: colour c holds elems[off[c] .. off[c+1]). */
static void check_global(const shape *s, int begin, int end, int nc, const int *off,
                         const int *elems, long *conflicts, long *uncovered) {
  checker ck;
  checker_init(&ck, s);
  int *count = calloc((size_t)end + 1, sizeof(int));
  for (int c = 0; c < nc; c++)
    for (int k = off[c]; k < off[c + 1]; k++) {
      int e = elems[k];
      CHECK(e >= begin && e < end);
      count[e]++;
      visit(&ck, c, e, e);
    }
  *conflicts = ck.conflicts;
  *uncovered = coverage_errors(count, begin, end);
  free(count), checker_free(&ck);
}

/* Block colours: colour c holds blocks blk[off[c] .. off[c+1]); block b runs the positions
 * [b*part, min((b+1)*part, npos)) of pos_elem (NULL: the element begin + position). */
static void check_blocks(const shape *s, int begin, int end, int part, int nc, const int *off,
                         const int *blk, const int *pos_elem, long *conflicts, long *uncovered) {
  checker ck;
  checker_init(&ck, s);
  int npos = end - begin;
  int *count = calloc((size_t)end + 1, sizeof(int));
  for (int c = 0; c < nc; c++)
    for (int k = off[c]; k < off[c + 1]; k++) {
      int b = blk[k];
      for (int j = b * part; j < (b + 1) * part && j < npos; j++) {
        int e = pos_elem ? pos_elem[j] : begin + j;
        CHECK(e >= begin && e < end);
        count[e]++;
        visit(&ck, c, b, e);
      }
    }
  *conflicts = ck.conflicts;
  *uncovered = coverage_errors(count, begin, end);
  free(count), checker_free(&ck);
}

/* Thread colours of the hierarchical plan: within block b, the thread at position j runs element
 * thr_elem[j] in thread colour thrcol[j]; every position holds an element of its own block. */
static void check_threads(const shape *s, const op2_cuda_plan *p, const unsigned char *thrcol,
                          const int *thr_elem, long *conflicts, long *uncovered) {
  checker ck;
  checker_init(&ck, s);
  int *count = calloc((size_t)p->end + 1, sizeof(int));
  for (int b = 0; b < p->nblocks; b++)
    for (int j = b * p->part_size; j < (b + 1) * p->part_size && j < p->npos; j++) {
      int e = thr_elem[j];
      CHECK(e >= p->begin + b * p->part_size && e < p->begin + (b + 1) * p->part_size);
      CHECK(e < p->end);
      CHECK(thrcol[j] < p->nthrcol[b]);
      count[e]++;
      visit(&ck, b * 256 + thrcol[j], e, e);
    }
  *conflicts = ck.conflicts;
  *uncovered = coverage_errors(count, p->begin, p->end);
  free(count), checker_free(&ck);
}

/* A loop shape the CUDA planner reads: one OP_INC argument per written pair, nothing staged. */
typedef struct fake_loop {
  op2_loop loop;
  op_arg args[4];
  op2_arg_desc desc[4];
} fake_loop;

static void fake_loop_make(fake_loop *f, const shape *s, op_set set) {
  memset(f, 0, sizeof *f);
  f->loop.name = "colour_properties";
  f->loop.set = set;
  f->loop.nargs = s->n;
  f->loop.args = f->args;
  f->loop.desc = f->desc;
  f->loop.writes_indirectly = true;
  for (int w = 0; w < s->n; w++) {
    f->args[w].map = s->map[w];
    f->desc[w] = (op2_arg_desc){OP2_ARG_DAT, OP_INC, OP2_TYPE_DOUBLE, 1, s->idx[w], s->map[w]->dim,
                                w,           w,      false,           0};
  }
}

static long g_checked; /* plans checked, printed at the end */

/* Builds every kind of plan for shape s over set [0, size) and checks it; with `prove`, also
 * checks that corrupted copies are caught. */
static void check_shape(const char *what, op_set set, const shape *s, int part, int prove) {
  int begin = 0, end = set->size;
  long conflicts, uncovered;
  /* block colours (runtime/plan.c + colour.c) */
  op2_plan *bp;
  CHECK_EQ_INT(op2_plan_build(set, begin, end, part, s->n, s->map, s->idx, 1, &bp), OP2_OK);
  check_blocks(s, begin, end, part, bp->ncolours, bp->colour_offset, bp->blocks_by_colour, NULL,
               &conflicts, &uncovered);
  if (conflicts || uncovered)
    fprintf(stderr, "%s: block colours: %ld conflicts, %ld elements not covered once\n", what,
            conflicts, uncovered);
  CHECK_EQ_INT(conflicts, 0);
  CHECK_EQ_INT(uncovered, 0);
  if (prove && bp->ncolours >= 2) { /* colours 0 and 1 merged: greedy colour 1 conflicts with 0 */
    int *off = malloc(sizeof(int) * (size_t)(bp->ncolours + 1));
    memcpy(off, bp->colour_offset, sizeof(int) * (size_t)(bp->ncolours + 1));
    for (int c = 1; c < bp->ncolours; c++) off[c] = off[c + 1];
    check_blocks(s, begin, end, part, bp->ncolours - 1, off, bp->blocks_by_colour, NULL, &conflicts,
                 &uncovered);
    CHECK(conflicts > 0);
    int *blk = malloc(sizeof(int) * (size_t)bp->nblocks);
    memcpy(blk, bp->blocks_by_colour, sizeof(int) * (size_t)bp->nblocks);
    blk[bp->nblocks - 1] = blk[0]; /* a block run twice, another never */
    check_blocks(s, begin, end, part, bp->ncolours, bp->colour_offset, blk, NULL, &conflicts,
                 &uncovered);
    CHECK(uncovered > 0);
    free(off), free(blk);
  }
  op2_plan_free(bp);

  /* global colours and the hierarchical plan (runtime/cuda/plan_cuda.c) */
  fake_loop f;
  fake_loop_make(&f, s, set);
  op2_context *ctx = calloc(1, sizeof *ctx);
  ctx->opt.part_size = part;
  op2_cuda_layout lay;
  memset(&lay, 0, sizeof lay);
  lay.strategy = OP2_CUDA_GLOBAL;
  lay.indirect_writes = 1;
  op2_cuda_plan *gp;
  CHECK_EQ_INT(op2_cuda_plan_build(ctx, &f.loop, &lay, begin, end, &gp), OP2_OK);
  check_global(s, begin, end, gp->ncolours, gp->col_offset, gp->col_elems, &conflicts, &uncovered);
  if (conflicts || uncovered)
    fprintf(stderr, "%s: global colours: %ld conflicts, %ld elements not covered once\n", what,
            conflicts, uncovered);
  CHECK_EQ_INT(conflicts, 0);
  CHECK_EQ_INT(uncovered, 0);
  if (prove && gp->ncolours >= 2) {
    int *off = malloc(sizeof(int) * (size_t)(gp->ncolours + 1));
    memcpy(off, gp->col_offset, sizeof(int) * (size_t)(gp->ncolours + 1));
    for (int c = 1; c < gp->ncolours; c++) off[c] = off[c + 1];
    check_global(s, begin, end, gp->ncolours - 1, off, gp->col_elems, &conflicts, &uncovered);
    CHECK(conflicts > 0);
    int *el = malloc(sizeof(int) * (size_t)(end - begin));
    memcpy(el, gp->col_elems, sizeof(int) * (size_t)(end - begin));
    el[end - begin - 1] = el[0];
    check_global(s, begin, end, gp->ncolours, gp->col_offset, el, &conflicts, &uncovered);
    CHECK(uncovered > 0);
    free(off), free(el);
  }
  op2_cuda_plan_free(gp);

  lay.strategy = OP2_CUDA_HIER;
  op2_cuda_plan *hp;
  CHECK_EQ_INT(op2_cuda_plan_build(ctx, &f.loop, &lay, begin, end, &hp), OP2_OK);
  CHECK(hp->thr_elem != NULL);
  check_blocks(s, begin, end, part, hp->nblock_colours, hp->block_col_offset, hp->blkmap,
               hp->thr_elem, &conflicts, &uncovered);
  if (conflicts || uncovered)
    fprintf(stderr, "%s: hierarchical block colours: %ld conflicts, %ld not covered once\n", what,
            conflicts, uncovered);
  CHECK_EQ_INT(conflicts, 0);
  CHECK_EQ_INT(uncovered, 0);
  check_threads(s, hp, hp->thrcol, hp->thr_elem, &conflicts, &uncovered);
  if (conflicts || uncovered)
    fprintf(stderr, "%s: thread colours: %ld conflicts, %ld elements not covered once\n", what,
            conflicts, uncovered);
  CHECK_EQ_INT(conflicts, 0);
  CHECK_EQ_INT(uncovered, 0);
  for (int b = 0; b < hp->nblocks; b++) /* positions grouped by colour, one launch turn each */
    for (int j = b * part + 1; j < (b + 1) * part && j < hp->npos; j++)
      CHECK(hp->thrcol[j] >= hp->thrcol[j - 1]);
  if (prove && hp->max_thread_colours >= 2) {
    unsigned char *tc = malloc((size_t)hp->npos);
    memcpy(tc, hp->thrcol, (size_t)hp->npos);
    for (int j = 0; j < hp->npos; j++) tc[j] = tc[j] == 1 ? 0 : tc[j]; /* colour 1 into 0 */
    check_threads(s, hp, tc, hp->thr_elem, &conflicts, &uncovered);
    CHECK(conflicts > 0);
    int *el = malloc(sizeof(int) * (size_t)hp->npos);
    memcpy(el, hp->thr_elem, sizeof(int) * (size_t)hp->npos);
    el[1] = el[0];
    check_threads(s, hp, hp->thrcol, el, &conflicts, &uncovered);
    CHECK(uncovered > 0);
    free(tc), free(el);
  }
  if (prove) CHECK(hp->nblock_colours >= 2 && hp->max_thread_colours >= 2);
  op2_cuda_plan_free(hp);
  free(ctx);
  g_checked += 4;
}

static unsigned rnd(unsigned *state) {
  *state = *state * 1103515245u + 12345u;
  return (*state >> 8) & 0xffffff;
}

/* Random meshes: elements reach random targets (repeats within an element included, and forced
 * in every seventh element), one dat written through two maps, vector maps. */
static void random_meshes(void) {
  const int ne = 6000, nn = 1500;
  for (unsigned seed = 1; seed <= 4; seed++) {
    unsigned st = seed * 7919u;
    op_set elems = op_decl_set(ne, "elems"), nodes = op_decl_set(nn, "nodes");
    op_set other = op_decl_set(nn / 3, "other");
    int arity[3] = {1, 2, 4};
    op_map m[3];
    int *data[3];
    for (int a = 0; a < 3; a++) {
      data[a] = malloc(sizeof(int) * (size_t)ne * (size_t)arity[a]);
      for (int e = 0; e < ne; e++)
        for (int c = 0; c < arity[a]; c++) {
          int t = (int)(rnd(&st) % (unsigned)nn);
          if (c > 0 && e % 7 == 0) t = data[a][(size_t)e * arity[a]]; /* repeated target */
          data[a][(size_t)e * arity[a] + c] = t;
        }
      m[a] = op_decl_map(elems, nodes, arity[a], data[a], "random");
    }
    int *odata = malloc(sizeof(int) * (size_t)ne);
    for (int e = 0; e < ne; e++) odata[e] = (int)(rnd(&st) % (unsigned)(nn / 3));
    op_map mo = op_decl_map(elems, other, 1, odata, "other");
    const shape shapes[] = {{1, {m[0]}, {0}},          /* arity 1 */
                            {1, {m[1]}, {1}},          /* one column of arity 2 */
                            {1, {m[1]}, {-2}},         /* vector map, arity 2 */
                            {1, {m[2]}, {-4}},         /* vector map, arity 4 with repeats */
                            {2, {m[1], m[2]}, {0, 3}}, /* one dat through two different maps */
                            {3, {m[0], m[1], m[2]}, {0, -2, -4}}, /* three maps into one set */
                            {2, {m[2], mo}, {-4, 0}},             /* two target sets */
                            {4, {m[0], m[1], m[2], mo}, {0, 1, 2, 0}}}; /* mixed columns */
    int parts[2] = {64, 256};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
      for (int pi = 0; pi < 2; pi++) {
        char what[96];
        snprintf(what, sizeof what, "random seed %u shape %zu part %d", seed, k, parts[pi]);
        check_shape(what, elems, &shapes[k], parts[pi], seed == 1);
      }
    for (int a = 0; a < 3; a++) free(data[a]);
    free(odata);
  }
}

/* Airfoil's loops that write through maps: res_calc (edges -> cells, both columns), bres_calc
 * (bedges -> cells), and a scatter to nodes through the cell and edge maps. */
static void airfoil(const char *path) {
  airfoil_mesh mesh;
  char err[512];
  if (airfoil_mesh_read(path, &mesh, err, sizeof err) != 0) {
    fprintf(stderr, "%s\n", err);
    exit(1);
  }
  op_set nodes = op_decl_set(mesh.nnode, "nodes"), cells = op_decl_set(mesh.ncell, "cells");
  op_set edges = op_decl_set(mesh.nedge, "edges"), bedges = op_decl_set(mesh.nbedge, "bedges");
  op_map pcell = op_decl_map(cells, nodes, 4, mesh.cell, "pcell");
  op_map pedge = op_decl_map(edges, nodes, 2, mesh.edge, "pedge");
  op_map pecell = op_decl_map(edges, cells, 2, mesh.ecell, "pecell");
  op_map pbecell = op_decl_map(bedges, cells, 1, mesh.becell, "pbecell");
  const shape res_calc = {2, {pecell, pecell}, {0, 1}};
  const shape res_vec = {1, {pecell}, {-2}};
  const shape bres_calc = {1, {pbecell}, {0}};
  const shape to_nodes = {1, {pcell}, {-4}};
  const shape edge_nodes = {2, {pedge, pecell}, {-2, -2}};
  int parts[3] = {64, 128, 256};
  for (int pi = 0; pi < 3; pi++) {
    char what[64];
    snprintf(what, sizeof what, "airfoil part %d", parts[pi]);
    check_shape(what, edges, &res_calc, parts[pi], pi == 0);
    check_shape(what, edges, &res_vec, parts[pi], 0);
    check_shape(what, bedges, &bres_calc, parts[pi], 0);
    check_shape(what, cells, &to_nodes, parts[pi], pi == 0);
    check_shape(what, edges, &edge_nodes, parts[pi], 0);
  }
  airfoil_mesh_free(&mesh);
}

int main(int argc, char **argv) {
  CHECK(argc >= 2); /* the 45k mesh */
  op_init(argc, argv, 0);
  random_meshes();
  airfoil(argv[1]);
  op_exit();
  printf("%ld plans checked\n", g_checked);
  return 0;
}
