/* SPDX-License-Identifier: BSD-3-Clause */
/* Maps the program writes, as OP2 lets it: one declared with one set of values, then rewritten
 * in place through map->map before the loops use it; another whose map->map the program points
 * at a new array of its own, freeing the one it replaced (Volna's op_reorder_map); the library
 * takes that array as it is and frees it at op_exit, as OP2 does. The loops' results follow the new
 * values (increments through both columns, and reads through them), on every backend and with each
 * rank declaring its block. A value written outside the target set is refused when the map is first
 * used, naming it; a change after loops used the map is refused at the next loop that builds
 * something from it (a queued call: when it runs, here at op_fetch_data), and reported at op_exit
 * when nothing did. */
#include <mpi.h>

#include "test.h"
#include "compat/capture.h"

enum { N = 40, E = 90 };

/* test.h's EXPECT_ERROR for a program linked with the installed library (no internal calls):
 * the calls checked here report at once. */
#define EXPECT_PUBLIC_ERROR(stmt, needle)    \
  do {                                       \
    test_errors_expected = 1;                \
    test_errors_seen = 0;                    \
    stmt;                                    \
    test_errors_expected = 0;                \
    CHECK_EQ_INT(test_errors_seen, 1);       \
    CHECK_CONTAINS(op_last_error(), needle); \
  } while (0)

static int declared(long e, int j) {
  return (int)((e + j) % N);
}
static int replaced(long e, int j) {
  return (int)((e * 11 + j * 5 + 1) % N);
}
static int reordered(long e, int j) {
  return (int)((e * 7 + j * 13 + 3) % N);
}

static const char *spread_src =
    "void spread(const double *w, double *a, double *b) { *a += *w; *b += 2.0 * *w; }\n";
static const char *diff_src =
    "void diff(const double *xa, const double *xb, double *d) { *d = *xa - *xb; }\n";
static const char *pick_src = "void pick(const double *xa, double *d) { *d = *xa; }\n";

static long block_begin(long n, int r, int p) {
  return n * r / p;
}

