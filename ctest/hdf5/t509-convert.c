/* SPDX-License-Identifier: BSD-3-Clause */
/* Dats and constants read as the type the call declares, whatever numeric type the file holds,
 * as OP2 reads them (OP2-Common's single-precision Airfoil reads the double-precision
 * new_grid.h5): each value is the file's value converted to the declared type (double to float
 * rounded as C rounds it, float to double, int and long long both ways, int to double). A value
 * the declared type cannot hold (out of its range, a fraction read as an integer) is refused,
 * naming the file, the dataset and what was wrong, and declares nothing; a refused constant
 * leaves the caller's buffer as it was. Usage: t509-convert */
#include "h5_test.h"
#include "runtime/op2_impl.h"

enum { N = 37 };

static void attrs(hid_t d, int dim, const char *type) {
  hid_t one = H5Screate(H5S_SCALAR), t = H5Tcopy(H5T_C_S1);
  hid_t a = H5Acreate2(d, "dim", H5T_STD_I32LE, one, H5P_DEFAULT, H5P_DEFAULT);
  CHECK(a >= 0 && H5Awrite(a, H5T_NATIVE_INT, &dim) >= 0);
  H5Aclose(a);
  H5Tset_size(t, strlen(type) + 1);
  a = H5Acreate2(d, "type", t, one, H5P_DEFAULT, H5P_DEFAULT);
  CHECK(a >= 0 && H5Awrite(a, t, type) >= 0);
  H5Aclose(a);
  H5Tclose(t);
  H5Sclose(one);
}

