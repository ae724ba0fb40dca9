/* SPDX-License-Identifier: BSD-3-Clause */
/* op_decl_dat_temp / op_free_dat_temp: a temporary starts as zeros whatever `data` is, works in
 * loops like any dat, and is released again (0 returned); dats declared after it keep working
 * once it is gone; a dat the program declared with op_decl_dat, or one already freed, is refused
 * (-1, with a message). */
#include "test.h"

enum { N = 1000 };

static const char *add_src =
    "static void add(const double *a, double *t) { t[0] += 2.0 * a[0]; }\n";
static const char *back_src = "static void back(const double *t, double *b) { b[0] = t[0] + 1; }\n";

int main(int argc, char **argv) {
  test_catch_errors();
  op_init(argc, argv, 0);
  static double a[N], b[N], got[N];
  for (int i = 0; i < N; i++) a[i] = i * 0.5;
  op_set s = op_decl_set(N, "s");
  op_dat da = op_decl_dat(s, 1, "double", a, "a");
  op_dat tmp = op_decl_dat_temp(s, 1, "double", a /* ignored, as in OP2 */, "tmp");
  CHECK(tmp != NULL);
  op_fetch_data(tmp, got);
  for (int i = 0; i < N; i++) CHECK(got[i] == 0.0);
  op_dat db = op_decl_dat(s, 1, "double", NULL, "b"); /* declared after the temporary */
  op_par_loop(add_src, "add", s, op_arg_dat(da, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(tmp, -1, OP_ID, 1, "double", OP_RW));
  op_par_loop(back_src, "back", s, op_arg_dat(tmp, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(db, -1, OP_ID, 1, "double", OP_WRITE));
  CHECK_EQ_INT(op_free_dat_temp(tmp), 0);

  /* b, declared after tmp, is untouched by its release */
  op_fetch_data(db, b);
  for (int i = 0; i < N; i++) CHECK(b[i] == 2.0 * a[i] + 1);
  op_par_loop(add_src, "add", s, op_arg_dat(da, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(db, -1, OP_ID, 1, "double", OP_RW));
  op_fetch_data(db, got);
  for (int i = 0; i < N; i++) CHECK(got[i] == 4.0 * a[i] + 1);

  /* a second temporary, used through a map, freed too */
  int pairs[2 * N];
  for (int i = 0; i < N; i++) pairs[2 * i] = i, pairs[2 * i + 1] = (i * 7) % N;
  op_map pm = op_decl_map(s, s, 2, pairs, "pm");
  op_dat t2 = op_decl_dat_temp(s, 1, "double", NULL, "t2");
  op_par_loop(add_src, "add", s, op_arg_dat(da, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(t2, 1, pm, 1, "double", OP_INC));
  op_fetch_data(t2, got);
  static double want[N];
  for (int i = 0; i < N; i++) want[(i * 7) % N] += 2.0 * a[i];
  for (int i = 0; i < N; i++) CHECK(got[i] == want[i]);
  CHECK_EQ_INT(op_free_dat_temp(t2), 0);

  int rc = 0;
  EXPECT_ERROR(rc = op_free_dat_temp(da), "op_free_dat_temp 'a': not declared by op_decl_dat_temp");
  CHECK_EQ_INT(rc, -1);
  EXPECT_ERROR(rc = op_free_dat_temp(t2), "op_free_dat_temp: not a declared dat");
  CHECK_EQ_INT(rc, -1);
  op_exit();
  return 0;
}
