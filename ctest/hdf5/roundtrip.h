/* SPDX-License-Identifier: BSD-3-Clause */
/* The mesh both round-trip tests use, and checks of a dumped file against it: the file byte for
 * byte in OP2's layout (datatypes, shapes, attributes and their string widths, values in the
 * user's order) and the mesh read back with the op_decl_*_hdf5 calls. */
#ifndef OP2_H5_ROUNDTRIP_H
#define OP2_H5_ROUNDTRIP_H

#include "h5_test.h"
#include "runtime/mpi/op2_mpi.h"
#include "runtime/op2_impl.h"

enum { NN = 41, NC = 29, NE = 57 };

/* The global mesh, the same on every rank. */
static int cell_nodes[NC * 3], edge_cells[NE * 2], node_cell[NN];
static double x[NN * 2], rho[NC], w[NE];
static int flags[NE * 3];
static float f32[NC * 5];
static long long ll[NN * 2];
static double c_one = 2.5;
static int c_vec[3] = {7, -8, 9};

static void make_mesh(void) {
  unsigned s = 12345;
  for (int i = 0; i < NC * 3; i++) cell_nodes[i] = (int)(test_rand(&s) % NN);
  for (int i = 0; i < NE * 2; i++) edge_cells[i] = (int)(test_rand(&s) % NC);
  for (int i = 0; i < NN; i++) node_cell[i] = (int)(test_rand(&s) % NC);
  for (int i = 0; i < NN * 2; i++) x[i] = (double)(test_rand(&s) % 100000) / 997.0 - 20.0;
  for (int i = 0; i < NC; i++) rho[i] = 1.0 + i / 3.0;
  for (int i = 0; i < NE; i++) w[i] = -0.5 * i;
  for (int i = 0; i < NE * 3; i++) flags[i] = (int)(test_rand(&s) % 2001) - 1000;
  for (int i = 0; i < NC * 5; i++) f32[i] = (float)i / 7.0f;
  for (int i = 0; i < NN * 2; i++) ll[i] = (long long)i * 4000000000LL - 3;
}

/* This rank's block of a global table with `row` bytes per element. */
static const void *rows_of(const void *table, long first, size_t row) {
  return (const char *)table + (size_t)first * row;
}

typedef struct mesh {
  op_set nodes, cells, edges, empty;
  op_map cell_nodes, edge_cells, node_cell, empty_map;
  op_dat x, rho, w, flags, f32, ll, e_d;
} mesh;

static inline mesh declare(void) {
  mesh m;
  long nf, nn, cf, cn, ef, en;
  h5t_block(NN, &nf, &nn);
  h5t_block(NC, &cf, &cn);
  h5t_block(NE, &ef, &en);
  m.nodes = op_decl_set((int)nn, "nodes");
  m.cells = op_decl_set((int)cn, "cells");
  m.edges = op_decl_set((int)en, "edges");
  m.empty = op_decl_set(0, "empty");
  m.cell_nodes =
      op_decl_map(m.cells, m.nodes, 3, rows_of(cell_nodes, cf, 3 * sizeof(int)), "cell_nodes");
  m.edge_cells =
      op_decl_map(m.edges, m.cells, 2, rows_of(edge_cells, ef, 2 * sizeof(int)), "edge_cells");
  m.node_cell = op_decl_map(m.nodes, m.cells, 1, rows_of(node_cell, nf, sizeof(int)), "node_cell");
  m.empty_map = op_decl_map(m.empty, m.nodes, 2, NULL, "empty_map");
  m.x = op_decl_dat(m.nodes, 2, "double", rows_of(x, nf, 2 * sizeof(double)), "x");
  m.rho = op_decl_dat(m.cells, 1, "double", rows_of(rho, cf, sizeof(double)), "rho");
  m.w = op_decl_dat(m.edges, 1, "double", rows_of(w, ef, sizeof(double)), "grp/sub/w");
  m.flags = op_decl_dat(m.edges, 3, "int", rows_of(flags, ef, 3 * sizeof(int)), "flags");
  m.f32 = op_decl_dat(m.cells, 5, "float", rows_of(f32, cf, 5 * sizeof(float)), "f32");
  m.ll = op_decl_dat(m.nodes, 2, "long long", rows_of(ll, nf, 2 * sizeof(long long)), "ll");
  m.e_d = op_decl_dat(m.empty, 2, "double", NULL, "e_d");
  op_decl_const(1, "double", &c_one, "c_one");
  op_decl_const(3, "int", c_vec, "c_vec");
  return m;
}

