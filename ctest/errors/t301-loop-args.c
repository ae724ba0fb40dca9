/* SPDX-License-Identifier: BSD-3-Clause */
/* op_par_loop argument errors. Every bad call must be refused before anything runs, with a message
 * "op_par_loop 'NAME', argument N: ..." naming the dats, maps and sets involved. After each one
 * the output dat must hold exactly what it held before, a global must be untouched, and a correct
 * loop must still run and give the right answer. */
#include "errors_util.h"

/* If a bad call got through, this kernel would change e (and so be caught). It takes its second
 * argument as void * so that it compiles whatever that argument is. */
static const char *bad_src =
    "static void bad(double *e, const void *a) { (void)a; e[0] = 2.0 * e[0] + 1.0; }\n";
static const char *bad3_src =
    "static void bad3(double *e, const void *a, const void *b) {\n"
    "  (void)a, (void)b;\n"
    "  e[0] = 2.0 * e[0] + 1.0;\n"
    "}\n";
static const char *add_src = "static void add_one(double *e) { e[0] += 1.0; }\n";
static const char *gather_src =
    "static void gather(double *e, const double *const *x, const int *i0, const int *n,\n"
    "                   const double *g, double *sum) {\n"
    "  e[0] = x[0][0] + x[1][1] + 100.0 * *i0 + 1000.0 * *n + g[0];\n"
    "  sum[0] += e[0];\n"
    "}\n";

static op_set nodes, edges, cells;
static op_map pedge, pcn, pec;
static op_dat x, e, c;
static double expect_e[3];
static double g = 7.0;
static long failures;

static const int pedge_v[] = {0, 1, 1, 2, 2, 3};
static const double x_v[] = {1, 2, 3, 4, 5, 6, 7, 8};

static void check_e(int line) {
  double got[3];
  op_fetch_data(e, got);
  for (int i = 0; i < 3; i++) {
    if (got[i] != expect_e[i]) {
      fprintf(stderr, "line %d: e[%d] is %g, expected %g\n", line, i, got[i], expect_e[i]);
      exit(1);
    }
  }
}

/* After a refused call: nothing ran, the global is as it was, and the library still works. */
static void after_failure(int line) {
  check_e(line);
  if (g != 7.0) {
    fprintf(stderr, "line %d: global changed to %g\n", line, g);
    exit(1);
  }
  failures++;
  op_par_loop(add_src, "add_one", edges, op_arg_dat(e, -1, OP_ID, 1, "double", OP_RW));
  for (int i = 0; i < 3; i++) expect_e[i] += 1.0;
  check_e(line);
}

/* Built with OP2_TEST_AT_CALL (t301-loop-args-at-call): each refusal must come before the bad
 * call returns, lazy execution on or off (the checks need no data, so a queued call is checked
 * when it is queued). */
#ifdef OP2_TEST_AT_CALL
#define EXPECT_LOOP_ERROR EXPECT_ERROR_AT_CALL
#else
#define EXPECT_LOOP_ERROR EXPECT_ERROR
#endif

#define LOOP_ERROR(stmt, needle)     \
  do {                               \
    EXPECT_LOOP_ERROR(stmt, needle); \
    after_failure(__LINE__);         \
  } while (0)

/* The bad argument is argument 1 of loop 'bad'; argument 0 is a correct RW of e. */
#define BAD_ARG1(arg, needle)                                                                \
  LOOP_ERROR(                                                                                \
      op_par_loop(bad_src, "bad", edges, op_arg_dat(e, -1, OP_ID, 1, "double", OP_RW), arg), \
      "op_par_loop 'bad', argument 1: " needle)

static void setup(void) {
  nodes = op_decl_set(4, "nodes");
  edges = op_decl_set(3, "edges");
  cells = op_decl_set(2, "cells");
  const int pcn_v[] = {0, 3, 1, 2};
  const int pec_v[] = {0, 1, 1};
  const double e_v[] = {10, 20, 30};
  pedge = op_decl_map(edges, nodes, 2, pedge_v, "pedge");
  pcn = op_decl_map(cells, nodes, 2, pcn_v, "pcn");
  pec = op_decl_map(edges, cells, 1, pec_v, "pec");
  x = op_decl_dat(nodes, 2, "double", x_v, "x");
  e = op_decl_dat(edges, 1, "double", e_v, "e");
  c = op_decl_dat(cells, 1, "double", NULL, "c");
  CHECK(pedge && pcn && pec && x && e && c);
  memcpy(expect_e, e_v, sizeof expect_e);
}

/* The constructs the bad calls below get wrong, used correctly, so that each refusal is due to
 * the one thing changed. */
