/* SPDX-License-Identifier: BSD-3-Clause */
/* A loop of more arguments than the CUDA backends take (OP2_CUDA_MAX_ARGS, 64): the CPU backends
 * run it like any other loop; under CUDA (and its emulator) it is refused by a clear error that
 * names the loop, the limit and the count, before anything runs. The kernel source is written
 * here: 69 arguments, 66 of them read through a map (two columns, alternating), one sum through
 * the map, one direct write and one global reduction. */
#include "random_mesh.h"

enum { NARGS = 69, NREAD = NARGS - 3, NE = 300, NN = 120 };

static char *many_src(void) {
  char *src = rm_alloc(16384);
  int n = sprintf(src, "void many(");
  for (int k = 0; k < NREAD; k++) n += sprintf(src + n, "const double *x%d, ", k);
  n += sprintf(src + n, "double *acc, double *out, double *total) {\n  double s = 0;\n");
  for (int k = 0; k < NREAD; k++) n += sprintf(src + n, "  s += (%d + 1) * x%d[0];\n", k, k);
  sprintf(src + n, "  acc[0] += s;\n  out[0] = s;\n  *total += s;\n}\n");
  return src;
}

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  test_catch_errors();
  unsigned rng = rm_rng(214);
  op_set edges = op_decl_set(NE, "edges"), nodes = op_decl_set(NN, "nodes");
  int *e2n = rm_map_values(NE, 2, NN, 100, &rng);
  double *x = rm_doubles(NN, -1.0, 1.0, &rng);
  op_map pedge = op_decl_map(edges, nodes, 2, e2n, "pedge");
  op_dat dx = op_decl_dat(nodes, 1, "double", x, "x");
  op_dat dacc = op_decl_dat(nodes, 1, "double", NULL, "acc");
  op_dat dout = op_decl_dat(edges, 1, "double", NULL, "out");
  double total = 0;
  op_arg args[NARGS];
  for (int k = 0; k < NREAD; k++) args[k] = op_arg_dat(dx, k % 2, pedge, 1, "double", OP_READ);
  args[NREAD] = op_arg_dat(dacc, 0, pedge, 1, "double", OP_INC);
  args[NREAD + 1] = op_arg_dat(dout, -1, OP_ID, 1, "double", OP_WRITE);
  args[NREAD + 2] = op_arg_gbl(&total, 1, "double", OP_INC);
  char *src = many_src();
  const char *backend = getenv("OP2_BACKEND");
  if (backend && !strncmp(backend, "cuda", 4)) {
    EXPECT_ERROR(op_par_loop_args(src, "many", edges, NARGS, args),
                 "op_par_loop 'many': the CUDA backends take at most 64 arguments, this loop "
                 "has 69");
    CHECK_EQ_INT(total, 0); /* nothing ran */
    printf("refused under %s, as documented\n", backend);
  } else {
    op_par_loop_args(src, "many", edges, NARGS, args);
    double *acc = rm_alloc(NN * sizeof *acc), *out = rm_alloc(NE * sizeof *out);
    double want_total = 0, *want_acc = calloc(NN, sizeof *want_acc);
    for (int e = 0; e < NE; e++) {
      double s = 0;
      for (int k = 0; k < NREAD; k++) s += (k + 1) * x[e2n[2 * e + k % 2]];
      want_acc[e2n[2 * e]] += s;
      want_total += s;
      out[e] = s;
    }
    double got[NE > NN ? NE : NN];
    op_fetch_data(dout, got);
    rm_check_near(got, out, NE, 1e-12, "many out");
    op_fetch_data(dacc, acc);
    rm_check_near(acc, want_acc, NN, 1e-12, "many acc");
    CHECK_NEAR(total, want_total, 1e-12);
    free(acc), free(out), free(want_acc);
  }
  free(src), free(e2n), free(x);
  op_exit();
  return 0;
}
