/* SPDX-License-Identifier: BSD-3-Clause */
/* Thread-owned plan layout: the runs cover every element exactly once, each thread's runs lie in
 * its own range (when the layout is by ranges of elements), and no target is written by private
 * elements of two different threads. Edges listed direction by direction over a grid of nodes
 * share everything by ranges of edges and get a layout by ranges of their nodes. */
#include "test.h"
#include "runtime/op2_impl.h"

static void check_layout(const op2_plan *p, op_map map, int nthreads, int ranged) {
  int size = p->set->size;
  int *covered = calloc((size_t)size, sizeof(int));
  int *writer = malloc(sizeof(int) * (size_t)map->to->size);
  for (int i = 0; i < map->to->size; i++) writer[i] = -1;
  for (int t = 0; t < nthreads; t++) {
    long lo = ((long)t * size + nthreads - 1) / nthreads;
    long hi = ((long)(t + 1) * size + nthreads - 1) / nthreads;
    for (int k = p->thread_run_offset[t]; k < p->thread_run_offset[t + 1]; k++) {
      int b = p->runs[2 * k], e = p->runs[2 * k + 1];
      CHECK(b < e && (!ranged || (b >= lo && e <= hi)));
      for (int el = b; el < e; el++) {
        covered[el]++;
        for (int c = 0; c < map->dim; c++) {
          int target = map->values[el * map->dim + c];
          CHECK(writer[target] == -1 || writer[target] == t);
          writer[target] = t;
        }
      }
    }
  }
  const int *shared = p->runs + 2 * p->thread_run_offset[nthreads];
  long nshared = 0;
  for (int k = 0; k < p->nshared_runs; k++)
    for (int el = shared[2 * k]; el < shared[2 * k + 1]; el++) covered[el]++, nshared++;
  CHECK_EQ_INT(nshared, p->nshared);
  for (int el = 0; el < size; el++) CHECK_EQ_INT(covered[el], 1);
  free(covered), free(writer);
}

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  /* A chain: element e writes targets e and e+1, so only the seams between ranges are shared. */
  int n = 10001;
  int *chain = malloc(sizeof(int) * 2 * (size_t)n);
  for (int e = 0; e < n; e++) chain[2 * e] = e, chain[2 * e + 1] = e + 1;
  op_set edges = op_decl_set(n, "edges"), nodes = op_decl_set(n + 1, "nodes");
  op_map m = op_decl_map(edges, nodes, 2, chain, "chain");
  int idx = -2;
  for (int nthreads = 2; nthreads <= 5; nthreads++) {
    op2_plan *p;
    CHECK_EQ_INT(op2_plan_build(edges, 0, edges->size, 256, 1, &m, &idx, 0, &p), OP2_OK);
    CHECK_EQ_INT(op2_plan_build_ownership(p, nthreads, 0.05), OP2_OK);
    CHECK_EQ_INT(p->owner_threads, nthreads);
    CHECK(p->nshared <= 2 * (nthreads - 1)); /* the seams only */
    check_layout(p, m, nthreads, 1);
    op2_plan_free(p);
  }

  /* Random connectivity shares almost everything: no thread-owned layout at a 5% limit, and a
   * complete, correct one when any fraction is allowed. */
  unsigned seed = 99;
  int *rnd = malloc(sizeof(int) * 2 * (size_t)n);
  for (int i = 0; i < 2 * n; i++) rnd[i] = (int)(test_rand(&seed) % (unsigned)(n + 1));
  op_map r = op_decl_map(edges, nodes, 2, rnd, "random");
  op2_plan *p;
  CHECK_EQ_INT(op2_plan_build(edges, 0, edges->size, 256, 1, &r, &idx, 0, &p), OP2_OK);
  CHECK_EQ_INT(op2_plan_build_ownership(p, 2, 0.05), OP2_OK);
  CHECK_EQ_INT(p->owner_threads, 0);
  CHECK_EQ_INT(op2_plan_build_ownership(p, 2, 1.0), OP2_OK);
  CHECK_EQ_INT(p->owner_threads, 2);
  CHECK(p->nshared > n / 2);
  check_layout(p, r, 2, 1);
  op2_plan_free(p);

  /* A 100 x 100 grid of nodes, its edges listed direction by direction: every x-edge, then every
   * y-edge, each half of the edges reaching every node. The layout goes by the edges' first
   * nodes: each thread a band of rows, the edges across the bands' seams shared. */
  enum { G = 100, GE = 2 * G * (G - 1) };
  int *grid = malloc(sizeof(int) * 2 * GE), k = 0;
  for (int y = 0; y < G; y++)
    for (int x = 0; x + 1 < G; x++) grid[k++] = y * G + x, grid[k++] = y * G + x + 1;
  for (int y = 0; y + 1 < G; y++)
    for (int x = 0; x < G; x++) grid[k++] = y * G + x, grid[k++] = (y + 1) * G + x;
  op_set gedges = op_decl_set(GE, "grid_edges"), gnodes = op_decl_set(G * G, "grid_nodes");
  op_map g = op_decl_map(gedges, gnodes, 2, grid, "grid");
  for (int nthreads = 2; nthreads <= 4; nthreads++) {
    CHECK_EQ_INT(op2_plan_build(gedges, 0, gedges->size, 256, 1, &g, &idx, 0, &p), OP2_OK);
    CHECK_EQ_INT(op2_plan_build_ownership(p, nthreads, 0.05), OP2_OK);
    CHECK_EQ_INT(p->owner_threads, nthreads);
    CHECK(p->nshared <= 3L * G * (nthreads - 1));          /* the edges at the bands' seams */
    CHECK(p->thread_run_offset[nthreads] <= 4 * nthreads); /* a few long runs per thread */
    check_layout(p, g, nthreads, 0);
    op2_plan_free(p);
  }
  free(chain), free(rnd), free(grid);
  op_exit();
  return 0;
}
