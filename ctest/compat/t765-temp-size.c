/* SPDX-License-Identifier: BSD-3-Clause */
/* Temporary dats declared with an element size other than their type's, as OP2 accepts them:
 * MG-CFD's multigrid declares its "int" scratch counter with sizeof(double)
 * (op_decl_dat_temp_char(nodes, 1, "int", sizeof(double), name)), and OP2's C++
 * op_decl_dat_temp takes sizeof(T) of whatever pointer it is given. OP2 reserves dim * size
 * bytes and its loops use the declared type: so does op2jit (the dat holds dim values of the
 * type, dat->size is their bytes). Here the counter is zeroed and counted through a map, then
 * read directly, as MG-CFD's restriction does. A size below 1 is refused. */
#include "test.h"
#include "runtime/mesh.h"

enum { FINE = 10, COARSE = 4 };

static const char *zero_src = "void zero(int *n) { *n = 0; }\n";
static const char *count_src = "void count(int *n) { *n += 1; }\n";
static const char *avg_src =
    "void avg(const int *n, double *w) { *w = *n == 0 ? 1.0 : 1.0 / (double)*n; }\n";

int main(int argc, char **argv) {
  test_catch_errors();
  op_init(argc, argv, 0);
  op_set fine = op_decl_set(FINE, "fine");
  op_set coarse = op_decl_set(COARSE, "coarse");
  int f2c[FINE];
  for (int i = 0; i < FINE; i++) f2c[i] = i % COARSE;
  op_map pf2c = op_decl_map(fine, coarse, 1, f2c, "f2c");
  op_dat scratch = op_decl_dat_temp_char(coarse, 1, "int", sizeof(double), "scratch");
  CHECK(scratch != NULL);
  CHECK_EQ_INT(scratch->core.size, (int)sizeof(int));
  /* OP2's C++ form with a typed NULL of another type: data is only there for its type */
  op_dat pairs = op_decl_dat_temp(coarse, 2, "int", (double *)NULL, "pairs");
  CHECK(pairs != NULL);
  CHECK_EQ_INT(pairs->core.size, 2 * (int)sizeof(int));
  op_dat weight = op_decl_dat(coarse, 1, "double", NULL, "weight");

  op_par_loop(zero_src, "zero", fine, op_arg_dat(scratch, 0, pf2c, 1, "int", OP_WRITE));
  op_par_loop(count_src, "count", fine, op_arg_dat(scratch, 0, pf2c, 1, "int", OP_INC));
  op_par_loop(avg_src, "avg", coarse, op_arg_dat(scratch, -1, OP_ID, 1, "int", OP_READ),
              op_arg_dat(weight, -1, OP_ID, 1, "double", OP_WRITE));
  op_par_loop(count_src, "count", coarse, op_arg_dat(pairs, -1, OP_ID, 2, "int", OP_INC));
  int n[COARSE], p[2 * COARSE];
  double w[COARSE];
  op_fetch_data(scratch, n);
  op_fetch_data(weight, w);
  op_fetch_data(pairs, p);
  for (int c = 0; c < COARSE; c++) {
    int want = (FINE - c + COARSE - 1) / COARSE; /* fine elements i with i % COARSE == c */
    CHECK_EQ_INT(n[c], want);
    CHECK(w[c] == 1.0 / want);
    CHECK_EQ_INT(p[2 * c], 1);
    CHECK_EQ_INT(p[2 * c + 1], 0); /* the kernel adds to the first of the two only */
  }
  CHECK_EQ_INT(op_free_dat_temp(scratch), 0);
  CHECK_EQ_INT(op_free_dat_temp(pairs), 0);

  op_dat bad = NULL;
  EXPECT_ERROR(bad = op_decl_dat_temp_char(coarse, 1, "int", 0, "bad"),
               "op_decl_dat_temp 'bad': element size 0 must be at least 1");
  CHECK(bad == NULL);
  op_exit();
  return 0;
}
