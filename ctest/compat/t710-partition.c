/* SPDX-License-Identifier: BSD-3-Clause */
/* op_partition as OP2 programs call it: partitioner names OP2 falls back from ("PARMETIS",
 * "KAHIP": PT-Scotch on the same map; "RANDOM", "INERTIAL", unknown names: BLOCK), with a warning
 * at OP2_DIAGS=1 (checked on rank 0, which alone prints), and PTSCOTCH with NULL set, map and
 * coordinates (the library picks the map). Afterwards loops still give plain C's results, with
 * one process (with or without mpiexec) and several. A prime map that touches neither end of
 * the prime set is refused, naming the argument.
 *   t710-partition LIB ROUTINE given|null EXPECTED-WARNING|- */
#include "mpi/mpi_test.h"

enum { NN = 3000, NE = 9000 };

static const char *scatter_src =
    "static void scatter(const double *w, double *a, double *b) { *a += w[0]; *b -= w[0]; }\n";
static const char *total_src = "static void total(const double *n, double *s) { *s += n[0]; }\n";

int main(int argc, char **argv) {
  CHECK(argc == 5);
  op_init(argc, argv, 0);
  test_catch_errors(); /* any library error fails the test, with its message */
  rm_mesh m;
  rm_mesh_values(&m, NE, NN, 1, RM_JUMPS, 710);
  unsigned rng = rm_rng(7101);
  double *w = rm_doubles(NE, 0, 1, &rng), *n = rm_alloc(NN * sizeof *n);
  for (int e = 0; e < NE; e++) w[e] = (double)(int)(w[e] * 64) * 0.25; /* exact sums */
  op_set edges = op_decl_set(NE, "edges"), nodes = op_decl_set(NN, "nodes");
  op_map pedge = op_decl_map(edges, nodes, 2, m.edge_nodes, "pedge");
  op_dat dw = op_decl_dat(edges, 1, "double", w, "w");
  op_dat dn = op_decl_dat(nodes, 1, "double", NULL, "n");

  /* a map that leaves the edges for the nodes cannot partition a third set */
  op_set other = op_decl_set(10, "other");
  test_errors_expected = 1;
  op_partition("PTSCOTCH", "KWAY", other, pedge, NULL);
  test_errors_expected = 0;
  CHECK(test_errors_seen == 1);
  CHECK_CONTAINS(op_last_error(), "prime_map 'pedge' (4th argument)");
  CHECK_CONTAINS(op_last_error(), "prime_set 'other' (3rd argument)");

  int given = strcmp(argv[3], "given") == 0;
  /* "error:TEXT": the call is refused with TEXT (a geometric partitioner given no coordinates),
   * on every rank, and the run goes on with the declared blocks */
  if (strncmp(argv[4], "error:", 6) == 0) {
    test_errors_expected = 1;
    test_errors_seen = 0;
    op_partition(argv[1], argv[2], given ? nodes : NULL, given ? pedge : NULL, NULL);
    test_errors_expected = 0;
    CHECK(test_errors_seen == 1);
    CHECK_CONTAINS(op_last_error(), argv[4] + 6);
  } else {
    const char *said =
        mt_partition_capturing(argv[1], argv[2], given ? nodes : NULL, given ? pedge : NULL, NULL);
    if (strcmp(argv[4], "-") != 0 && mt_rank() == 0) CHECK_CONTAINS(said, argv[4]);
  }

  op_par_loop(scatter_src, "scatter", edges, op_arg_dat(dw, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(dn, 0, pedge, 1, "double", OP_INC),
              op_arg_dat(dn, 1, pedge, 1, "double", OP_INC));
  double sum = 0, want_sum = 0;
  op_par_loop(total_src, "total", nodes, op_arg_dat(dn, -1, OP_ID, 1, "double", OP_READ),
              op_arg_gbl(&sum, 1, "double", OP_INC));
  memset(n, 0, NN * sizeof *n);
  for (int e = 0; e < NE; e++) {
    n[m.edge_nodes[2 * e]] += w[e];
    n[m.edge_nodes[2 * e + 1]] -= w[e];
  }
  for (int i = 0; i < NN; i++) want_sum += n[i];
  double *got = rm_alloc(NN * sizeof *got);
  op_fetch_data(dn, got); /* every rank declared the whole mesh: the whole dat comes back */
  for (int i = 0; i < NN; i++) CHECK(got[i] == n[i]);
  CHECK(sum == want_sum);
  free(w), free(n), free(got);
  rm_mesh_free(&m);
  op_exit();
  return 0;
}