/* ---- the file, as OP2 lays it out ---- */

static void check_set(hid_t f, const char *name, int size) {
  hsize_t dims[2];
  CHECK_EQ_INT(h5t_shape(f, name, dims), 1);
  CHECK_EQ_INT(dims[0], 1);
  CHECK(h5t_dtype_is(f, name, H5T_STD_I32LE));
  CHECK_EQ_INT(h5t_attr_count(f, name), 0);
  int v = -1;
  h5t_read_all(f, name, H5T_NATIVE_INT, &v);
  CHECK_EQ_INT(v, size);
}

/* A map or dat table: [rows, dim] of ftype with dim, size and type attributes. */
static void check_table(hid_t f, const char *name, hid_t ftype, hid_t mtype, size_t elem, int rows,
                        int dim, int size_attr, const char *type, size_t width, const void *want) {
  hsize_t dims[2];
  CHECK_EQ_INT(h5t_shape(f, name, dims), 2);
  CHECK_EQ_INT(dims[0], rows);
  CHECK_EQ_INT(dims[1], dim);
  CHECK(h5t_dtype_is(f, name, ftype));
  CHECK_EQ_INT(h5t_attr_count(f, name), 3);
  CHECK_EQ_INT(h5t_int_attr(f, name, "dim"), dim);
  CHECK_EQ_INT(h5t_int_attr(f, name, "size"), size_attr);
  char got[64];
  size_t got_width;
  h5t_str_attr(f, name, "type", got, sizeof got, &got_width);
  CHECK(strcmp(got, type) == 0);
  CHECK_EQ_INT(got_width, width);
  size_t bytes = elem * (size_t)rows * (size_t)dim;
  char *buf = malloc(bytes + 1);
  if (rows) h5t_read_all(f, name, mtype, buf);
  if (memcmp(buf, want, bytes) != 0) {
    fprintf(stderr, "%s: values differ from the expected ones\n", name);
    exit(1);
  }
  free(buf);
}

static void check_const(hid_t f, const char *name, hid_t ftype, hid_t mtype, int dim,
                        const char *type, const void *want, size_t bytes) {
  hsize_t dims[2];
  CHECK_EQ_INT(h5t_shape(f, name, dims), 1);
  CHECK_EQ_INT(dims[0], dim);
  CHECK(h5t_dtype_is(f, name, ftype));
  CHECK_EQ_INT(h5t_attr_count(f, name), 2);
  CHECK_EQ_INT(h5t_int_attr(f, name, "dim"), dim);
  char got[64];
  size_t width;
  h5t_str_attr(f, name, "type", got, sizeof got, &width);
  CHECK(strcmp(got, type) == 0 && width == strlen(type));
  char buf[64];
  h5t_read_all(f, name, mtype, buf);
  CHECK(memcmp(buf, want, bytes) == 0);
}