int main(int argc, char **argv) {
  test_catch_errors();
  op_init(argc, argv, 0);
  int rank = 0, nranks = 1, mpi = 0;
  MPI_Initialized(&mpi);
  if (mpi) MPI_Comm_rank(MPI_COMM_WORLD, &rank), MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  long n0 = block_begin(N, rank, nranks), nn = block_begin(N, rank + 1, nranks) - n0;
  long e0 = block_begin(E, rank, nranks), ne = block_begin(E, rank + 1, nranks) - e0;

  int *ends = malloc(sizeof(int) * 2 * (size_t)(ne + 1));
  double *w = malloc(sizeof(double) * (size_t)(ne + 1)),
         *x = malloc(sizeof(double) * (size_t)(nn + 1));
  for (long e = 0; e < ne; e++) {
    ends[2 * e] = declared(e0 + e, 0), ends[2 * e + 1] = declared(e0 + e, 1);
    w[e] = (double)(e0 + e + 1);
  }
  for (long n = 0; n < nn; n++) x[n] = (double)(n0 + n) * (n0 + n);
  op_set nodes = op_decl_set((int)nn, "nodes");
  op_set edges = op_decl_set((int)ne, "edges");
  op_map e2n = op_decl_map(edges, nodes, 2, ends, "e2n");
  op_map e2nb = op_decl_map(edges, nodes, 2, ends, "e2nb");
  op_dat pw = op_decl_dat(edges, 1, "double", w, "w");
  op_dat px = op_decl_dat(nodes, 1, "double", x, "x");
  op_dat psum = op_decl_dat(nodes, 1, "double", NULL, "sum");
  op_dat pd = op_decl_dat(edges, 1, "double", NULL, "d");
  op_dat pdb = op_decl_dat(edges, 1, "double", NULL, "db");

  /* pointed at an array of the program's, the one it replaced freed (Volna's op_reorder_map) */
  int *mine = malloc(sizeof(int) * 2 * (size_t)(ne + 1)), *theirs = e2nb->map;
  for (long e = 0; e < ne; e++)
    for (int j = 0; j < 2; j++) mine[2 * e + j] = replaced(e0 + e, j);
  e2nb->map = mine;
  free(theirs);

  /* written in place before any loop uses the map: first a value outside 'nodes' */
  CHECK(e2n->from->size == ne && e2n->map != NULL);
  for (long e = 0; e < ne; e++)
    for (int j = 0; j < 2; j++) e2n->map[2 * e + j] = reordered(e0 + e, j);
  int kept = e2n->map[1];
  e2n->map[1] = N + 5;
  EXPECT_PUBLIC_ERROR(
      op_par_loop(spread_src, "spread", edges, op_arg_dat(pw, -1, OP_ID, 1, "double", OP_READ),
                  op_arg_dat(psum, 0, e2n, 1, "double", OP_INC),
                  op_arg_dat(psum, 1, e2n, 1, "double", OP_INC)),
      "map 'e2n' (written by the program since its declaration): value 45 at row 0, column 1 is "
      "outside set 'nodes'");
  e2n->map[1] = kept;

  op_par_loop(spread_src, "spread", edges, op_arg_dat(pw, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(psum, 0, e2n, 1, "double", OP_INC),
              op_arg_dat(psum, 1, e2n, 1, "double", OP_INC));
  op_par_loop(diff_src, "diff", edges, op_arg_dat(px, 0, e2n, 1, "double", OP_READ),
              op_arg_dat(px, 1, e2n, 1, "double", OP_READ),
              op_arg_dat(pd, -1, OP_ID, 1, "double", OP_WRITE));
  op_par_loop(diff_src, "diff", edges, op_arg_dat(px, 0, e2nb, 1, "double", OP_READ),
              op_arg_dat(px, 1, e2nb, 1, "double", OP_READ),
              op_arg_dat(pdb, -1, OP_ID, 1, "double", OP_WRITE));
  double *sum = malloc(sizeof(double) * (size_t)(nn + 1)),
         *d = malloc(sizeof(double) * (size_t)(ne + 1));
  op_fetch_data(psum, sum);
  op_fetch_data(pd, d);
  for (long n = 0; n < nn; n++) {
    double want = 0;
    for (long e = 0; e < E; e++)
      want += (reordered(e, 0) == n0 + n ? 1.0 : 0.0) * (double)(e + 1) +
              (reordered(e, 1) == n0 + n ? 2.0 : 0.0) * (double)(e + 1);
    CHECK(sum[n] == want);
  }
  for (long e = 0; e < ne; e++) {
    double a = reordered(e0 + e, 0), b = reordered(e0 + e, 1);
    CHECK(d[e] == a * a - b * b);
  }
  op_fetch_data(pdb, d);
  for (long e = 0; e < ne; e++) {
    double a = replaced(e0 + e, 0), b = replaced(e0 + e, 1);
    CHECK(d[e] == a * a - b * b);
  }
  /* taken without a copy (under MPI the distribution moves the rows into arrays of its own) */
  if (nranks == 1) CHECK(e2nb->map == mine);

  /* after the loops used it: a change is refused where a new loop would build from it; the same
   * values again are the map the loops were built for */
  int first = e2n->map[0];
  e2n->map[0] = e2n->map[1];
  EXPECT_PUBLIC_ERROR(
      (op_par_loop(pick_src, "pick", edges, op_arg_dat(px, 0, e2n, 1, "double", OP_READ),
                   op_arg_dat(pd, -1, OP_ID, 1, "double", OP_WRITE)),
       op_fetch_data(pd, d)),
      "the values of map 'e2n' (map->map) changed after op2jit built plans, halos or copies from "
      "them");
  e2n->map[0] = first;
  /* the same values in another array: a change too (the loops' plans are not the array's) */
  size_t rows = (size_t)e2nb->from->size;
  int *used = e2nb->map, *other = malloc(sizeof(int) * 2 * (rows + 1));
  memcpy(other, used, sizeof(int) * 2 * rows);
  e2nb->map = other;
  EXPECT_PUBLIC_ERROR(
      (op_par_loop(pick_src, "pick", edges, op_arg_dat(px, 0, e2nb, 1, "double", OP_READ),
                   op_arg_dat(pd, -1, OP_ID, 1, "double", OP_WRITE)),
       op_fetch_data(pd, d)),
      "the program pointed map 'e2nb' (map->map) at another array after op2jit built plans");
  e2nb->map = used;
  free(other);
  op_par_loop(pick_src, "pick", edges, op_arg_dat(px, 0, e2n, 1, "double", OP_READ),
              op_arg_dat(pd, -1, OP_ID, 1, "double", OP_WRITE));
  op_fetch_data(pd, d);
  for (long e = 0; e < ne; e++) CHECK(d[e] == (double)reordered(e0 + e, 0) * reordered(e0 + e, 0));

  /* changed and never looked at again: op_exit says so (on the rank that prints) */
  e2n->map[0] = e2n->map[1];
  capture c;
  capture_begin(&c, 2);
  op_exit();
  char *said = capture_end(&c);
  if (rank == 0) CHECK_CONTAINS(said, "warning: the values of map 'e2n' (map->map) changed");
  free(said), free(ends), free(w), free(x), free(sum), free(d);
  return 0;
}
