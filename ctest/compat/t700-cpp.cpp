/* SPDX-License-Identifier: BSD-3-Clause */
// op2.h from C++: the same call forms as in C (op_par_loop with its argument list, typed pointers
// for data, const data for a read-only global) on a small mesh: a direct loop, an indirect
// increment and reductions, each compared with the same computation in plain loops.
#include <op2.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cxx_check.h"

static const char *scale_src =
    "void scale(const double *f, const double *x, double *y) { y[0] = f[0] * x[0] + alpha; }\n";
static const char *spread_src =
    "void spread(const double *w, double *a, double *b) { *a += w[0]; *b += 2.0 * w[0]; }\n";
static const char *stats_src =
    "void stats(const double *x, double *sum, double *lo, int *count) {\n"
    "  *sum += x[0]; *lo = MIN(*lo, x[0]); *count += 1;\n"
    "}\n";

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  const int nnode = 1000, nedge = 2999;
  std::vector<int> edge_nodes(2 * nedge);
  std::vector<double> x(nedge), w(nedge);
  unsigned s = 12345;
  for (int e = 0; e < nedge; e++) {
    s = s * 1103515245u + 12345u;
    edge_nodes[2 * e] = e % nnode;
    edge_nodes[2 * e + 1] = (int)((s >> 8) % (unsigned)nnode);
    x[e] = (double)((s >> 4) % 1000) / 37.0 - 10.0;
    w[e] = 0.5 + (double)(e % 17);
  }
  op_set nodes = op_decl_set(nnode, "nodes");
  op_set edges = op_decl_set(nedge, "edges");
  op_map pedge = op_decl_map(edges, nodes, 2, edge_nodes.data(), "pedge");
  op_dat px = op_decl_dat(edges, 1, "double", x.data(), "x");
  op_dat py = op_decl_dat(edges, 1, "double", nullptr, "y");
  op_dat pw = op_decl_dat(edges, 1, "double", w.data(), "w");
  op_dat pn = op_decl_dat(nodes, 1, "double", nullptr, "n");

  double alpha = 1.0;
  op_decl_const(1, "double", &alpha);  // OP2's three-argument form, from C++ too
  const double factor = 3.0;           // const: a read-only global from C++
  op_par_loop(scale_src, "scale", edges, op_arg_gbl(&factor, 1, "double", OP_READ),
              op_arg_dat(px, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(py, -1, OP_ID, 1, "double", OP_WRITE));
  std::vector<double> y(nedge);
  op_fetch_data(py, y.data());
  for (int e = 0; e < nedge; e++) CHECK(y[e] == factor * x[e] + alpha);
  op_printf("C++: %d edges\n", nedge);

  op_par_loop(spread_src, "spread", edges, op_arg_dat(pw, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(pn, 0, pedge, 1, "double", OP_INC),
              op_arg_dat(pn, 1, pedge, 1, "double", OP_INC));
  std::vector<double> n(nnode), want(nnode, 0.0);
  for (int e = 0; e < nedge; e++) {
    want[edge_nodes[2 * e]] += w[e];
    want[edge_nodes[2 * e + 1]] += 2.0 * w[e];
  }
  op_fetch_data(pn, n.data());
  // w holds halves and integers: every partial sum is exact, so any order gives the same value
  for (int i = 0; i < nnode; i++) CHECK(n[i] == want[i]);

  double sum = 0.0, lo = 1e300, want_sum = 0.0, want_lo = 1e300;
  int count = 7;
  op_par_loop(stats_src, "stats", edges, op_arg_dat(px, -1, OP_ID, 1, "double", OP_READ),
              op_arg_gbl(&sum, 1, "double", OP_INC), op_arg_gbl(&lo, 1, "double", OP_MIN),
              op_arg_gbl(&count, 1, "int", OP_INC));
  for (int e = 0; e < nedge; e++) {
    want_sum += x[e];
    want_lo = x[e] < want_lo ? x[e] : want_lo;
  }
  CHECK(std::fabs(sum - want_sum) <= 1e-9 * std::fabs(want_sum) + 1e-9);
  CHECK(lo == want_lo);
  CHECK(count == 7 + nedge);
  op_exit();
  return 0;
}
