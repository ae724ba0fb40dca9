/* SPDX-License-Identifier: BSD-3-Clause */
/* OP2's remaining HDF5 calls, on one process and under mpirun (each rank declares its block):
 * op_fetch_data_hdf5_file_path writes a dat as the dataset at the path it is given, as OP2 does
 * (its groups created; then replaced in place), with the type attribute as the dat was declared
 * ("double:soa" too); op_decl_set_hdf5_infer_size sizes a set from that dataset's rows and
 * op_decl_dat_hdf5 reads the values back; op_write_const_hdf5 writes a constant op_get_const_hdf5
 * reads back, replacing an earlier value. */
#include "hdf5/h5_test.h"

enum { G = 1001, DIM = 3 };

static double value(long e, int k, double shift) {
  return (double)e * 0.5 - (double)k + shift;
}

static const char *shift_src = "static void shift(double *v) { v[0] += 100.0; }\n";

int main(int argc, char **argv) {
  test_catch_errors();
  op_init(argc, argv, 0);
  char dir[512], file[600];
  h5t_scratch(dir, sizeof dir, "t735");
  snprintf(file, sizeof file, "%s/out.h5", dir);
  long first, count;
  h5t_block(G, &first, &count);
  double *mine = malloc(sizeof(double) * DIM * (size_t)(count + 1));
  for (long e = 0; e < count; e++)
    for (int k = 0; k < DIM; k++) mine[e * DIM + k] = value(first + e, k, 0);
  op_set s = op_decl_set((int)count, "cells");
  op_dat dv = op_decl_dat(s, DIM, "double", mine, "q");
  op_dat dk = op_decl_dat(s, DIM, "double:soa", mine, "k");

  op_fetch_data_hdf5_file_path(dv, file, "results/step1");
  op_par_loop(shift_src, "shift", s, op_arg_dat(dv, -1, OP_ID, DIM, "double", OP_RW));
  op_fetch_data_hdf5_file_path(dv, file, "results/step2");
  op_fetch_data_hdf5_file_path(dv, file, "results/step1"); /* replaced: now shifted too */
  op_fetch_data_hdf5_file_path(dk, file, "results/k");
  h5t_barrier();
  if (h5t_rank() == 0) {
    hid_t f = h5t_open(file);
    hsize_t d[2];
    CHECK_EQ_INT(h5t_shape(f, "results/step1", d), 2); /* the dataset itself, not a group */
    CHECK_EQ_INT(d[0], G);
    char type[32];
    size_t width;
    h5t_str_attr(f, "results/step1", "type", type, sizeof type, &width);
    CHECK(strcmp(type, "double") == 0 && width == 6);
    h5t_str_attr(f, "results/k", "type", type, sizeof type, &width);
    CHECK(strcmp(type, "double:soa") == 0 && width == 10);
    H5Fclose(f);
  }

  double gam = 1.4, qinf[4] = {1, 2, 3, 4};
  op_write_const_hdf5("gam", 1, "double", (char *)&gam, file);
  op_write_const_hdf5("qinf", 4, "double", (char *)qinf, file);
  gam = 1.5;
  op_write_const_hdf5("gam", 1, "double", (char *)&gam, file); /* replaces the first */
  int steps = 12;
  op_write_const_hdf5("steps", 1, "int", (char *)&steps, file);

  op_set s2 = op_decl_set_hdf5_infer_size(file, "cells2", "results/step1");
  CHECK(s2 != NULL);
  CHECK_EQ_INT(op_get_size(s2), G);
  op_dat back = op_decl_dat_hdf5(s2, DIM, "double", file, "results/step1");
  op_dat back2 = op_decl_dat_hdf5(s2, DIM, "double", file, "results/step2");
  double *got = malloc(sizeof(double) * DIM * (size_t)(count + 1));
  op_fetch_data(back, got);
  for (long e = 0; e < count; e++)
    for (int k = 0; k < DIM; k++)
      CHECK(got[e * DIM + k] == value(first + e, k, k == 0 ? 100.0 : 0));
  op_fetch_data(back2, got);
  for (long e = 0; e < count; e++) CHECK(got[e * DIM] == value(first + e, 0, 100.0));

  double gam_back = 0, qinf_back[4] = {0};
  int steps_back = 0;
  op_get_const_hdf5("gam", 1, "double", (char *)&gam_back, file);
  op_get_const_hdf5("qinf", 4, "double", (char *)qinf_back, file);
  op_get_const_hdf5("steps", 1, "int", (char *)&steps_back, file);
  CHECK(gam_back == 1.5);
  CHECK(memcmp(qinf_back, qinf, sizeof qinf) == 0);
  CHECK_EQ_INT(steps_back, 12);

  EXPECT_ERROR(op_decl_set_hdf5_infer_size(file, "x", "results/none"), "no such dataset");
  EXPECT_ERROR(op_write_const_hdf5("bad", 0, "double", (char *)&gam, file), "dim 0");
  free(mine), free(got);
  op_exit();
  h5t_remove_tree(dir);
  return 0;
}
