/* SPDX-License-Identifier: BSD-3-Clause */
/* Declarations after the mesh was distributed. Usage: t460-late-decl local|replicated
 *
 * Once the first loop (or op_partition) has moved elements to their owners, a new dat (with the
 * rank's declared rows, or with no data) or a new map (with global values for the rank's declared
 * rows) is either refused with an error, on every rank alike, or works exactly as if it had been
 * declared before: loops through it and fetches of it match plain C. Silently wrong data is the
 * only failure. With one process late declarations must simply work. */
#include "mpi_test.h"

enum { NN = 240, NE = 520 };

KERNEL(
    gather2, static void gather2(const double *a, const double *b, double *out) {
      out[0] = a[0] - 0.5 * b[0];
    })

KERNEL(
    scatter2, static void scatter2(const double *v, double *a, double *b) {
      a[0] += v[0];
      b[0] += 2.0 * v[0];
    })

static int refused_total;

/* Runs a declaration that may be refused: returns its result, and whether it was refused. */
#define MAYBE_REFUSED(result, call)                                           \
  do {                                                                        \
    test_errors_expected = 1;                                                 \
    test_errors_seen = 0;                                                     \
    result = (call);                                                          \
    test_errors_expected = 0;                                                 \
    CHECK_EQ_INT(test_errors_seen, result ? 0 : 1);                           \
    int refused_ = !result, lo_ = refused_, hi_ = refused_;                   \
    MPI_Allreduce(&refused_, &lo_, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);      \
    MPI_Allreduce(&refused_, &hi_, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);      \
    CHECK_EQ_INT(lo_, hi_); /* every rank decides alike */                    \
    if (refused_ && mt_rank() == 0) printf("refused: %s\n", op_last_error()); \
    refused_total += refused_;                                                \
  } while (0)

static void check_d(op_dat d, int global, const double *want, const char *what) {
  double *got = mt_fetch_all(d, global, sizeof(double));
  mt_check_doubles(got, want, (size_t)global, 1e-12, what);
  free(got);
}

int main(int argc, char **argv) {
  CHECK(argc >= 2);
  op_init(argc, argv, 0);
  test_catch_errors();
  mt_mode mode = mt_parse_mode(argv[1]);
  unsigned rng = rm_rng(460);
  mt_set nodes = mt_decl_set(mode, MT_SPLIT_SKEWED, NN, "nodes");
  mt_set edges = mt_decl_set(mode, MT_SPLIT_SKEWED, NE, "edges");
  int *en = rm_map_values(NE, 2, NN, 200, &rng), *en2 = rm_map_values(NE, 2, NN, 500, &rng);
  op_map pedge = mt_decl_map(&edges, &nodes, 2, en, "pedge");
  double *x = rm_doubles(NN, -1, 1, &rng), *late = rm_doubles(NN, -2, 2, &rng);
  double *ev = rm_alloc(sizeof(double) * NE), *tmp = rm_alloc(sizeof(double) * NN);
  op_dat dx = mt_decl_dat(&nodes, 1, "double", sizeof(double), x, "x");
  op_dat dev = mt_decl_dat(&edges, 1, "double", sizeof(double), NULL, "ev");
  op_partition("PTSCOTCH", "KWAY", nodes.set, pedge, dx);
  op_par_loop(gather2_src, "gather2", edges.set, op_arg_dat(dx, 0, pedge, 1, "double", OP_READ),
              op_arg_dat(dx, 1, pedge, 1, "double", OP_READ),
              op_arg_dat(dev, -1, OP_ID, 1, "double", OP_WRITE));
  for (int e = 0; e < NE; e++) gather2(x + en[2 * e], x + en[2 * e + 1], ev + e);
  check_d(dev, NE, ev, "gather2");

  /* a dat with data: the rank's declared rows, as before the distribution */
  op_dat dlate;
  MAYBE_REFUSED(dlate, op_decl_dat(nodes.set, 1, "double", late + nodes.b.first, "late"));
  if (dlate) {
    check_d(dlate, NN, late, "late dat as declared");
    op_par_loop(gather2_src, "gather2", edges.set,
                op_arg_dat(dlate, 1, pedge, 1, "double", OP_READ),
                op_arg_dat(dx, 0, pedge, 1, "double", OP_READ),
                op_arg_dat(dev, -1, OP_ID, 1, "double", OP_WRITE));
    for (int e = 0; e < NE; e++) gather2(late + en[2 * e + 1], x + en[2 * e], ev + e);
    check_d(dev, NE, ev, "gather2 reading the late dat");
  }

  /* a dat without data, incremented through the map, then read through it */
  op_dat dtmp;
  MAYBE_REFUSED(dtmp, op_decl_dat(nodes.set, 1, "double", NULL, "tmp"));
  if (dtmp) {
    op_par_loop(scatter2_src, "scatter2", edges.set,
                op_arg_dat(dev, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(dtmp, 0, pedge, 1, "double", OP_INC),
                op_arg_dat(dtmp, 1, pedge, 1, "double", OP_INC));
    op_par_loop(gather2_src, "gather2", edges.set, op_arg_dat(dtmp, 0, pedge, 1, "double", OP_READ),
                op_arg_dat(dtmp, 1, pedge, 1, "double", OP_READ),
                op_arg_dat(dev, -1, OP_ID, 1, "double", OP_WRITE));
    for (int e = 0; e < NE; e++) scatter2(ev + e, tmp + en[2 * e], tmp + en[2 * e + 1]);
    for (int e = 0; e < NE; e++) gather2(tmp + en[2 * e], tmp + en[2 * e + 1], ev + e);
    check_d(dtmp, NN, tmp, "scatter2 into the late temporary");
    check_d(dev, NE, ev, "gather2 from the late temporary");
  }

  /* a map: global values for the rank's declared rows */
  op_map plate;
  MAYBE_REFUSED(plate,
                op_decl_map(edges.set, nodes.set, 2, en2 + 2 * (size_t)edges.b.first, "plate"));
  if (plate) {
    op_par_loop(gather2_src, "gather2", edges.set, op_arg_dat(dx, 0, plate, 1, "double", OP_READ),
                op_arg_dat(dx, 1, plate, 1, "double", OP_READ),
                op_arg_dat(dev, -1, OP_ID, 1, "double", OP_WRITE));
    for (int e = 0; e < NE; e++) gather2(x + en2[2 * e], x + en2[2 * e + 1], ev + e);
    check_d(dev, NE, ev, "gather2 through the late map");
  }
  if (mt_size() == 1) CHECK_EQ_INT(refused_total, 0);

  free(en), free(en2), free(x), free(late), free(ev), free(tmp);
  int me = mt_rank(), p = mt_size();
  op_exit();
  if (me == 0)
    printf("t460 %s on %d ranks: late declarations refused %d times, correct otherwise\n", argv[1],
           p, refused_total);
  return 0;
}
