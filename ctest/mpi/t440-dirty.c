/* SPDX-License-Identifier: BSD-3-Clause */
/* Halo copies stay current when dats change between loops. Usage: t440-dirty local|replicated
 *
 * Each step is checked against plain C on the whole mesh:
 *   - a direct loop rewrites node values, then an edge loop reads them through the map (its
 *     halo nodes must hold the new values), alternated several times, with and without a fetch
 *     in between;
 *   - an edge loop increments nodes, then a cell loop reads the sums through a vector argument;
 *   - a direct loop writes an edge dat, then an incrementing edge loop reads it directly (the
 *     exec halo edges it runs must hold the new values too);
 *   - cells increment nodes, then an incrementing edge loop reads those nodes through its map;
 *   - loops after op_fetch_data, op_fetch_data_idx and op_print_dat_to_txtfile see the same data
 *     as before them. */
#include "mpi_test.h"

enum { NN = 300, NE = 700, NC = 250 };

KERNEL(
    relax, static void relax(const int *g, const int *round, double *x) {
      x[0] = 0.5 * x[0] + (double)*round + 0.001 * (double)*g;
    })

KERNEL(
    edge_diff, static void edge_diff(const double *a, const double *b, double *ev) {
      ev[0] = a[0] - 2.0 * b[0];
    })

KERNEL(
    edge_scatter, static void edge_scatter(const double *ev, double *a, double *b) {
      a[0] += ev[0];
      b[0] -= 2.0 * ev[0];
    })

KERNEL(
    cell_gather, static void cell_gather(const double **acc, double *c) {
      c[0] = acc[0][0] + 3.0 * acc[1][0] - acc[2][0] + 0.5 * acc[3][0];
    })

KERNEL(
    edge_rewrite,
    static void edge_rewrite(const int *g, double *ev) { ev[0] = ev[0] * -1.5 + (double)(*g % 7); })

KERNEL(
    cell_scatter, static void cell_scatter(const double *c, double **acc) {
      for (int j = 0; j < 4; j++) acc[j][0] += c[0] * (double)(j + 1);
    })

KERNEL(
    edge_mix, static void edge_mix(const double *ev, const double *s0, const double *s1, double *t0,
                                   double *t1) {
      t0[0] += ev[0] * s1[0];
      t1[0] += s0[0] - ev[0];
    })

typedef struct world {
  mt_set nodes, edges, cells;
  op_map pedge, pcell;
  int *en, *cn;
} world;

static void check_d(op_dat d, const mt_set *s, const double *want, double tol, const char *what) {
  double *got = mt_fetch_all(d, s->global, sizeof(double));
  mt_check_doubles(got, want, (size_t)s->global, tol, what);
  free(got);
}

