/* SPDX-License-Identifier: BSD-3-Clause */
/* OP2-Common's aero write_hdf5 pattern: every rank reads and declares the whole mesh, then dumps
 * it with op_dump_to_hdf5 before any loop (the mesh has not been distributed yet). The file
 * must hold the mesh once, exactly as one process writes it (set sizes, map and dat rows, in the
 * user's order), and read back with the op_decl_*_hdf5 calls on any number of ranks, where a
 * loop over it gives plain C's result.
 *
 * usage: t508-dump-whole-mesh FILE write   declare the whole mesh on every rank, dump, check
 *                                          the file (rank 0, with HDF5 itself)
 *        t508-dump-whole-mesh FILE read    read FILE (written by `write`) back on any number of
 *                                          ranks, compare, and run a loop over it */
#include "roundtrip.h"

static mesh declare_whole(void) {
  mesh m;
  m.nodes = op_decl_set(NN, "nodes");
  m.cells = op_decl_set(NC, "cells");
  m.edges = op_decl_set(NE, "edges");
  m.empty = op_decl_set(0, "empty");
  m.cell_nodes = op_decl_map(m.cells, m.nodes, 3, cell_nodes, "cell_nodes");
  m.edge_cells = op_decl_map(m.edges, m.cells, 2, edge_cells, "edge_cells");
  m.node_cell = op_decl_map(m.nodes, m.cells, 1, node_cell, "node_cell");
  m.empty_map = op_decl_map(m.empty, m.nodes, 2, NULL, "empty_map");
  m.x = op_decl_dat(m.nodes, 2, "double", x, "x");
  m.rho = op_decl_dat(m.cells, 1, "double", rho, "rho");
  m.w = op_decl_dat(m.edges, 1, "double", w, "grp/sub/w");
  m.flags = op_decl_dat(m.edges, 3, "int", flags, "flags");
  m.f32 = op_decl_dat(m.cells, 5, "float", f32, "f32");
  m.ll = op_decl_dat(m.nodes, 2, "long long", ll, "ll");
  m.e_d = op_decl_dat(m.empty, 2, "double", NULL, "e_d");
  op_decl_const(1, "double", &c_one, "c_one");
  op_decl_const(3, "int", c_vec, "c_vec");
  return m;
}

static const char *gather_src =
    "static void gather(const double **x, const double *rho, double *sum) {\n"
    "  *sum += rho[0] * (x[0][0] + x[1][0] + x[2][0]);\n"
    "}\n";

/* The file read back as a program reads its mesh, and a loop over it. */
static void read_and_run(const char *path) {
  op_set nodes = op_decl_set_hdf5(path, "nodes");
  op_set cells = op_decl_set_hdf5(path, "cells");
  CHECK(nodes && cells);
  CHECK_EQ_INT(nodes->global_size, NN);
  CHECK_EQ_INT(cells->global_size, NC);
  op_map cn = op_decl_map_hdf5(cells, nodes, 3, path, "cell_nodes");
  op_dat dx = op_decl_dat_hdf5(nodes, 2, "double", path, "x");
  op_dat drho = op_decl_dat_hdf5(cells, 1, "double", path, "rho");
  CHECK(cn && dx && drho);
  double sum = 0, want = 0;
  op_par_loop(gather_src, "gather", cells, op_arg_dat(dx, -3, cn, 2, "double", OP_READ),
              op_arg_dat(drho, -1, OP_ID, 1, "double", OP_READ),
              op_arg_gbl(&sum, 1, "double", OP_INC));
  for (int c = 0; c < NC; c++)
    want += rho[c] * (x[2 * cell_nodes[3 * c]] + x[2 * cell_nodes[3 * c + 1]] +
                      x[2 * cell_nodes[3 * c + 2]]);
  CHECK_NEAR(sum, want, 1e-12);
}

int main(int argc, char **argv) {
  if (argc < 3) return fprintf(stderr, "usage: %s FILE write|read\n", argv[0]), 2;
  const char *path = argv[1];
  op_init(argc, argv, 0);
  test_catch_errors();
  make_mesh();
  if (strcmp(argv[2], "write") == 0) {
    declare_whole();
    op_dump_to_hdf5(path); /* before any loop, as write_hdf5.cpp */
    h5t_barrier();
    check_file(path);
  } else {
    read_back(path);
    read_and_run(path);
  }
  op_exit();
  return 0;
}
