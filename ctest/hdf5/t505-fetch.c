/* SPDX-License-Identifier: BSD-3-Clause */
/* op_fetch_data_hdf5_file: one dat into a new file (OP2's dat layout, nothing else in it), a
 * second dat added to that file, the first fetched again after a loop changed it (replacing its
 * dataset), and a dat fetched into a file a dump wrote; each read back with op_decl_dat_hdf5. */
#include "h5_test.h"
#include "runtime/mpi/op2_mpi.h"

enum { N = 23 };

static const char *scale_src = "void scale(double *v) { v[0] *= -2.0; v[1] += 0.5; }\n";

static void check_doubles(const char *path, const char *name, const double *want, int rows,
                          int dim) {
  if (h5t_rank() != 0) return;
  hid_t f = h5t_open(path);
  hsize_t d[2];
  CHECK_EQ_INT(h5t_shape(f, name, d), 2);
  CHECK_EQ_INT(d[0], rows);
  CHECK_EQ_INT(d[1], dim);
  CHECK(h5t_dtype_is(f, name, H5T_IEEE_F64LE));
  CHECK_EQ_INT(h5t_int_attr(f, name, "dim"), dim);
  CHECK_EQ_INT(h5t_int_attr(f, name, "size"), dim * 8);
  char type[32];
  size_t width;
  h5t_str_attr(f, name, "type", type, sizeof type, &width);
  CHECK(strcmp(type, "double") == 0 && width == 6);
  double got[N * 2];
  h5t_read_all(f, name, H5T_NATIVE_DOUBLE, got);
  CHECK(memcmp(got, want, sizeof(double) * (size_t)(rows * dim)) == 0);
  H5Fclose(f);
}

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  test_catch_errors();
  char dir[512], a[600], b[600];
  h5t_scratch(dir, sizeof dir, "h5-fetch");
  snprintf(a, sizeof a, "%s/one.h5", dir);
  snprintf(b, sizeof b, "%s/dump.h5", dir);

  double v[N * 2], s[N];
  int id[N];
  for (int i = 0; i < N; i++) v[2 * i] = i * 1.5, v[2 * i + 1] = -i, s[i] = 1e-3 * i, id[i] = i;
  long first, count;
  h5t_block(N, &first, &count);
  op_set set = op_decl_set((int)count, "pts");
  op_dat dv = op_decl_dat(set, 2, "double", v + 2 * first, "v");
  op_dat ds = op_decl_dat(set, 1, "double", s + first, "s");
  op_dat di = op_decl_dat(set, 1, "int", id + first, "id");
  CHECK(set && dv && ds && di);

  op_fetch_data_hdf5_file(dv, a);
  h5t_barrier();
  check_doubles(a, "v", v, N, 2);
  if (h5t_rank() == 0) { /* only the dat: no set, no XDMF, no temporary */
    hid_t f = h5t_open(a);
    CHECK(H5Lexists(f, "pts", H5P_DEFAULT) == 0);
    H5Fclose(f);
    char names[256];
    h5t_list_dir(dir, names, sizeof names);
    CHECK(strcmp(names, "one.h5") == 0);
  }
  op_fetch_data_hdf5_file(ds, a);
  h5t_barrier();
  check_doubles(a, "s", s, N, 1);
  check_doubles(a, "v", v, N, 2);

  op_par_loop(scale_src, "scale", set, op_arg_dat(dv, -1, OP_ID, 2, "double", OP_RW));
  for (int i = 0; i < N; i++) v[2 * i] *= -2.0, v[2 * i + 1] += 0.5;
#if !defined(OP2_HAVE_GATHER_BLOCK)
  if (h5t_size() > 1) {
    /* The loop partitioned the mesh; without the runtime's gather the rows cannot be put back
     * into the user's order, so the call must refuse and leave the file as it was. */
    EXPECT_ERROR(op_fetch_data_hdf5_file(dv, a), "distributed gather");
    h5t_barrier();
    for (int i = 0; i < N; i++) v[2 * i] /= -2.0, v[2 * i + 1] -= 0.5;
    check_doubles(a, "v", v, N, 2);
    h5t_remove_tree(dir);
    op_exit();
    return 0;
  }
#endif
  op_fetch_data_hdf5_file(dv, a);
  h5t_barrier();
  check_doubles(a, "v", v, N, 2);
  check_doubles(a, "s", s, N, 1);

  /* Into a dumped file: the dat's dataset is replaced, everything else stays. */
  op_dump_to_hdf5(b);
  h5t_barrier();
  op_par_loop(scale_src, "scale", set, op_arg_dat(dv, -1, OP_ID, 2, "double", OP_RW));
  for (int i = 0; i < N; i++) v[2 * i] *= -2.0, v[2 * i + 1] += 0.5;
  op_fetch_data_hdf5_file(dv, b);
  h5t_barrier();
  check_doubles(b, "v", v, N, 2);
  check_doubles(b, "s", s, N, 1);

  /* And the library reads what it fetched. */
  op_set back = op_decl_set_hdf5(b, "pts");
  CHECK(back != NULL);
  op_dat rv = op_decl_dat_hdf5(back, 2, "double", a, "v");
  op_dat ri = op_decl_dat_hdf5(back, 1, "int", b, "id");
  CHECK(rv && ri);
  double got[N * 2];
  int gid[N];
  op_fetch_data(rv, got);
  op_fetch_data(ri, gid);
  for (long i = 0; i < count; i++) {
    CHECK(got[2 * i] == v[2 * (first + i)] / -2.0);
    CHECK(got[2 * i + 1] == v[2 * (first + i) + 1] - 0.5);
    CHECK_EQ_INT(gid[i], first + i);
  }
  h5t_remove_tree(dir);
  op_exit();
  return 0;
}