int main(int argc, char **argv) {
  CHECK(argc >= 2);
  op_init(argc, argv, 0);
  mt_mode mode = mt_parse_mode(argv[1]);
  unsigned rng = rm_rng(440);
  world w;
  w.nodes = mt_decl_set(mode, MT_SPLIT_SKEWED, NN, "nodes");
  w.edges = mt_decl_set(mode, MT_SPLIT_EMPTY_FIRST, NE, "edges");
  w.cells = mt_decl_set(mode, MT_SPLIT_SKEWED, NC, "cells");
  w.en = rm_map_values(NE, 2, NN, 150, &rng);
  w.cn = rm_map_values(NC, 4, NN, 150, &rng);
  w.pedge = mt_decl_map(&w.edges, &w.nodes, 2, w.en, "pedge");
  w.pcell = mt_decl_map(&w.cells, &w.nodes, 4, w.cn, "pcell");
  const int *en = w.en, *cn = w.cn;
  double *x = rm_doubles(NN, -1, 1, &rng), *ev = rm_alloc(sizeof(double) * NE);
  double *acc = rm_alloc(sizeof(double) * NN), *cv = rm_alloc(sizeof(double) * NC);
  double *acc2 = rm_alloc(sizeof(double) * NN), *t = rm_alloc(sizeof(double) * NN);
  op_dat dx = mt_decl_dat(&w.nodes, 1, "double", sizeof(double), x, "x");
  op_dat dev = mt_decl_dat(&w.edges, 1, "double", sizeof(double), NULL, "ev");
  op_dat dacc = mt_decl_dat(&w.nodes, 1, "double", sizeof(double), NULL, "acc");
  op_dat dcv = mt_decl_dat(&w.cells, 1, "double", sizeof(double), NULL, "cv");
  op_dat dacc2 = mt_decl_dat(&w.nodes, 1, "double", sizeof(double), NULL, "acc2");
  op_dat dt = mt_decl_dat(&w.nodes, 1, "double", sizeof(double), NULL, "t");
  op_partition("PTSCOTCH", "KWAY", w.cells.set, w.pcell, NULL);

  /* direct write, indirect read, alternating; a fetch only every other round */
  for (int round = 0; round < 6; round++) {
    op_par_loop(relax_src, "relax", w.nodes.set, op_arg_idx(-1, OP_ID),
                op_arg_gbl(&round, 1, "int", OP_READ),
                op_arg_dat(dx, -1, OP_ID, 1, "double", OP_RW));
    op_par_loop(edge_diff_src, "edge_diff", w.edges.set,
                op_arg_dat(dx, 0, w.pedge, 1, "double", OP_READ),
                op_arg_dat(dx, 1, w.pedge, 1, "double", OP_READ),
                op_arg_dat(dev, -1, OP_ID, 1, "double", OP_WRITE));
    for (int n = 0; n < NN; n++) relax(&n, &round, x + n);
    for (int e = 0; e < NE; e++) edge_diff(x + en[2 * e], x + en[2 * e + 1], ev + e);
    if (round % 2 == 1) {
      check_d(dev, &w.edges, ev, 0, "edge_diff after relax");
      check_d(dx, &w.nodes, x, 0, "relax");
    }
  }

  /* INC, then the incremented dat read through a map; twice, so the sums build on each other */
  for (int round = 0; round < 2; round++) {
    op_par_loop(edge_scatter_src, "edge_scatter", w.edges.set,
                op_arg_dat(dev, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(dacc, 0, w.pedge, 1, "double", OP_INC),
                op_arg_dat(dacc, 1, w.pedge, 1, "double", OP_INC));
    op_par_loop(cell_gather_src, "cell_gather", w.cells.set,
                op_arg_dat(dacc, -4, w.pcell, 1, "double", OP_READ),
                op_arg_dat(dcv, -1, OP_ID, 1, "double", OP_WRITE));
    for (int e = 0; e < NE; e++) edge_scatter(ev + e, acc + en[2 * e], acc + en[2 * e + 1]);
    for (int c = 0; c < NC; c++) {
      const double *a[4] = {acc + cn[4 * c], acc + cn[4 * c + 1], acc + cn[4 * c + 2],
                            acc + cn[4 * c + 3]};
      cell_gather(a, cv + c);
    }
    check_d(dcv, &w.cells, cv, 1e-12, "cell_gather after edge_scatter");
  }

  /* a direct write of an edge dat, then an incrementing loop that reads it directly */
  for (int round = 0; round < 2; round++) {
    op_par_loop(edge_rewrite_src, "edge_rewrite", w.edges.set, op_arg_idx(-1, OP_ID),
                op_arg_dat(dev, -1, OP_ID, 1, "double", OP_RW));
    op_par_loop(edge_scatter_src, "edge_scatter", w.edges.set,
                op_arg_dat(dev, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(dacc, 0, w.pedge, 1, "double", OP_INC),
                op_arg_dat(dacc, 1, w.pedge, 1, "double", OP_INC));
    for (int e = 0; e < NE; e++) edge_rewrite(&e, ev + e);
    for (int e = 0; e < NE; e++) edge_scatter(ev + e, acc + en[2 * e], acc + en[2 * e + 1]);
  }
  check_d(dacc, &w.nodes, acc, 1e-12, "edge_scatter after edge_rewrite");

  /* cells increment nodes; an incrementing edge loop then reads them through its map */
  op_par_loop(cell_scatter_src, "cell_scatter", w.cells.set,
              op_arg_dat(dcv, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(dacc2, -4, w.pcell, 1, "double", OP_INC));
  op_par_loop(edge_mix_src, "edge_mix", w.edges.set,
              op_arg_dat(dev, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(dacc2, 0, w.pedge, 1, "double", OP_READ),
              op_arg_dat(dacc2, 1, w.pedge, 1, "double", OP_READ),
              op_arg_dat(dt, 0, w.pedge, 1, "double", OP_INC),
              op_arg_dat(dt, 1, w.pedge, 1, "double", OP_INC));
  for (int c = 0; c < NC; c++) {
    double *a[4] = {acc2 + cn[4 * c], acc2 + cn[4 * c + 1], acc2 + cn[4 * c + 2],
                    acc2 + cn[4 * c + 3]};
    cell_scatter(cv + c, a);
  }
  for (int e = 0; e < NE; e++)
    edge_mix(ev + e, acc2 + en[2 * e], acc2 + en[2 * e + 1], t + en[2 * e], t + en[2 * e + 1]);
  check_d(dt, &w.nodes, t, 1e-12, "edge_mix after cell_scatter");

  /* loops after each way of getting data out */
  double *got = rm_alloc(sizeof(double) * NN);
  char dir[512], path[600];
  mt_scratch_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/x.txt", dir);
  for (int way = 0; way < 3; way++) {
    if (way == 0) op_fetch_data(dx, got);
    if (way == 1) op_fetch_data_idx(dx, got, NN / 3, NN / 2);
    if (way == 2) op_print_dat_to_txtfile(dx, path);
    int round = 10 + way;
    op_par_loop(relax_src, "relax", w.nodes.set, op_arg_idx(-1, OP_ID),
                op_arg_gbl(&round, 1, "int", OP_READ),
                op_arg_dat(dx, -1, OP_ID, 1, "double", OP_RW));
    op_par_loop(edge_diff_src, "edge_diff", w.edges.set,
                op_arg_dat(dx, 0, w.pedge, 1, "double", OP_READ),
                op_arg_dat(dx, 1, w.pedge, 1, "double", OP_READ),
                op_arg_dat(dev, -1, OP_ID, 1, "double", OP_WRITE));
    op_fetch_data(dx, got); /* and a fetch straight before an indirect read */
    op_par_loop(edge_scatter_src, "edge_scatter", w.edges.set,
                op_arg_dat(dev, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(dacc, 0, w.pedge, 1, "double", OP_INC),
                op_arg_dat(dacc, 1, w.pedge, 1, "double", OP_INC));
    for (int n = 0; n < NN; n++) relax(&n, &round, x + n);
    for (int e = 0; e < NE; e++) edge_diff(x + en[2 * e], x + en[2 * e + 1], ev + e);
    for (int e = 0; e < NE; e++) edge_scatter(ev + e, acc + en[2 * e], acc + en[2 * e + 1]);
    check_d(dev, &w.edges, ev, 0, "edge_diff after a fetch");
    check_d(dacc, &w.nodes, acc, 1e-12, "edge_scatter after a fetch");
  }
  int nfiles = mt_scratch_remove(dir);
  if (mt_rank() == 0) CHECK_EQ_INT(nfiles, 1); /* the printed file, nothing else */

  free(x), free(ev), free(acc), free(cv), free(acc2), free(t), free(got), free(w.en), free(w.cn);
  int me = mt_rank(), p = mt_size();
  op_exit();
  if (me == 0) printf("t440 %s on %d ranks: halos follow every change\n", argv[1], p);
  return 0;
}