static void good_loops(void) {
  op_par_loop(bad_src, "bad", edges, op_arg_dat(e, -1, OP_ID, 1, "double", OP_RW),
              op_arg_dat(x, 0, pedge, 2, "double", OP_READ));
  for (int i = 0; i < 3; i++) expect_e[i] = 2.0 * expect_e[i] + 1.0;
  check_e(__LINE__);
  double sum = 0;
  op_par_loop(gather_src, "gather", edges, op_arg_dat(e, -1, OP_ID, 1, "double", OP_WRITE),
              op_arg_dat(x, -2, pedge, 2, "double", OP_READ), op_arg_idx(0, pedge),
              op_arg_idx(-1, OP_ID), op_arg_gbl(&g, 1, "double", OP_READ),
              op_arg_gbl(&sum, 1, "double", OP_INC));
  double want_sum = 0;
  for (int n = 0; n < 3; n++) {
    int a = pedge_v[2 * n], b = pedge_v[2 * n + 1];
    expect_e[n] = x_v[2 * a] + x_v[2 * b + 1] + 100.0 * a + 1000.0 * n + g;
    want_sum += expect_e[n];
  }
  check_e(__LINE__);
  CHECK_NEAR(sum, want_sum, 1e-14);
}

static void bad_loop_level(void) {
  LOOP_ERROR(op_par_loop(add_src, "not an id", edges, op_arg_dat(e, -1, OP_ID, 1, "double", OP_RW)),
             "op_par_loop: loop name 'not an id' is not a C identifier");
  LOOP_ERROR(op_par_loop(add_src, "9lives", edges, op_arg_dat(e, -1, OP_ID, 1, "double", OP_RW)),
             "loop name '9lives' is not a C identifier");
  LOOP_ERROR(op_par_loop(add_src, "", edges, op_arg_dat(e, -1, OP_ID, 1, "double", OP_RW)),
             "loop name '' is not a C identifier");
  LOOP_ERROR(op_par_loop(add_src, NULL, edges, op_arg_dat(e, -1, OP_ID, 1, "double", OP_RW)),
             "loop name '(null)' is not a C identifier");
  LOOP_ERROR(op_par_loop(add_src, "while", edges, op_arg_dat(e, -1, OP_ID, 1, "double", OP_RW)),
             "op_par_loop 'while': the loop name is reserved");
  LOOP_ERROR(op_par_loop(add_src, "op2_add", edges, op_arg_dat(e, -1, OP_ID, 1, "double", OP_RW)),
             "op_par_loop 'op2_add': the loop name is reserved");
  char long_name[202];
  memset(long_name, 'a', 201);
  long_name[201] = '\0';
  LOOP_ERROR(op_par_loop(add_src, long_name, edges, op_arg_dat(e, -1, OP_ID, 1, "double", OP_RW)),
             "is not a C identifier of at most 200 characters");
  LOOP_ERROR(op_par_loop("", "add_one", edges, op_arg_dat(e, -1, OP_ID, 1, "double", OP_RW)),
             "op_par_loop 'add_one': kernel source is empty");
  LOOP_ERROR(op_par_loop(NULL, "add_one", edges, op_arg_dat(e, -1, OP_ID, 1, "double", OP_RW)),
             "op_par_loop 'add_one': kernel source is empty");
  LOOP_ERROR(op_par_loop(add_src, "add_one", NULL, op_arg_dat(e, -1, OP_ID, 1, "double", OP_RW)),
             "op_par_loop 'add_one': set is NULL");
  LOOP_ERROR(op_par_loop_args(add_src, "add_one", edges, 0, NULL),
             "op_par_loop 'add_one': no arguments");
  op_arg junk;
  memset(&junk, 0, sizeof junk);
  BAD_ARG1(junk, "not built by op_arg_dat, op_arg_gbl or op_arg_idx");
}