/* A dataset of `rows` x `dim` values of file type ftype, written from memory type mtype. */
static void put(hid_t f, const char *name, int rows, int dim, hid_t ftype, hid_t mtype,
                const char *type, const void *v) {
  hsize_t dims[2] = {(hsize_t)rows, (hsize_t)dim};
  hid_t s = H5Screate_simple(rows ? 2 : 1, rows ? dims : dims + 1, NULL);
  hid_t d = H5Dcreate2(f, name, ftype, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  CHECK(d >= 0 && H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
  attrs(d, dim, type);
  H5Dclose(d);
  H5Sclose(s);
}

static double xd[N][2], big[N], frac[N], cd[3] = {0.1, 1.0 / 3.0, -2.5e-7};
static float xf[N][2], cf[2] = {0.1f, 3.25f};
static int ii[N], ci[2] = {7, -4};
static long long il[N], huge[N];

static void make_file(const char *path) {
  for (int i = 0; i < N; i++) {
    xd[i][0] = i / 3.0 + 0.1, xd[i][1] = -1e-3 * i * i + 1e30;
    xf[i][0] = (float)i / 7.0f, xf[i][1] = -1.5e20f * (float)i;
    ii[i] = 1000003 * i - 17, il[i] = -12345678LL * i;
    big[i] = i % 2 ? 1e300 : -1e300, frac[i] = i + 0.5, huge[i] = (1LL << 40) + i;
  }
  if (h5t_rank() != 0) return;
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  CHECK(f >= 0);
  int n = N;
  hid_t s = H5Screate_simple(1, (hsize_t[]){1}, NULL);
  hid_t d = H5Dcreate2(f, "pts", H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  CHECK(d >= 0 && H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, &n) >= 0);
  H5Dclose(d), H5Sclose(s);
  put(f, "xd", N, 2, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, "double", xd);
  put(f, "xf", N, 2, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, "float", xf);
  put(f, "ii", N, 1, H5T_STD_I32LE, H5T_NATIVE_INT, "int", ii);
  put(f, "il", N, 1, H5T_STD_I64LE, H5T_NATIVE_LLONG, "long long", il);
  put(f, "big", N, 1, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, "double", big);
  put(f, "frac", N, 1, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, "double", frac);
  put(f, "huge", N, 1, H5T_STD_I64LE, H5T_NATIVE_LLONG, "long long", huge);
  put(f, "cd", 0, 3, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, "double", cd);
  put(f, "cf", 0, 2, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, "float", cf);
  put(f, "ci", 0, 2, H5T_STD_I32LE, H5T_NATIVE_INT, "int", ci);
  put(f, "cbig", 0, 2, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, "double", big);
  H5Fclose(f);
}

/* This rank's declared rows of a dat read from the file. */
static void *rows_of(op_dat d, size_t row_bytes) {
  long first, count;
  h5t_block(N, &first, &count);
  void *out = calloc((size_t)count + 1, row_bytes);
  CHECK(out != NULL);
  op_fetch_data(d, out);
  return out;
}

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  test_catch_errors();
  char dir[512], path[600];
  h5t_scratch(dir, sizeof dir, "h5-convert");
  snprintf(path, sizeof path, "%s/mixed.h5", dir);
  make_file(path);
  h5t_barrier();
  op_set pts = op_decl_set_hdf5(path, "pts");
  CHECK(pts != NULL);
  long first, count;
  h5t_block(N, &first, &count);

  /* converted as C converts each value */
  op_dat fxd = op_decl_dat_hdf5(pts, 2, "float", path, "xd");
  op_dat dxf = op_decl_dat_hdf5(pts, 2, "double", path, "xf");
  op_dat lii = op_decl_dat_hdf5(pts, 1, "long long", path, "ii");
  op_dat iil = op_decl_dat_hdf5(pts, 1, "int", path, "il");
  op_dat dii = op_decl_dat_hdf5(pts, 1, "double", path, "ii");
  CHECK(fxd && dxf && lii && iil && dii);
  float(*a)[2] = rows_of(fxd, sizeof *a);
  double(*b)[2] = rows_of(dxf, sizeof *b);
  long long *c = rows_of(lii, sizeof *c);
  int *e = rows_of(iil, sizeof *e);
  double *g = rows_of(dii, sizeof *g);
  for (long r = 0; r < count; r++) {
    long i = first + r;
    for (int k = 0; k < 2; k++) {
      CHECK(a[r][k] == (float)xd[i][k]);
      CHECK(b[r][k] == (double)xf[i][k]);
    }
    CHECK_EQ_INT(c[r], ii[i]);
    CHECK_EQ_INT(e[r], il[i]);
    CHECK(g[r] == (double)ii[i]);
  }
  free(a), free(b), free(c), free(e), free(g);

  /* values the declared type cannot hold: refused, nothing declared */
  int dats = op2_ctx()->dats.count;
  op_dat none = (op_dat)1;
  char msg[800];
  snprintf(msg, sizeof msg, "op_decl_dat_hdf5: file %s, dataset big: ", path);
  EXPECT_ERROR(none = op_decl_dat_hdf5(pts, 1, "float", path, "big"), msg);
  CHECK_CONTAINS(op_last_error(), "outside the range of 'float'");
  EXPECT_ERROR(none = op_decl_dat_hdf5(pts, 1, "int", path, "frac"), "dataset frac: ");
  CHECK_CONTAINS(op_last_error(), "the file holds 'double' values, the call asks for 'int': ");
  CHECK_CONTAINS(op_last_error(), "with a fractional part");
  EXPECT_ERROR(none = op_decl_dat_hdf5(pts, 1, "int", path, "huge"), "dataset huge: ");
  CHECK_CONTAINS(op_last_error(), "outside the range of 'int'");
  CHECK(none == NULL);
  CHECK_EQ_INT(op2_ctx()->dats.count, dats);
  /* the same datasets as their own types load */
  CHECK(op_decl_dat_hdf5(pts, 1, "double", path, "big") != NULL);
  CHECK(op_decl_dat_hdf5(pts, 1, "double", path, "frac") != NULL);

  /* constants */
  float fc[3] = {0};
  double dc[2] = {0}, di[2] = {0}, untouched[2] = {-9, -9};
  op_get_const_hdf5("cd", 3, "float", (char *)fc, path);
  op_get_const_hdf5("cf", 2, "double", (char *)dc, path);
  op_get_const_hdf5("ci", 2, "double", (char *)di, path);
  for (int k = 0; k < 3; k++) CHECK(fc[k] == (float)cd[k]);
  for (int k = 0; k < 2; k++) CHECK(dc[k] == (double)cf[k] && di[k] == (double)ci[k]);
  EXPECT_ERROR(op_get_const_hdf5("cbig", 2, "float", (char *)untouched, path),
               "dataset cbig: the file holds 'double' values, the call asks for 'float': 2 "
               "values outside the range of 'float'");
  CHECK(untouched[0] == -9 && untouched[1] == -9);

  if (h5t_rank() == 0) printf("dats and constants converted to the declared types\n");
  h5t_remove_tree(dir);
  op_exit();
  return 0;
}
