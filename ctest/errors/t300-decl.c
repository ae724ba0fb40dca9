/* SPDX-License-Identifier: BSD-3-Clause */
/* Declaration errors: op_decl_set, op_decl_map, op_decl_dat and op_decl_const reject bad input
 * with a message naming the object and the bad value, return NULL (or nothing), and register
 * nothing: afterwards the good declarations work in a loop and a failed redeclaration of a
 * constant leaves its value alone. */
#include "errors_util.h"

static const char *gather_src =
    "static void gather(const double *a, const double *b, double *out, double *k) {\n"
    "  out[0] = a[0] + 10.0 * b[0] + alpha * 0.0 + k[0] * 0.0;\n"
    "  out[1] = alpha;\n"
    "}\n";

static void print_diagnostics(void) {
  op_diagnostic_output();
}

static void check_sets(void) {
  op_set s;
  EXPECT_ERROR(s = op_decl_set(-1, "cells"), "op_decl_set 'cells': size -1 is negative");
  CHECK(s == NULL);
  EXPECT_ERROR(s = op_decl_set(-2147483647, NULL), "size -2147483647 is negative");
  CHECK_CONTAINS(op_last_error(), "(unnamed)");
  CHECK(s == NULL);
  /* An empty set is legal. */
  s = op_decl_set(0, "empty");
  CHECK(s != NULL);
  CHECK_EQ_INT(op_get_size(s), 0);
  int size;
  EXPECT_ERROR(size = op_get_size(NULL), "op_get_size: set is NULL");
  CHECK_EQ_INT(size, 0);
}

static void check_maps(op_set nodes, op_set edges) {
  const int good[] = {0, 1, 1, 2, 2, 3};
  op_map m;
  EXPECT_ERROR(m = op_decl_map(NULL, nodes, 2, good, "m_from"),
               "op_decl_map 'm_from': from set is NULL");
  CHECK(m == NULL);
  EXPECT_ERROR(m = op_decl_map(edges, NULL, 2, good, "m_to"), "op_decl_map 'm_to': to set is NULL");
  CHECK(m == NULL);
  EXPECT_ERROR(m = op_decl_map(edges, nodes, 0, good, "m_dim"),
               "op_decl_map 'm_dim': dim 0 must be at least 1");
  CHECK(m == NULL);
  EXPECT_ERROR(m = op_decl_map(edges, nodes, -3, good, "m_dim"), "dim -3 must be at least 1");
  CHECK(m == NULL);
  EXPECT_ERROR(m = op_decl_map(edges, nodes, 2, NULL, "m_data"),
               "op_decl_map 'm_data': data is NULL for 3 elements");
  CHECK(m == NULL);

  /* The message locates the bad value: element 2, column 1, and the size of the target set. */
  const int too_big[] = {0, 1, 1, 2, 2, 7};
  EXPECT_ERROR(m = op_decl_map(edges, nodes, 2, too_big, "m_big"),
               "op_decl_map 'm_big': value 7 at element 2, column 1 is outside set 'nodes' "
               "(size 4)");
  CHECK(m == NULL);
  const int negative[] = {0, 1, -1, 2, 2, 3};
  EXPECT_ERROR(m = op_decl_map(edges, nodes, 2, negative, "m_neg"),
               "value -1 at element 1, column 0 is outside set 'nodes' (size 4)");
  CHECK(m == NULL);
  /* The first value equal to the size is out of range too (indices are 0-based). */
  const int edge_case[] = {0, 4, 1, 2, 2, 3};
  EXPECT_ERROR(m = op_decl_map(edges, nodes, 2, edge_case, "m_edge"),
               "value 4 at element 0, column 1 is outside set 'nodes' (size 4)");
  CHECK(m == NULL);
  /* Any value is out of range for an empty target set. */
  op_set none = op_decl_set(0, "none");
  EXPECT_ERROR(m = op_decl_map(edges, none, 1, good, "m_none"),
               "value 0 at element 0, column 0 is outside set 'none' (size 0)");
  CHECK(m == NULL);
}

static void check_dats(op_set nodes) {
  op_dat d;
  double v[8] = {0};
  EXPECT_ERROR(d = op_decl_dat(nodes, 2, "doubel", v, "q"),
               "op_decl_dat 'q': unknown type 'doubel' (use double, float, int or long long)");
  CHECK(d == NULL);
  EXPECT_ERROR(d = op_decl_dat(nodes, 2, NULL, v, "q"), "unknown type '(null)'");
  CHECK(d == NULL);
  EXPECT_ERROR(d = op_decl_dat(nodes, 0, "double", v, "q"),
               "op_decl_dat 'q': dim 0 must be at least 1");
  CHECK(d == NULL);
  EXPECT_ERROR(d = op_decl_dat(nodes, -1, "double", v, "q"), "dim -1 must be at least 1");
  CHECK(d == NULL);
  EXPECT_ERROR(d = op_decl_dat(NULL, 2, "double", v, "q"), "op_decl_dat 'q': set is NULL");
  CHECK(d == NULL);
}

