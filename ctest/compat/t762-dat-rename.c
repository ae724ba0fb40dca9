/* SPDX-License-Identifier: BSD-3-Clause */
/* A dat the program renames, as OP2 programs do: MG-CFD points dat->name at a new string right
 * after declaring a dat (a dataset "areas" becomes "p_volumes_L0"), and around each
 * op_fetch_data_hdf5_file (old = dat->name; dat->name = strdup("p_variables"); write;
 * dat->name = old). The dataset written takes the name the field points to at the call
 * (op_fetch_data_hdf5_file, op_dump_to_hdf5), op_diagnostic_output prints it, a loop queued
 * before the rename runs as it would have, the library never frees the program's strings (the
 * program frees them: ASan would see a double free), and a NULL or empty name is refused when a
 * file needs one. One process, and 2 ranks each declaring its block. */
#include "hdf5/h5_test.h"
#include "compat/capture.h"

enum { G = 101, DIM = 2 };

/* test.h's EXPECT_ERROR for a program linked with the installed library (no internal calls):
 * the calls checked here run at once. */
#define EXPECT_PUBLIC_ERROR(stmt, needle)    \
  do {                                       \
    test_errors_expected = 1;                \
    test_errors_seen = 0;                    \
    stmt;                                    \
    test_errors_expected = 0;                \
    CHECK_EQ_INT(test_errors_seen, 1);       \
    CHECK_CONTAINS(op_last_error(), needle); \
  } while (0)

static double value(long e, int k) {
  return (double)e * 10.0 + k;
}

static const char *twice_src = "void twice(double *v) { v[0] *= 2.0; v[1] *= 2.0; }\n";

static void check_dataset(hid_t f, const char *name, double factor) {
  hsize_t d[2];
  CHECK_EQ_INT(h5t_shape(f, name, d), 2);
  CHECK(d[0] == G && d[1] == DIM);
  double *all = malloc(sizeof(double) * G * DIM);
  h5t_read_all(f, name, H5T_NATIVE_DOUBLE, all);
  for (long e = 0; e < G; e++)
    for (int k = 0; k < DIM; k++) CHECK(all[e * DIM + k] == factor * value(e, k));
  free(all);
}

int main(int argc, char **argv) {
  test_catch_errors();
  op_init(argc, argv, 0);
  char dir[512], file[600], dump[600];
  h5t_scratch(dir, sizeof dir, "t762");
  snprintf(file, sizeof file, "%s/flow.h5", dir);
  snprintf(dump, sizeof dump, "%s/dump.h5", dir);
  long first, count;
  h5t_block(G, &first, &count);
  double *mine = malloc(sizeof(double) * DIM * (size_t)(count + 1));
  for (long e = 0; e < count; e++)
    for (int k = 0; k < DIM; k++) mine[e * DIM + k] = value(first + e, k);
  op_set s = op_decl_set((int)count, "nodes");
  op_dat d = op_decl_dat(s, DIM, "double", mine, "areas");
  char *volumes = strdup("p_volumes_L0");
  d->name = volumes;

  /* queued (lazy execution); runs before the next output, whatever the dat is called then */
  op_par_loop(twice_src, "twice", s, op_arg_dat(d, -1, OP_ID, DIM, "double", OP_RW));
  const char *old = d->name;
  char *variables = strdup("p_variables");
  d->name = variables;
  op_fetch_data_hdf5_file(d, file);
  d->name = old;
  free(variables);
  op_fetch_data_hdf5_file(d, file);
  op_dump_to_hdf5(dump);

  capture c;
  capture_begin(&c, 1);
  op_diagnostic_output();
  char *printed = capture_end(&c);
  CHECK_CONTAINS(printed, "p_volumes_L0");
  CHECK(strstr(printed, "areas") == NULL);
  free(printed);

  d->name = NULL;
  EXPECT_PUBLIC_ERROR(
      op_fetch_data_hdf5_file(d, file),
      "dat 'areas' has no name to write it under (the program set dat->name to NULL)");
  d->name = "";
  EXPECT_PUBLIC_ERROR(op_dump_to_hdf5(dump), "dat 'areas' has no name to write it under");
  d->name = old;

  h5t_barrier();
  if (h5t_rank() == 0) {
    hid_t f = h5t_open(file);
    check_dataset(f, "p_variables", 2.0);
    check_dataset(f, "p_volumes_L0", 2.0);
    CHECK(H5Lexists(f, "areas", H5P_DEFAULT) == 0);
    H5Fclose(f);
    f = h5t_open(dump);
    check_dataset(f, "p_volumes_L0", 2.0);
    CHECK(H5Lexists(f, "areas", H5P_DEFAULT) == 0);
    H5Fclose(f);
  }
  op_exit();
  free(volumes); /* the program's own string: the library has not freed it */
  free(mine);
  h5t_remove_tree(dir);
  return 0;
}