/* Everything in the file equals the global arrays (rank 0 reads it alone). */
static void check_file(const char *path) {
  if (h5t_rank() != 0) return;
  hid_t f = h5t_open(path);
  check_set(f, "nodes", NN);
  check_set(f, "cells", NC);
  check_set(f, "edges", NE);
  check_set(f, "empty", 0);
  /* Maps: "int" in a 10-byte string, `size` = rows. Dats: exact-width type, `size` = bytes. */
  check_table(f, "cell_nodes", H5T_STD_I32LE, H5T_NATIVE_INT, 4, NC, 3, NC, "int", 10, cell_nodes);
  check_table(f, "edge_cells", H5T_STD_I32LE, H5T_NATIVE_INT, 4, NE, 2, NE, "int", 10, edge_cells);
  check_table(f, "node_cell", H5T_STD_I32LE, H5T_NATIVE_INT, 4, NN, 1, NN, "int", 10, node_cell);
  check_table(f, "empty_map", H5T_STD_I32LE, H5T_NATIVE_INT, 4, 0, 2, 0, "int", 10, "");
  check_table(f, "x", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 8, NN, 2, 16, "double", 6, x);
  check_table(f, "rho", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 8, NC, 1, 8, "double", 6, rho);
  check_table(f, "grp/sub/w", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 8, NE, 1, 8, "double", 6, w);
  check_table(f, "flags", H5T_STD_I32LE, H5T_NATIVE_INT, 4, NE, 3, 12, "int", 3, flags);
  check_table(f, "f32", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 4, NC, 5, 20, "float", 5, f32);
  check_table(f, "ll", H5T_STD_I64LE, H5T_NATIVE_LLONG, 8, NN, 2, 16, "long long", 9, ll);
  check_table(f, "e_d", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 8, 0, 2, 16, "double", 6, "");
  check_const(f, "c_one", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, "double", &c_one, sizeof c_one);
  check_const(f, "c_vec", H5T_STD_I32LE, H5T_NATIVE_INT, 3, "int", c_vec, sizeof c_vec);
  H5Fclose(f);
}

/* ---- reading back ---- */

static void check_map_block(op_map m, const int *table, int global_rows, int dim) {
  long first, count;
  h5t_block(global_rows, &first, &count);
  CHECK_EQ_INT(m->from->size, count);
  CHECK_EQ_INT(m->dim, dim);
  CHECK(memcmp(m->values, table + first * dim, sizeof(int) * (size_t)(count * dim)) == 0);
}

static void check_dat_block(op_dat d, const void *table, int global_rows, size_t row) {
  long first, count;
  h5t_block(global_rows, &first, &count);
  char *buf = malloc(row * (size_t)count + 1);
  op_fetch_data(d, buf);
  CHECK(memcmp(buf, (const char *)table + row * (size_t)first, row * (size_t)count) == 0);
  free(buf);
}

static void read_back(const char *path) {
  op_set nodes = op_decl_set_hdf5(path, "nodes");
  op_set cells = op_decl_set_hdf5(path, "cells");
  op_set edges = op_decl_set_hdf5(path, "edges");
  op_set empty = op_decl_set_hdf5(path, "empty");
  CHECK(nodes && cells && edges && empty);
  CHECK_EQ_INT(nodes->global_size, NN);
  CHECK_EQ_INT(cells->global_size, NC);
  CHECK_EQ_INT(edges->global_size, NE);
  CHECK_EQ_INT(empty->global_size, 0);
  check_map_block(op_decl_map_hdf5(cells, nodes, 3, path, "cell_nodes"), cell_nodes, NC, 3);
  check_map_block(op_decl_map_hdf5(edges, cells, 2, path, "edge_cells"), edge_cells, NE, 2);
  check_map_block(op_decl_map_hdf5(nodes, cells, 1, path, "node_cell"), node_cell, NN, 1);
  CHECK(op_decl_map_hdf5(empty, nodes, 2, path, "empty_map") != NULL);
  check_dat_block(op_decl_dat_hdf5(nodes, 2, "double", path, "x"), x, NN, 16);
  check_dat_block(op_decl_dat_hdf5(cells, 1, "double", path, "rho"), rho, NC, 8);
  check_dat_block(op_decl_dat_hdf5(edges, 1, "double", path, "grp/sub/w"), w, NE, 8);
  check_dat_block(op_decl_dat_hdf5(edges, 3, "int", path, "flags"), flags, NE, 12);
  check_dat_block(op_decl_dat_hdf5(cells, 5, "float", path, "f32"), f32, NC, 20);
  check_dat_block(op_decl_dat_hdf5(nodes, 2, "long long", path, "ll"), ll, NN, 16);
  CHECK(op_decl_dat_hdf5(empty, 2, "double", path, "e_d") != NULL);
  double one = 0;
  int vec[3] = {0};
  op_get_const_hdf5("c_one", 1, "double", (char *)&one, path);
  op_get_const_hdf5("c_vec", 3, "int", (char *)vec, path);
  CHECK(one == c_one);
  CHECK(memcmp(vec, c_vec, sizeof vec) == 0);
}

#endif