static void bad_dat_args(void) {
  BAD_ARG1(op_arg_dat(NULL, 0, pedge, 2, "double", OP_READ), "dat is NULL");
  BAD_ARG1(op_arg_dat(x, 0, pedge, 3, "double", OP_READ), "dim 3 does not match dat 'x' of dim 2");
  BAD_ARG1(op_arg_dat(x, 0, pedge, 2, "float", OP_READ),
           "type 'float' does not match dat 'x' of type 'double'");
  BAD_ARG1(op_arg_dat(x, 0, pedge, 2, "dbl", OP_READ),
           "type 'dbl' does not match dat 'x' of type 'double'");
  BAD_ARG1(op_arg_dat(x, 0, pcn, 2, "double", OP_READ),
           "map 'pcn' goes from set 'cells', but the loop runs over set 'edges'");
  BAD_ARG1(op_arg_dat(x, 0, pec, 2, "double", OP_READ),
           "map 'pec' goes to set 'cells', but dat 'x' is on set 'nodes'");
  BAD_ARG1(op_arg_dat(x, 2, pedge, 2, "double", OP_READ),
           "index 2 is out of range for map 'pedge' of arity 2");
  BAD_ARG1(op_arg_dat(x, 57, pedge, 2, "double", OP_READ),
           "index 57 is out of range for map 'pedge' of arity 2");
  BAD_ARG1(op_arg_dat(x, -3, pedge, 2, "double", OP_READ),
           "index -3 is out of range for map 'pedge' of arity 2");
  BAD_ARG1(op_arg_dat(x, -1, pedge, 2, "double", OP_READ),
           "index -1 means direct access: use OP_ID instead of map 'pedge'");
  CHECK_CONTAINS(op_last_error(), "'pedge'");
  BAD_ARG1(op_arg_dat(e, 0, OP_ID, 1, "double", OP_READ),
           "index 0 given with OP_ID for dat 'e' (direct access uses -1)");
  BAD_ARG1(op_arg_dat(x, -1, OP_ID, 2, "double", OP_READ),
           "dat 'x' is on set 'nodes', but the loop runs over set 'edges'");
  BAD_ARG1(op_arg_dat(x, 0, pedge, 2, "double", OP_MIN),
           "OP_MIN is only for op_arg_gbl, not for dat 'x'");
  BAD_ARG1(op_arg_dat(x, 0, pedge, 2, "double", OP_MAX),
           "OP_MAX is only for op_arg_gbl, not for dat 'x'");
  BAD_ARG1(op_arg_dat(x, 0, pedge, 2, "double", (op_access)42), "access mode 42 is not valid");
  BAD_ARG1(op_arg_dat(x, 0, pedge, 2, "double", (op_access)-1), "access mode -1 is not valid");
  /* The argument number counts from 0 and points at the bad one, here the third. */
  LOOP_ERROR(op_par_loop(bad3_src, "bad3", edges, op_arg_dat(e, -1, OP_ID, 1, "double", OP_RW),
                         op_arg_dat(x, 1, pedge, 2, "double", OP_READ),
                         op_arg_dat(c, 1, pec, 1, "double", OP_READ)),
             "op_par_loop 'bad3', argument 2: index 1 is out of range for map 'pec' of arity 1");
  /* A refused shape is not remembered as good: the same call fails again. */
  for (int rep = 0; rep < 2; rep++)
    BAD_ARG1(op_arg_dat(x, 0, pcn, 2, "double", OP_READ), "map 'pcn' goes from set 'cells'");
}

static void bad_gbl_args(void) {
  BAD_ARG1(op_arg_gbl(&g, 1, "double", OP_WRITE),
           "OP_WRITE is not allowed on a global (use OP_READ, OP_INC, OP_MIN or OP_MAX)");
  BAD_ARG1(op_arg_gbl(&g, 1, "double", OP_RW), "OP_RW is not allowed on a global");
  BAD_ARG1(op_arg_gbl(&g, 1, "double", (op_access)42), "access mode 42 is not valid");
  BAD_ARG1(op_arg_gbl(NULL, 1, "double", OP_READ), "global data is NULL");
  BAD_ARG1(op_arg_gbl(NULL, 1, "double", OP_INC), "global data is NULL");
  BAD_ARG1(op_arg_gbl(&g, 1, "doubles", OP_INC),
           "unknown type 'doubles' for a global (use double, float, int or long long)");
  BAD_ARG1(op_arg_gbl(&g, 1, NULL, OP_READ), "unknown type '(null)' for a global");
  BAD_ARG1(op_arg_gbl(&g, 0, "double", OP_INC), "global dim 0 must be at least 1");
}

static void bad_idx_args(void) {
  BAD_ARG1(op_arg_idx(2, pedge), "index 2 is out of range for map 'pedge' of arity 2");
  BAD_ARG1(op_arg_idx(-2, pedge), "index -2 is out of range for map 'pedge' of arity 2");
  BAD_ARG1(op_arg_idx(-1, pedge),
           "index -1 means direct access: use OP_ID instead of map 'pedge', a column 0..1, or -2");
  BAD_ARG1(op_arg_idx(0, pcn),
           "map 'pcn' goes from set 'cells', but the loop runs over set 'edges'");
  BAD_ARG1(op_arg_idx(0, OP_ID), "op_arg_idx index 0 given with OP_ID (use -1)");
}

static void print_timing(void) {
  op_timing_output();
}

/* Calls recorded for a loop in op_timing_output(), or -1 when it is not listed. */
static long timing_calls(const char *report, const char *loop) {
  char key[64];
  snprintf(key, sizeof key, "\n  %s ", loop);
  const char *p = strstr(report, key);
  if (!p) return -1;
  long calls = -1;
  char name[64];
  CHECK(sscanf(p + 1, "%63s %ld", name, &calls) == 2);
  return calls;
}

int main(int argc, char **argv) {
  test_catch_errors();
  op_init(argc, argv, 0);
  setup();
  good_loops();
  bad_loop_level();
  bad_dat_args();
  bad_gbl_args();
  bad_idx_args();

  /* Refused calls are not counted as calls of the loop. */
  char *report = eu_capture_stdout(print_timing);
  CHECK_EQ_INT(timing_calls(report, "bad"), 1);
  CHECK_EQ_INT(timing_calls(report, "bad3"), -1);
  CHECK_EQ_INT(timing_calls(report, "gather"), 1);
  CHECK_EQ_INT(timing_calls(report, "add_one"), failures);
  free(report);
  op_exit();
  return 0;
}
