/* SPDX-License-Identifier: BSD-3-Clause */
/* Getting data out: op_fetch_data_idx refuses bad ranges without touching the output buffer;
 * op_print_dat_to_txtfile to a path it cannot write names the dat and the file and leaves no
 * file behind; a good print has the documented content. */
#include "errors_util.h"

static op_dat d;

static void check_untouched(const double *buf, size_t n) {
  for (size_t i = 0; i < n; i++) CHECK(buf[i] == -99.0);
}

static void fill(double *buf, size_t n) {
  for (size_t i = 0; i < n; i++) buf[i] = -99.0;
}

static void check_fetch(void) {
  double buf[12];
  fill(buf, 12);
  EXPECT_ERROR(op_fetch_data_idx(d, buf, -1, 2),
               "op_fetch_data_idx 'd': range [-1, 2] is outside [0, 4]");
  check_untouched(buf, 12);
  EXPECT_ERROR(op_fetch_data_idx(d, buf, 0, 5),
               "op_fetch_data_idx 'd': range [0, 5] is outside [0, 4]");
  check_untouched(buf, 12);
  EXPECT_ERROR(op_fetch_data_idx(d, buf, 4, 1),
               "op_fetch_data_idx 'd': low 4 is greater than high 1");
  check_untouched(buf, 12);
  EXPECT_ERROR(op_fetch_data_idx(d, NULL, 0, 1), "op_fetch_data: output buffer is NULL");
  EXPECT_ERROR(op_fetch_data_idx(NULL, buf, 0, 1), "op_fetch_data: dat is NULL");
  EXPECT_ERROR(op_fetch_data(NULL, buf), "op_fetch_data: dat is NULL");
  EXPECT_ERROR(op_fetch_data(d, NULL), "op_fetch_data: output buffer is NULL");
  check_untouched(buf, 12);
  /* And the good ranges give the right values, nothing more. */
  op_fetch_data_idx(d, buf, 1, 3);
  for (int i = 0; i < 6; i++) CHECK_NEAR(buf[i], 10.0 + 2 + i, 0);
  check_untouched(buf + 6, 6);
  op_fetch_data_idx(d, buf, 4, 4);
  CHECK_NEAR(buf[0], 18.0, 0);
  CHECK_NEAR(buf[1], 19.0, 0);
}

static void check_print_errors(const char *dir) {
  char path[4400];
  snprintf(path, sizeof path, "%s/missing/out.txt", dir);
  EXPECT_ERROR(op_print_dat_to_txtfile(d, path), "op_print_dat_to_txtfile 'd': cannot write ");
  CHECK_CONTAINS(op_last_error(), path);
  CHECK_CONTAINS(op_last_error(), "No such file or directory");
  CHECK_EQ_INT(eu_count_entries(dir), 0);

  /* The target is a directory: the write succeeds beside it, the rename fails, and the
   * temporary file must not stay. */
  snprintf(path, sizeof path, "%s/sub", dir);
  CHECK(mkdir(path, 0700) == 0);
  EXPECT_ERROR(op_print_dat_to_txtfile(d, path), "op_print_dat_to_txtfile 'd': ");
  CHECK_CONTAINS(op_last_error(), path);
  CHECK_EQ_INT(eu_count_entries(dir), 1);
  CHECK_EQ_INT(eu_count_entries(path), 0);

  EXPECT_ERROR(op_print_dat_to_txtfile(d, NULL), "op_print_dat_to_txtfile: file name is NULL");
  EXPECT_ERROR(op_print_dat_to_txtfile(NULL, path), "op_print_dat_to_txtfile: dat is NULL");
}

static void check_print(const char *dir, op_set empty) {
  char path[4400];
  snprintf(path, sizeof path, "%s/d.txt", dir);
  op_print_dat_to_txtfile(d, path);
  char *text = eu_read_file(path);
  CHECK(text != NULL);
  CHECK(strncmp(text, "5 2\n", 4) == 0); /* first line: size dim */
  /* OP2's number format: every value signed, after a space; doubles with 16 digits */
  CHECK(strcmp(text,
               "5 2\n +1.000000000000000E+01 +1.100000000000000E+01\n"
               " +1.200000000000000E+01 +1.300000000000000E+01\n"
               " +1.400000000000000E+01 +1.500000000000000E+01\n"
               " +1.600000000000000E+01 +1.700000000000000E+01\n"
               " +1.800000000000000E+01 +1.900000000000000E+01\n") == 0);
  free(text);

  /* Printing again replaces the file, with another dat's content and type. */
  op_set s3 = op_decl_set(3, "s3");
  const int iv[] = {1, -2, 3, 2147483647, -5, 6};
  op_dat di = op_decl_dat(s3, 2, "int", iv, "di");
  op_print_dat_to_txtfile(di, path);
  text = eu_read_file(path);
  CHECK(text && strcmp(text, "3 2\n +1 -2\n +3 +2147483647\n -5 +6\n") == 0);
  free(text);

  const double fv[] = {0.5, -1.25, 1e300, -0.0};
  op_dat df = op_decl_dat(s3, 1, "double", fv, "df");
  op_set s4 = op_decl_set(4, "s4");
  op_dat df4 = op_decl_dat(s4, 1, "double", fv, "df4");
  op_print_dat_to_txtfile(df, path);
  text = eu_read_file(path);
  CHECK(text && strcmp(text,
                       "3 1\n +5.000000000000000E-01\n -1.250000000000000E+00\n"
                       " +1.000000000000000E+300\n") == 0);
  free(text);
  op_print_dat_to_txtfile(df4, path); /* negative zero prints as +0, as OP2 prints it */
  text = eu_read_file(path);
  CHECK(text && strstr(text, "\n +0.000000000000000E+00\n") != NULL);
  free(text);

  op_dat de = op_decl_dat(empty, 3, "float", NULL, "de");
  op_print_dat_to_txtfile(de, path);
  text = eu_read_file(path);
  CHECK(text && strcmp(text, "0 3\n") == 0);
  free(text);
  CHECK_EQ_INT(eu_count_entries(dir), 2); /* sub and d.txt, no temporaries */
}

int main(int argc, char **argv) {
  test_catch_errors();
  op_init(argc, argv, 0);
  op_set s = op_decl_set(5, "s");
  op_set empty = op_decl_set(0, "empty");
  double v[10];
  for (int i = 0; i < 10; i++) v[i] = 10.0 + i;
  d = op_decl_dat(s, 2, "double", v, "d");
  CHECK(s && empty && d);

  check_fetch();
  /* An empty dat has nothing to fetch, and that is not an error. */
  op_dat de = op_decl_dat(empty, 1, "double", NULL, "de0");
  double none = -99.0;
  op_fetch_data(de, &none);
  CHECK(none == -99.0);

  char dir[4096];
  eu_make_scratch(dir, sizeof dir, "t305");
  check_print_errors(dir);
  check_print(dir, empty);
  eu_remove_tree(dir);

  /* Data is unchanged by all of the above. */
  double got[10];
  op_fetch_data(d, got);
  for (int i = 0; i < 10; i++) CHECK_NEAR(got[i], v[i], 0);
  op_exit();
  return 0;
}