static void check_consts(void) {
  double two = 2.0, pair[2] = {5.0, 6.0};
  float five = 5.0f;
  op_decl_const(1, "double", &two, "alpha");
  EXPECT_ERROR(op_decl_const(1, "double", &two, "2pi"),
               "op_decl_const: name '2pi' is not a C identifier");
  EXPECT_ERROR(op_decl_const(1, "double", &two, "a-b"), "name 'a-b' is not a C identifier");
  EXPECT_ERROR(op_decl_const(1, "double", &two, ""), "name '' is not a C identifier");
  EXPECT_ERROR(op_decl_const(1, "double", &two, NULL), "name '(null)' is not a C identifier");
  EXPECT_ERROR(op_decl_const(1, "real", &two, "beta"),
               "op_decl_const 'beta': unknown type 'real' (use double, float, int or long long)");
  EXPECT_ERROR(op_decl_const(0, "double", &two, "beta"),
               "op_decl_const 'beta': dim 0 must be at least 1");
  EXPECT_ERROR(op_decl_const(1, "double", NULL, "beta"), "op_decl_const 'beta': data is NULL");
  /* Redeclaring with another type or dim is refused and the old value stays. */
  EXPECT_ERROR(op_decl_const(1, "float", &five, "alpha"),
               "op_decl_const 'alpha': redeclared as float[1], was declared as double[1]");
  EXPECT_ERROR(op_decl_const(2, "double", pair, "alpha"),
               "op_decl_const 'alpha': redeclared as double[2], was declared as double[1]");
  EXPECT_ERROR(op_decl_const(1, "double", NULL, "alpha"), "op_decl_const 'alpha': data is NULL");
}

int main(int argc, char **argv) {
  test_catch_errors();
  op_init(argc, argv, 0);
  CHECK_EQ_INT(strlen(op_last_error()), 0);

  check_sets();
  op_set nodes = op_decl_set(4, "nodes");
  op_set edges = op_decl_set(3, "edges");
  CHECK(nodes && edges);
  check_maps(nodes, edges);
  check_dats(nodes);
  check_consts();

  /* Nothing half-declared: the failed names never reached the registry, the good ones did. */
  char *diag = eu_capture_stdout(print_diagnostics);
  CHECK_CONTAINS(diag, "nodes");
  CHECK_CONTAINS(diag, "alpha");
  const char *failed[] = {"cells",  "m_from", "m_to", "m_dim", "m_data",    "m_big", "m_neg",
                          "m_edge", "m_none", "beta", "2pi",   "(unnamed)", " q "};
  for (size_t i = 0; i < sizeof failed / sizeof failed[0]; i++) {
    if (strstr(diag, failed[i])) {
      fprintf(stderr, "failed declaration '%s' is registered:\n%s\n", failed[i], diag);
      return 1;
    }
  }
  free(diag);

  /* The good declarations still work together in a loop, and alpha kept its first value. */
  const int pedge_v[] = {0, 1, 1, 2, 2, 3};
  const double x_v[] = {1, 2, 3, 4};
  op_map pedge = op_decl_map(edges, nodes, 2, pedge_v, "pedge");
  op_dat x = op_decl_dat(nodes, 1, "double", x_v, "x");
  op_dat out = op_decl_dat(edges, 2, "double", NULL, "out");
  double k = 1.0;
  CHECK(pedge && x && out);
  op_par_loop(gather_src, "gather", edges, op_arg_dat(x, 0, pedge, 1, "double", OP_READ),
              op_arg_dat(x, 1, pedge, 1, "double", OP_READ),
              op_arg_dat(out, -1, OP_ID, 2, "double", OP_WRITE),
              op_arg_gbl(&k, 1, "double", OP_READ));
  double got[6];
  op_fetch_data(out, got);
  for (int e = 0; e < 3; e++) {
    CHECK_NEAR(got[2 * e], x_v[pedge_v[2 * e]] + 10.0 * x_v[pedge_v[2 * e + 1]], 0);
    CHECK_NEAR(got[2 * e + 1], 2.0, 0);
  }
  CHECK_EQ_INT(strlen(op_last_error()) > 0, 1); /* the last error is kept until the next one */
  op_exit();
  return 0;
}
