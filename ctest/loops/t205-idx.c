/* SPDX-License-Identifier: BSD-3-Clause */
/* op_arg_idx: the kernel gets a pointer to the element's own index (map OP_ID, idx -1) or to the
 * index that a map column gives. Written into int dats, the numbers must be exactly the element
 * numbers and the map's values, also in planned (coloured) loops where blocks run out of order. */
#include "random_mesh.h"

enum { NE = 40000, NN = 10000, NC = 20000 };

KERNEL_TEXT(
    put_self, static void put_self(const int *i, int *out) { out[0] = *i; })

KERNEL_TEXT(
    put_edge, static void put_edge(const int *self, const int *n1, const int *n0, int *out) {
      out[0] = *n0;
      out[1] = *n1;
      out[2] = *self;
    })

KERNEL_TEXT(
    put_cell,
    static void put_cell(const int *c0, const int *c1, const int *c2, const int *c3, int *out) {
      out[0] = *c0;
      out[1] = *c1;
      out[2] = *c2;
      out[3] = *c3;
    })

/* Indices in a planned loop: every node sums the numbers of the edges that reach it, and checks
 * that the index argument and the data it reaches agree (each node stores its own number). */
KERNEL_TEXT(
    inc_indices, static void inc_indices(const int *self, const int *n0, const int **num, int *a,
                                         int *b, int *bad) {
      a[0] += *self;
      a[1] += 1;
      b[0] += *self * 3;
      b[1] += 1;
      if (*num[0] != *n0) bad[0] += 1;
    })

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  rm_mesh m;
  rm_mesh_make(&m, NE, NN, NC, RM_JUMPS, 205);
  const int *en = m.edge_nodes, *cn = m.cell_nodes;
  int *got = rm_alloc(4 * NE * sizeof *got);

  op_dat dself = op_decl_dat(m.edges, 1, "int", NULL, "self");
  op_par_loop(put_self_src, "put_self", m.edges, op_arg_idx(-1, OP_ID),
              op_arg_dat(dself, -1, OP_ID, 1, "int", OP_WRITE));
  op_fetch_data(dself, got);
  for (int e = 0; e < NE; e++) CHECK_EQ_INT(got[e], e);

  op_dat dedge = op_decl_dat(m.edges, 3, "int", NULL, "edge_idx");
  op_par_loop(put_edge_src, "put_edge", m.edges, op_arg_idx(-1, OP_ID), op_arg_idx(1, m.pedge),
              op_arg_idx(0, m.pedge), op_arg_dat(dedge, -1, OP_ID, 3, "int", OP_WRITE));
  op_fetch_data(dedge, got);
  for (int e = 0; e < NE; e++) {
    CHECK_EQ_INT(got[3 * e], en[2 * e]);
    CHECK_EQ_INT(got[3 * e + 1], en[2 * e + 1]);
    CHECK_EQ_INT(got[3 * e + 2], e);
  }

  op_dat dcell = op_decl_dat(m.cells, 4, "int", NULL, "cell_idx");
  op_par_loop(put_cell_src, "put_cell", m.cells, op_arg_idx(0, m.pcell), op_arg_idx(1, m.pcell),
              op_arg_idx(2, m.pcell), op_arg_idx(3, m.pcell),
              op_arg_dat(dcell, -1, OP_ID, 4, "int", OP_WRITE));
  op_fetch_data(dcell, got);
  rm_check_same(got, cn, 4 * (size_t)NC, sizeof *cn, "put_cell");

  int *num = rm_alloc(NN * sizeof *num);
  for (int n = 0; n < NN; n++) num[n] = n;
  int *a = rm_alloc(2 * NN * sizeof *a), *b = rm_alloc(2 * NN * sizeof *b), bad = 0;
  op_dat dnum = op_decl_dat(m.nodes, 1, "int", num, "num");
  op_dat da = op_decl_dat(m.nodes, 2, "int", NULL, "a");
  op_dat db = op_decl_dat(m.nodes, 2, "int", NULL, "b");
  op_par_loop(inc_indices_src, "inc_indices", m.edges, op_arg_idx(-1, OP_ID),
              op_arg_idx(0, m.pedge), op_arg_dat(dnum, -2, m.pedge, 1, "int", OP_READ),
              op_arg_dat(da, 0, m.pedge, 2, "int", OP_INC),
              op_arg_dat(db, 1, m.pedge, 2, "int", OP_INC), op_arg_gbl(&bad, 1, "int", OP_INC));
  for (int e = 0; e < NE; e++) {
    a[2 * en[2 * e]] += e;
    a[2 * en[2 * e] + 1] += 1;
    b[2 * en[2 * e + 1]] += 3 * e;
    b[2 * en[2 * e + 1] + 1] += 1;
  }
  CHECK_EQ_INT(bad, 0);
  op_fetch_data(da, got);
  rm_check_same(got, a, 2 * NN, sizeof *a, "inc_indices a");
  op_fetch_data(db, got);
  rm_check_same(got, b, 2 * NN, sizeof *b, "inc_indices b");

  free(got), free(num), free(a), free(b);
  rm_mesh_free(&m);
  op_exit();
  return 0;
}
