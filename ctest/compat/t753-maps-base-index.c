/* SPDX-License-Identifier: BSD-3-Clause */
/* OP2's OP_MAPS_BASE_INDEX=1 (an op_init argument, as OP2 reads it): map values count from 1
 * (Fortran-style meshes) and are converted when declared, by op_decl_map, op_decl_map_long and
 * op_decl_map_hdf5 alike; loops then see the same mesh as with 0-based values. A value 0 is
 * outside the set; a base other than 0 or 1 is refused.
 *   t753-maps-base-index        on one process or under mpiexec (each rank its block)
 *   t753-maps-base-index refuse OP_MAPS_BASE_INDEX=2 refused by op_init */
#include "hdf5/h5_test.h"

enum { N = 40 };

static const char *gather_src =
    "static void gather(const double *a, const double *b, double *s) { s[0] = a[0] + 2 * b[0]; }\n";

/* s[e] = x[m(e,0)] + 2 x[m(e,1)] through `map`, checked against the 0-based pairs */
static void check_map(op_set set, op_map map, op_dat x, const int *pairs0, const double *xs,
                      long first, long count) {
  op_dat s = op_decl_dat_temp(set, 1, "double", (double *)NULL, "s");
  op_par_loop(gather_src, "gather", set, op_arg_dat(x, 0, map, 1, "double", OP_READ),
              op_arg_dat(x, 1, map, 1, "double", OP_READ),
              op_arg_dat(s, -1, OP_ID, 1, "double", OP_WRITE));
  double got[N];
  op_fetch_data(s, got);
  for (long e = 0; e < count; e++)
    CHECK(got[e] == xs[pairs0[2 * (first + e)]] + 2 * xs[pairs0[2 * (first + e) + 1]]);
  CHECK_EQ_INT(op_free_dat_temp(s), 0);
}

int main(int argc, char **argv) {
  test_catch_errors();
  if (argc > 1 && strcmp(argv[1], "refuse") == 0) {
    char *bad[] = {argv[0], (char *)"OP_MAPS_BASE_INDEX=2", NULL};
    EXPECT_ERROR(op_init(2, bad, 0), "OP_MAPS_BASE_INDEX: '2' is not 0 or 1");
    return 0;
  }
  char *args[] = {argv[0], (char *)"OP_MAPS_BASE_INDEX=1", NULL};
  op_init(2, args, 0);
  static int pairs0[2 * N], pairs1[2 * N];
  static idx_g_t pairs1_long[2 * N];
  static double xs[N];
  for (int i = 0; i < N; i++) {
    xs[i] = i * 0.5;
    pairs0[2 * i] = (i * 7) % N, pairs0[2 * i + 1] = (i + 3) % N;
  }
  for (int k = 0; k < 2 * N; k++) pairs1[k] = pairs0[k] + 1, pairs1_long[k] = pairs0[k] + 1;
  long first, count;
  h5t_block(N, &first, &count);
  char dir[512], file[600];
  h5t_scratch(dir, sizeof dir, "t753");
  snprintf(file, sizeof file, "%s/mesh.h5", dir);
  if (h5t_rank() == 0) { /* a 1-based map as a Fortran program's converter writes it */
    hid_t f = H5Fcreate(file, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t dims[2] = {N, 2};
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t d = H5Dcreate2(f, "pm", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(d >= 0 && H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, pairs1) >= 0);
    H5Dclose(d), H5Sclose(space), H5Fclose(f);
  }
  h5t_barrier();

  op_set set = op_decl_set((int)count, "s");
  op_dat x = op_decl_dat(set, 1, "double", xs + first, "x");
  op_map m_int = op_decl_map(set, set, 2, pairs1 + 2 * first, "m_int");
  op_map m_long = op_decl_map_long(set, set, 2, pairs1_long + 2 * first, "m_long");
  op_map m_h5 = op_decl_map_hdf5(set, set, 2, file, "pm");
  CHECK(x && m_int && m_long && m_h5);
  int zero[2 * N] = {0};
  if (h5t_size() == 1)
    EXPECT_ERROR(op_decl_map(set, set, 2, zero, "m_zero"), "value -1 at element 0, column 0");
  check_map(set, m_int, x, pairs0, xs, first, count);
  check_map(set, m_long, x, pairs0, xs, first, count);
  check_map(set, m_h5, x, pairs0, xs, first, count);
  int rank = h5t_rank();
  op_exit();
  if (rank == 0) h5t_remove_tree(dir);
  return 0;
}
