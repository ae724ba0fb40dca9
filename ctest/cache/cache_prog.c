/* SPDX-License-Identifier: BSD-3-Clause */
/* The program the cache tests run as fresh processes. Four loops: 'init' (direct, a constant and
 * the element index), 'spread' (indirect increments through an edge->node map), 'fill' (a dat of
 * variable dim) and 'total' (a global reduction). Results are checked against plain C here, so a
 * wrong kernel loaded from a damaged cache fails the run. Arguments pick variants that must or
 * must not change a kernel's cache key:
 *   n=N         nodes = edges = N (default 64)         same keys
 *   datname=S   the name of dat 'x'                    same keys
 *   kernel=alt  other source text for 'spread'         new key for spread
 *   kernel=broken  'spread' with a syntax error: the run fails at that loop
 *   dim=2       the dim of the dat 'fill' writes        new key for fill
 *   access=rw   OP_RW instead of OP_WRITE in 'init'     new key for init
 *   scale=V     the value of the constant 'scale'      new key for init
 *   wait=1      waits for the optimising builds before op_exit (tiered: they are sure to run)
 * Prints "result ..." (identical for runs that must agree) and
 * "counters compiled C disk D refused R" from the library's own counters, then
 * op_timing_output(), whose summary line the tests cross-check against the counters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/jit.h"
#include "runtime/op2_impl.h"
#include "test.h"

static const char *init_src = "void init(double *x, const int *i) { x[0] = scale * i[0]; }\n";
static const char *spread_src =
    "void spread(const double *xa, const double *xb, double *aa, double *ab) {\n"
    "  aa[0] += xb[0];\n"
    "  ab[0] += xa[0];\n"
    "}\n";
static const char *spread_alt_src =
    "void spread(const double *xa, const double *xb, double *aa, double *ab) {\n"
    "  ab[0] += xa[0];\n"
    "  aa[0] += xb[0];\n"
    "}\n";
static const char *spread_broken_src =
    "void spread(const double *xa, const double *xb, double *aa, double *ab) {\n"
    "  aa[0] += xb[0]\n"
    "  ab[0] += xa[0];\n"
    "}\n";
static const char *fill_src = "void fill(double *v, const int *i) { v[0] = i[0] + 1; }\n";
static const char *total_src = "void total(const double *a, double *s) { s[0] += a[0]; }\n";

static const char *arg_value(int argc, char **argv, const char *key, const char *fallback) {
  size_t n = strlen(key);
  for (int i = 1; i < argc; i++)
    if (strncmp(argv[i], key, n) == 0 && argv[i][n] == '=') return argv[i] + n + 1;
  return fallback;
}

int main(int argc, char **argv) {
  int n = atoi(arg_value(argc, argv, "n", "64"));
  int dim = atoi(arg_value(argc, argv, "dim", "1"));
  double scale = atof(arg_value(argc, argv, "scale", "2"));
  const char *datname = arg_value(argc, argv, "datname", "x");
  int alt = strcmp(arg_value(argc, argv, "kernel", ""), "alt") == 0;
  int broken = strcmp(arg_value(argc, argv, "kernel", ""), "broken") == 0;
  op_access init_acc = strcmp(arg_value(argc, argv, "access", ""), "rw") == 0 ? OP_RW : OP_WRITE;
  CHECK(n >= 3 && dim >= 1 && dim <= 4);

  op_init(argc, argv, 0);
  int *edge = malloc(2 * sizeof(int) * (size_t)n);
  CHECK(edge);
  for (int e = 0; e < n; e++) edge[2 * e] = e, edge[2 * e + 1] = (e + 1) % n;
  op_set nodes = op_decl_set(n, "nodes");
  op_set edges = op_decl_set(n, "edges");
  op_map pedge = op_decl_map(edges, nodes, 2, edge, "pedge");
  op_dat x = op_decl_dat(nodes, 1, "double", NULL, datname);
  op_dat acc = op_decl_dat(nodes, 1, "double", NULL, "acc");
  op_dat v = op_decl_dat(nodes, dim, "double", NULL, "v");
  op_decl_const(1, "double", &scale, "scale");

  op_par_loop(init_src, "init", nodes, op_arg_dat(x, -1, OP_ID, 1, "double", init_acc),
              op_arg_idx(-1, OP_ID));
  op_par_loop(broken ? spread_broken_src
              : alt  ? spread_alt_src
                     : spread_src,
              "spread", edges, op_arg_dat(x, 0, pedge, 1, "double", OP_READ),
              op_arg_dat(x, 1, pedge, 1, "double", OP_READ),
              op_arg_dat(acc, 0, pedge, 1, "double", OP_INC),
              op_arg_dat(acc, 1, pedge, 1, "double", OP_INC));
  op_par_loop(fill_src, "fill", nodes, op_arg_dat(v, -1, OP_ID, dim, "double", OP_WRITE),
              op_arg_idx(-1, OP_ID));
  double sum = 0;
  op_par_loop(total_src, "total", nodes, op_arg_dat(acc, -1, OP_ID, 1, "double", OP_READ),
              op_arg_gbl(&sum, 1, "double", OP_INC));

  double *xs = malloc(sizeof(double) * (size_t)n), *as = malloc(sizeof(double) * (size_t)n);
  double *vs = malloc(sizeof(double) * (size_t)n * (size_t)dim);
  CHECK(xs && as && vs);
  op_fetch_data(x, xs);
  op_fetch_data(acc, as);
  op_fetch_data(v, vs);
  double checksum = 0;
  for (int i = 0; i < n; i++) {
    CHECK_EQ_INT(xs[i] == scale * i, 1);
    CHECK_EQ_INT(as[i] == scale * ((i + 1) % n) + scale * ((i + n - 1) % n), 1);
    for (int c = 0; c < dim; c++) CHECK_EQ_INT(vs[i * dim + c] == (c == 0 ? i + 1 : 0), 1);
    checksum += xs[i] + 3 * as[i] + 5 * vs[i * dim];
  }
  CHECK_EQ_INT(sum == scale * n * (n - 1), 1);
  printf("result n %d dim %d scale %.17g sum %.17g checksum %.17g\n", n, dim, scale, sum, checksum);
  const op2_jit_counters *jc = &op2_ctx()->jit;
  printf("counters compiled %d disk %d refused %d\n", jc->compiles, jc->disk_hits,
         jc->disk_rejects);
  fflush(stdout);
  if (atoi(arg_value(argc, argv, "wait", "0"))) op2_jit_wait_all(op2_ctx());
  op_timing_output();
  fflush(stdout);
  free(edge), free(xs), free(as), free(vs);
  op_exit();
  return 0;
}
