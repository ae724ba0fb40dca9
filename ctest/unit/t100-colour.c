/* SPDX-License-Identifier: BSD-3-Clause */
/* Plan colouring: blocks partition the set, every block has a colour, no two blocks of one colour
 * write the same element, and the colour count stays close to what the conflicts force. */
#include "test.h"
#include "runtime/op2_impl.h"

static void check_plan(const op2_plan *p, op_set set, int nwrites, const op_map *maps,
                       const int *idx) {
  CHECK_EQ_INT(p->nblocks, (set->size + p->part_size - 1) / p->part_size);
  /* blocks_by_colour is a permutation of the blocks, grouped by colour */
  int *seen = calloc((size_t)p->nblocks + 1, sizeof(int));
  CHECK_EQ_INT(p->colour_offset[0], 0);
  CHECK_EQ_INT(p->colour_offset[p->ncolours], p->nblocks);
  for (int c = 0; c < p->ncolours; c++) {
    CHECK(p->colour_offset[c + 1] > p->colour_offset[c]); /* no empty colour */
    for (int k = p->colour_offset[c]; k < p->colour_offset[c + 1]; k++) {
      int b = p->blocks_by_colour[k];
      CHECK(b >= 0 && b < p->nblocks);
      CHECK_EQ_INT(p->block_colour[b], c);
      seen[b]++;
    }
  }
  for (int b = 0; b < p->nblocks; b++) CHECK_EQ_INT(seen[b], 1);
  free(seen);
  /* within a colour, each target element is written by one block only */
  for (int c = 0; c < p->ncolours; c++) {
    for (int w = 0; w < nwrites; w++) {
      int *owner = malloc(sizeof(int) * (size_t)maps[w]->to->size);
      for (int i = 0; i < maps[w]->to->size; i++) owner[i] = -1;
      for (int v = 0; v < nwrites; v++) {
        if (maps[v]->to != maps[w]->to) continue;
        int lo = idx[v] < 0 ? 0 : idx[v], hi = idx[v] < 0 ? -idx[v] : idx[v] + 1;
        for (int k = p->colour_offset[c]; k < p->colour_offset[c + 1]; k++) {
          int b = p->blocks_by_colour[k];
          int end = (b + 1) * p->part_size < set->size ? (b + 1) * p->part_size : set->size;
          for (int e = b * p->part_size; e < end; e++)
            for (int col = lo; col < hi; col++) {
              int t = maps[v]->values[(size_t)e * maps[v]->dim + col];
              CHECK(owner[t] == -1 || owner[t] == b);
              owner[t] = b;
            }
        }
      }
      free(owner);
    }
  }
}

/* Greedy colouring needs at most (max conflicting neighbours + 1) colours. */
static int conflict_bound(const op2_plan *p, op_map map) {
  int maxdeg = 0;
  for (int b = 0; b < p->nblocks; b++) {
    int deg = 0;
    for (int o = 0; o < p->nblocks; o++) {
      if (o == b) continue;
      int hit = 0;
      for (int e = b * p->part_size; e < (b + 1) * p->part_size && e < p->set->size && !hit; e++)
        for (int f = o * p->part_size; f < (o + 1) * p->part_size && f < p->set->size && !hit; f++)
          for (int i = 0; i < map->dim && !hit; i++)
            for (int j = 0; j < map->dim && !hit; j++)
              hit = map->values[e * map->dim + i] == map->values[f * map->dim + j];
      deg += hit;
    }
    if (deg > maxdeg) maxdeg = deg;
  }
  return maxdeg + 1;
}

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  unsigned seed = 12345;

  /* A ring of edges over nodes: structured, needs 2 colours of blocks. */
  int n = 10000;
  int *ring = malloc(sizeof(int) * 2 * (size_t)n);
  for (int e = 0; e < n; e++) ring[2 * e] = e, ring[2 * e + 1] = (e + 1) % n;
  op_set edges = op_decl_set(n, "edges"), nodes = op_decl_set(n, "nodes");
  op_map ring_map = op_decl_map(edges, nodes, 2, ring, "ring");
  op2_plan *p;
  op_map maps2[2] = {ring_map, ring_map};
  int idx2[2] = {0, 1};
  CHECK_EQ_INT(op2_plan_build(edges, 0, edges->size, 256, 2, maps2, idx2, 0, &p), OP2_OK);
  check_plan(p, edges, 2, maps2, idx2);
  CHECK(p->ncolours >= 2 && p->ncolours <= 3);
  op2_plan_free(p);

  /* Random connectivity: many conflicts; colours bounded by the conflict degree. */
  int ne = 3000, nn = 2000;
  int *rnd = malloc(sizeof(int) * 3 * (size_t)ne);
  for (int i = 0; i < 3 * ne; i++) rnd[i] = (int)(test_rand(&seed) % (unsigned)nn);
  op_set cells = op_decl_set(ne, "cells"), verts = op_decl_set(nn, "verts");
  op_map rmap = op_decl_map(cells, verts, 3, rnd, "random");
  op_map mv[1] = {rmap};
  int iv[1] = {-3};
  CHECK_EQ_INT(op2_plan_build(cells, 0, cells->size, 64, 1, mv, iv, 0, &p), OP2_OK);
  check_plan(p, cells, 1, mv, iv);
  CHECK(p->ncolours <= conflict_bound(p, rmap));
  op2_plan_free(p);

  /* Every element writes the same target: every block conflicts with every other, so the colour
   * count must equal the block count (> 32 exercises the repeated 32-colour passes). */
  int nb = 70 * 16;
  int *all = calloc((size_t)nb, sizeof(int));
  op_set many = op_decl_set(nb, "many"), one = op_decl_set(1, "one");
  op_map to_one = op_decl_map(many, one, 1, all, "to_one");
  op_map m1[1] = {to_one};
  int i1[1] = {0};
  CHECK_EQ_INT(op2_plan_build(many, 0, many->size, 16, 1, m1, i1, 0, &p), OP2_OK);
  check_plan(p, many, 1, m1, i1);
  CHECK_EQ_INT(p->ncolours, 70);
  op2_plan_free(p);

  /* Two maps into one set share the conflict space. */
  int *half = malloc(sizeof(int) * (size_t)n);
  for (int e = 0; e < n; e++) half[e] = (int)(test_rand(&seed) % (unsigned)n);
  op_map other = op_decl_map(edges, nodes, 1, half, "other");
  op_map mixed[2] = {ring_map, other};
  int imixed[2] = {-2, 0};
  CHECK_EQ_INT(op2_plan_build(edges, 0, edges->size, 128, 2, mixed, imixed, 0, &p), OP2_OK);
  check_plan(p, edges, 2, mixed, imixed);
  op2_plan_free(p);

  /* An empty set has no blocks and no colours. */
  op_set none = op_decl_set(0, "none");
  op_map from_none = op_decl_map(none, nodes, 1, NULL, "from_none");
  op_map m0[1] = {from_none};
  CHECK_EQ_INT(op2_plan_build(none, 0, none->size, 256, 1, m0, i1, 0, &p), OP2_OK);
  CHECK_EQ_INT(p->nblocks, 0);
  CHECK_EQ_INT(p->ncolours, 0);
  op2_plan_free(p);

  free(ring), free(rnd), free(all), free(half);
  op_exit();
  return 0;
}
