/* SPDX-License-Identifier: BSD-3-Clause */
/* OP2 accepts OP_INC on a directly accessed dat (jac1, jac2 and aero do it) and treats it as an
 * increment: every element adds to its own value. Checked in a direct loop and in a loop that
 * also scatters through a map (so it runs by plan, in colours under openmp), against plain C. */
#include "test.h"

enum { NN = 5000, NE = 12000 };

static const char *bump_src =
    "static void bump(const double *w, double *u) { u[0] += 2.0 * w[0]; u[1] += 1.0; }\n";
static const char *mixed_src =
    "static void mixed(const double *w, double *u, double *a, double *b) {\n"
    "  u[0] += w[0]; *a += w[0]; *b -= 0.5 * w[0];\n"
    "}\n";

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  unsigned rng = 702;
  static double w[NE], u[2 * NE], n[NN], u_got[2 * NE], n_got[NN], u_want[2 * NE];
  static int en[2 * NE];
  for (int e = 0; e < NE; e++) {
    w[e] = (double)(test_rand(&rng) % 64) * 0.25; /* quarters: every sum is exact */
    u[2 * e] = (double)(test_rand(&rng) % 100);
    u[2 * e + 1] = -(double)e;
    en[2 * e] = e % NN;
    en[2 * e + 1] = (int)(test_rand(&rng) % NN);
  }
  for (int i = 0; i < NN; i++) n[i] = i * 0.5;
  op_set nodes = op_decl_set(NN, "nodes"), edges = op_decl_set(NE, "edges");
  op_map pedge = op_decl_map(edges, nodes, 2, en, "pedge");
  op_dat dw = op_decl_dat(edges, 1, "double", w, "w");
  op_dat du = op_decl_dat(edges, 2, "double", u, "u");
  op_dat dn = op_decl_dat(nodes, 1, "double", n, "n");

  for (int call = 0; call < 2; call++)
    op_par_loop(bump_src, "bump", edges, op_arg_dat(dw, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(du, -1, OP_ID, 2, "double", OP_INC));
  memcpy(u_want, u, sizeof u);
  for (int e = 0; e < NE; e++) {
    u_want[2 * e] += 4.0 * w[e];
    u_want[2 * e + 1] += 2.0;
  }
  op_fetch_data(du, u_got);
  for (int i = 0; i < 2 * NE; i++) CHECK(u_got[i] == u_want[i]);

  op_par_loop(mixed_src, "mixed", edges, op_arg_dat(dw, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(du, -1, OP_ID, 2, "double", OP_INC),
              op_arg_dat(dn, 0, pedge, 1, "double", OP_INC),
              op_arg_dat(dn, 1, pedge, 1, "double", OP_INC));
  for (int e = 0; e < NE; e++) {
    u_want[2 * e] += w[e];
    n[en[2 * e]] += w[e];
    n[en[2 * e + 1]] -= 0.5 * w[e];
  }
  op_fetch_data(du, u_got);
  op_fetch_data(dn, n_got);
  for (int i = 0; i < 2 * NE; i++) CHECK(u_got[i] == u_want[i]);
  for (int i = 0; i < NN; i++) CHECK(n_got[i] == n[i]);
  op_exit();
  return 0;
}
