/* SPDX-License-Identifier: BSD-3-Clause */
/* OP2's tempdats Airfoil under MPI: temporaries declared after op_partition, every iteration,
 * used through a map and directly, then freed; the next iteration's temporaries may land at the
 * freed ones' addresses on some ranks and not on others (here: the ranks that print not, as a
 * block of a dat's size is taken there), and must not meet the loop shapes of the freed ones
 * (the ranks would then disagree on the loop). Each temporary has the set's local rows, halos
 * included, zero. The same results with one process and with several (every rank declares the whole
 * mesh). */
#include "test.h"
#include "runtime/op2_impl.h"

enum { N = 600, ITERS = 4 };

static const char *spread_src =
    "static void spread(const double *a, double *t1, double *t4) {\n"
    "  t1[0] += a[0]; t4[0] += 1.0; t4[3] -= a[0];\n"
    "}\n";
static const char *fold_src =
    "static void fold(const double *t1, const double *t4, double *b) {\n"
    "  b[0] += t1[0] * 2.0 + t4[0] + t4[3];\n"
    "}\n";

int main(int argc, char **argv) {
  test_catch_errors();
  op_init(argc, argv, 0);
  static double a[N], b[N], want[N];
  static int pairs[2 * N];
  for (int i = 0; i < N; i++) {
    a[i] = 0.25 * (i % 17);
    pairs[2 * i] = i, pairs[2 * i + 1] = (i * 11 + 5) % N;
  }
  op_set s = op_decl_set(N, "s");
  op_map pm = op_decl_map(s, s, 2, pairs, "pm");
  op_dat da = op_decl_dat(s, 1, "double", a, "a");
  op_dat db = op_decl_dat(s, 1, "double", NULL, "b");
  op_partition("PTSCOTCH", "KWAY", s, pm, NULL);

  void *taken = NULL;
  for (int it = 0; it < ITERS; it++) {
    if (it == 1 && !op_is_root()) taken = malloc(sizeof(struct op2_dat));
    op_dat t1, t4;
    if (it % 2 == 0) {
      t1 = op_decl_dat_temp(s, 1, "double", NULL, "t1");
      t4 = op_decl_dat_temp(s, 4, "double", NULL, "t4");
    } else {
      t4 = op_decl_dat_temp(s, 4, "double", NULL, "t4");
      t1 = op_decl_dat_temp(s, 1, "double", NULL, "t1");
    }
    CHECK(t1 && t4);
    op_par_loop(spread_src, "spread", s, op_arg_dat(da, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(t1, 1, pm, 1, "double", OP_INC),
                op_arg_dat(t4, 1, pm, 4, "double", OP_INC));
    op_par_loop(fold_src, "fold", s, op_arg_dat(t1, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(t4, -1, OP_ID, 4, "double", OP_READ),
                op_arg_dat(db, -1, OP_ID, 1, "double", OP_INC));
    static double s1[N], s4[N];
    memset(s1, 0, sizeof s1), memset(s4, 0, sizeof s4);
    for (int i = 0; i < N; i++) {
      int j = pairs[2 * i + 1];
      s1[j] += a[i], s4[j] += 1.0; /* t4[0] */
    }
    for (int i = 0; i < N; i++) want[i] += s1[i] * 2.0 + s4[i] - s1[i];
    op_fetch_data(db, b);
    for (int i = 0; i < N; i++) CHECK(b[i] == want[i]);
    if (it % 2 == 0) {
      CHECK_EQ_INT(op_free_dat_temp(t1), 0);
      CHECK_EQ_INT(op_free_dat_temp(t4), 0);
    } else {
      CHECK_EQ_INT(op_free_dat_temp(t4), 0);
      CHECK_EQ_INT(op_free_dat_temp(t1), 0);
    }
  }
  free(taken);
  op_exit();
  return 0;
}
