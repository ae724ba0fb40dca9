/* SPDX-License-Identifier: BSD-3-Clause */
/* Error paths of the HDF5 calls: every message names the call, the file and the dataset and says
 * what is wrong; failing calls return NULL and declare nothing; a map or dat missing from a file
 * that has it not is no error: as in OP2, the call says so and returns NULL (OP2's programs
 * test for it); a dump that fails (unwritable
 * place, a write failing half-way, clashing names) leaves no file and no temporary behind and an
 * existing file untouched.
 * Usage: t504-errors new_grid_45k.h5 */
#include "h5_test.h"
#include "runtime/op2_impl.h"

static const char *shared;
static char dir[512];

/* A small file with what OP2's writers never produce: a dat without attributes, a type
 * attribute contradicting the data, a map of floats, a 2-element "set". */
static void make_odd_file(const char *path) {
  if (h5t_rank() != 0) return;
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  CHECK(f >= 0);
  hsize_t d2[2] = {5, 2}, one = 1, two = 2;
  double v[10] = {0};
  hid_t s = H5Screate_simple(2, d2, NULL);
  hid_t d = H5Dcreate2(f, "bare", H5T_IEEE_F64LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  CHECK(d >= 0 && H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
  H5Dclose(d);
  d = H5Dcreate2(f, "liar", H5T_IEEE_F64LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  CHECK(d >= 0 && H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
  hid_t t = H5Tcopy(H5T_C_S1), scalar = H5Screate(H5S_SCALAR);
  H5Tset_size(t, 3);
  hid_t a = H5Acreate2(d, "type", t, scalar, H5P_DEFAULT, H5P_DEFAULT);
  CHECK(a >= 0 && H5Awrite(a, t, "int") >= 0);
  H5Aclose(a);
  H5Dclose(d);
  H5Sclose(s);
  s = H5Screate_simple(1, &two, NULL);
  d = H5Dcreate2(f, "two", H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  CHECK(d >= 0 && H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, (int[]){3, 4}) >= 0);
  H5Dclose(d);
  H5Sclose(s);
  s = H5Screate_simple(1, &one, NULL);
  d = H5Dcreate2(f, "five", H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  CHECK(d >= 0 && H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, (int[]){5}) >= 0);
  H5Dclose(d);
  H5Sclose(s);
  H5Sclose(scalar);
  H5Tclose(t);
  H5Fclose(f);
}

static void reading(void) {
  char missing[600], text[600], odd[600], msg[1400];
  snprintf(missing, sizeof missing, "%s/missing.h5", dir);
  snprintf(text, sizeof text, "%s/text.h5", dir);
  snprintf(odd, sizeof odd, "%s/odd.h5", dir);
  if (h5t_rank() == 0) h5t_write_text(text, "not HDF5\n");
  make_odd_file(odd);
  h5t_barrier();

  op_set set = (op_set)1;
  snprintf(msg, sizeof msg,
           "op_decl_set_hdf5: file %s, dataset nodes: cannot open the file: No such file", missing);
  EXPECT_ERROR(set = op_decl_set_hdf5(missing, "nodes"), msg);
  CHECK(set == NULL);
  snprintf(msg, sizeof msg,
           "op_decl_set_hdf5: file %s, dataset nodes: cannot open the file as HDF5", text);
  EXPECT_ERROR(set = op_decl_set_hdf5(text, "nodes"), msg);
  CHECK(set == NULL);
  snprintf(msg, sizeof msg, "op_decl_set_hdf5: file %s, dataset vertices: no such dataset", shared);
  EXPECT_ERROR(set = op_decl_set_hdf5(shared, "vertices"), msg);
  EXPECT_ERROR(set = op_decl_set_hdf5(shared, "group3/nodes"), "dataset group3/nodes: no such");
  EXPECT_ERROR(set = op_decl_set_hdf5(shared, "nogroup/nodes"), "dataset nogroup/nodes: no such");
  EXPECT_ERROR(set = op_decl_set_hdf5(shared, "group3"),
               "dataset group3: the name is not a dataset");
  EXPECT_ERROR(set = op_decl_set_hdf5(shared, "p_x"),
               "dataset p_x: a set's dataset holds one integer (its size); this one is [45451, 2] "
               "of 64-bit float values");
  EXPECT_ERROR(set = op_decl_set_hdf5(odd, "two"), "dataset two: a set's dataset holds one");
  CHECK(set == NULL);

  op_set nodes = op_decl_set_hdf5(shared, "nodes");
  op_set edges = op_decl_set_hdf5(shared, "edges");
  op_set bedges = op_decl_set_hdf5(shared, "bedges");
  op_set cells = op_decl_set_hdf5(shared, "cells");
  op_set five = op_decl_set_hdf5(odd, "five");
  CHECK(nodes && edges && bedges && cells && five);
  int sets_before = op2_ctx()->sets.count, maps_before = op2_ctx()->maps.count,
      dats_before = op2_ctx()->dats.count;

  /* Dats. */
  op_dat dat = (op_dat)1;
  int errors_before = test_errors_seen;
  dat = op_decl_dat_hdf5(nodes, 2, "double", shared, "p_y");
  CHECK(dat == NULL && test_errors_seen == errors_before);
  snprintf(msg, sizeof msg,
           "op_decl_dat_hdf5: file %s, dataset p_x: the file has dim 2 (attribute 'dim'), the "
           "call asks for 3",
           shared);
  EXPECT_ERROR(dat = op_decl_dat_hdf5(nodes, 3, "double", shared, "p_x"), msg);
  CHECK(dat == NULL);
  /* (read as another type: converted, as OP2 does; t509-convert) */
  EXPECT_ERROR(dat = op_decl_dat_hdf5(nodes, 2, "complex", shared, "p_x"),
               "dataset p_x: unknown type 'complex'");
  snprintf(msg, sizeof msg,
           "op_decl_dat_hdf5: file %s, dataset p_x: the dataset has 45451 rows but set 'cells' "
           "has 45000 elements",
           shared);
  EXPECT_ERROR(dat = op_decl_dat_hdf5(cells, 2, "double", shared, "p_x"), msg);
  /* Without a dim attribute the shape decides. */
  EXPECT_ERROR(dat = op_decl_dat_hdf5(five, 3, "double", odd, "bare"),
               "dataset bare: the dataset's shape is [5, 2]; a dat of dim 3 needs [rows, 3]");
  EXPECT_ERROR(dat = op_decl_dat_hdf5(five, 2, "int", odd, "liar"),
               "dataset liar: its 'type' attribute says 'int' but the dataset holds 64-bit float "
               "values");
  EXPECT_ERROR(dat = op_decl_dat_hdf5(NULL, 2, "double", shared, "p_x"), "p_x: the set is NULL");
  CHECK(dat == NULL);
  /* ...and without attributes at all a dataset still loads. */
  CHECK(op_decl_dat_hdf5(five, 2, "double", odd, "bare") != NULL);
  dats_before++;

  /* Maps. */
  op_map map = (op_map)1;
  map = op_decl_map_hdf5(cells, nodes, 4, shared, "m_test");
  CHECK(map == NULL && test_errors_seen == errors_before);
  map = (op_map)1;
  snprintf(msg, sizeof msg,
           "op_decl_map_hdf5: file %s, dataset pedge: the dataset has 89650 "
           "rows but set 'cells' has 45000 elements",
           shared);
  EXPECT_ERROR(map = op_decl_map_hdf5(cells, nodes, 2, shared, "pedge"), msg);
  CHECK(map == NULL);
  EXPECT_ERROR(map = op_decl_map_hdf5(edges, nodes, 4, shared, "pedge"),
               "dataset pedge: the file has dim 2 (attribute 'dim'), the call asks for 4");
  EXPECT_ERROR(map = op_decl_map_hdf5(nodes, nodes, 2, shared, "p_x"),
               "dataset p_x: a map holds integers; this dataset holds 64-bit float values");
  EXPECT_ERROR(map = op_decl_map_hdf5(edges, nodes, 2, missing, "pedge"), "op_decl_map_hdf5: file");
  CHECK_CONTAINS(op_last_error(), "dataset pedge: cannot open the file: No such file");
  /* Values are node indices: most are outside the 700 boundary edges. */
  EXPECT_ERROR(map = op_decl_map_hdf5(edges, bedges, 2, shared, "pedge"), "dataset pedge: value ");
  CHECK_CONTAINS(op_last_error(), "is outside set 'bedges' (size 700)");
  EXPECT_ERROR(map = op_decl_map_hdf5(edges, NULL, 2, shared, "pedge"), "the to set is NULL");
  CHECK(map == NULL);

  /* Constants. */
  double v[4] = {-1, -1, -1, -1};
  EXPECT_ERROR(op_get_const_hdf5("qinf", 3, "double", (char *)v, shared),
               "op_get_const_hdf5: file");
  CHECK_CONTAINS(op_last_error(),
                 "dataset qinf: the file has dim 4 (attribute 'dim'), the call asks for 3");
  EXPECT_ERROR(op_get_const_hdf5("beta", 1, "double", (char *)v, shared),
               "dataset beta: no such dataset");
  CHECK(v[0] == -1 && v[1] == -1);

  /* Nothing was declared by the failing calls. */
  CHECK_EQ_INT(op2_ctx()->sets.count, sets_before);
  CHECK_EQ_INT(op2_ctx()->maps.count, maps_before);
  CHECK_EQ_INT(op2_ctx()->dats.count, dats_before);
}

/* ---- writing ---- */

static void writing(void) {
  char sub[600], path[700], msg[1600], names[1024];
  /* A dump into a "directory" that is a regular file fails even for root. */
  snprintf(sub, sizeof sub, "%s/w", dir);
  if (h5t_rank() == 0) CHECK(mkdir(sub, 0755) == 0);
  snprintf(path, sizeof path, "%s/plain", sub);
  if (h5t_rank() == 0) h5t_write_text(path, "x\n");
  h5t_barrier();
  op_set s = op_decl_set(h5t_rank() == 0 ? 4 : 0, "pts");
  double coords[8] = {0, 0, 1, 0, 1, 1, 0, 1};
  op_dat xy = op_decl_dat(s, 2, "double", h5t_rank() == 0 ? coords : NULL, "xy");
  CHECK(s && xy);
  snprintf(path, sizeof path, "%s/plain/out.h5", sub);
  snprintf(msg, sizeof msg, "op_dump_to_hdf5: file %s: cannot create %s.tmp", path, path);
  EXPECT_ERROR(op_dump_to_hdf5(path), msg);
  CHECK_CONTAINS(op_last_error(), "its directory is unusable: Not a directory");
  h5t_barrier();
  h5t_list_dir(sub, names, sizeof names);
  CHECK(strcmp(names, "plain") == 0);

  /* A failure half-way (a dat name that needs a group where the set "pts" is a dataset): the
   * temporary file is gone, the target never appeared. */
  op_dat bad = op_decl_dat(s, 1, "int", NULL, "pts/bad");
  CHECK(bad != NULL);
  snprintf(path, sizeof path, "%s/half.h5", sub);
  snprintf(msg, sizeof msg, "op_dump_to_hdf5: file %s: cannot write dat 'pts/bad'", path);
  EXPECT_ERROR(op_dump_to_hdf5(path), msg);
  h5t_barrier();
  h5t_list_dir(sub, names, sizeof names);
  CHECK(strcmp(names, "plain") == 0);

  /* The same failure over an existing file leaves it as it was. */
  snprintf(path, sizeof path, "%s/plain", sub);
  EXPECT_ERROR(op_dump_to_hdf5(path), "cannot write dat 'pts/bad'");
  h5t_barrier();
  char *kept = h5t_read_text(path);
  CHECK(kept && strcmp(kept, "x\n") == 0);
  free(kept);
  h5t_list_dir(sub, names, sizeof names);
  CHECK(strcmp(names, "plain") == 0);

  /* Two objects with one name cannot both become datasets; nothing is created. */
  op_decl_dat(s, 1, "double", NULL, "xy");
  snprintf(path, sizeof path, "%s/clash.h5", sub);
  EXPECT_ERROR(op_dump_to_hdf5(path),
               "dat 'xy' and dat 'xy' share a name; an HDF5 file holds one dataset per name");
  h5t_barrier();
  h5t_list_dir(sub, names, sizeof names);
  CHECK(strcmp(names, "plain") == 0);

  /* Fetching into something that is not HDF5 refuses and leaves it alone. */
  snprintf(path, sizeof path, "%s/plain", sub);
  snprintf(msg, sizeof msg,
           "op_fetch_data_hdf5_file: file %s: exists but cannot be opened as HDF5 for writing",
           path);
  EXPECT_ERROR(op_fetch_data_hdf5_file(xy, path), msg);
  h5t_barrier();
  kept = h5t_read_text(path);
  CHECK(kept && strcmp(kept, "x\n") == 0);
  free(kept);
  snprintf(path, sizeof path, "%s/plain/fetch.h5", sub);
  EXPECT_ERROR(op_fetch_data_hdf5_file(xy, path), "its directory is unusable: Not a directory");
  EXPECT_ERROR(op_dump_to_hdf5(NULL), "op_dump_to_hdf5: file name is NULL");
  EXPECT_ERROR(op_fetch_data_hdf5_file(NULL, path), "op_fetch_data_hdf5_file: dat is NULL");
}

int main(int argc, char **argv) {
  CHECK(argc == 2);
  shared = argv[1];
  /* Before op_init: the state error, not a crash. */
  test_catch_errors();
  EXPECT_ERROR(op_decl_set_hdf5(shared, "nodes"), "op_decl_set_hdf5 called before op_init");
  op_init(argc, argv, 0);
  h5t_scratch(dir, sizeof dir, "h5-errors");
  reading();
  writing();
  h5t_remove_tree(dir);
  op_exit();
  return 0;
}
