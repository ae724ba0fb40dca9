/* SPDX-License-Identifier: BSD-3-Clause */
/* op_opt_arg_dat: with opt = 1 the argument behaves as op_arg_dat; with opt = 0 the kernel
 * receives NULL (it tests `if (p)`) and the dat behind the argument is left alone. Covered for
 * direct, single-column and vector arguments, READ, WRITE and INC, with one kernel text used both
 * ways; the reference calls the same kernel with NULL in the same places. */
#include "random_mesh.h"

enum { NE = 40000, NN = 10000, NC = 20000 };

KERNEL(
    opt_direct,
    static void opt_direct(const double *a, const double *maybe_in, double *b, double *maybe_out) {
      b[0] = a[0] * 2.0;
      b[1] = maybe_in ? maybe_in[0] : -1.0;
      if (maybe_out) maybe_out[0] = a[0] + 1.0;
    })

KERNEL(
    opt_edge,
    static void opt_edge(const double *w, const double *x0, double *n0, double *n1, int *seen) {
      double v = x0 ? w[0] * x0[0] : w[0];
      if (n0) n0[0] += v;
      if (n1) n1[0] += 2.0 * v;
      seen[0] = (x0 ? 1 : 0) + (n0 ? 2 : 0) + (n1 ? 4 : 0);
    })

KERNEL(
    opt_vec, static void opt_vec(const int *w, const int **x, int **r, int *seen) {
      int s = x ? x[0][0] + x[1][0] + x[2][0] + x[3][0] : 1;
      if (r)
        for (int j = 0; j < 4; j++) r[j][0] += s * w[0];
      seen[0] = (x ? 1 : 0) + (r ? 2 : 0);
    })

static void compare_d(const double *got, const double *want, size_t n, const char *what) {
  if (rm_plain_order())
    rm_check_same(got, want, n, sizeof *got, what);
  else
    rm_check_near(got, want, n, 1e-12, what);
}

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  rm_mesh m;
  rm_mesh_make(&m, NE, NN, NC, RM_JUMPS, 206);
  unsigned rng = rm_rng(2061);
  const int *en = m.edge_nodes, *cn = m.cell_nodes;

  /* direct: optional READ and WRITE, each on and off */
  double *a = rm_doubles(NE, -1, 1, &rng), *in = rm_doubles(NE, -1, 1, &rng);
  double *out = rm_doubles(NE, -1, 1, &rng);
  double *b = rm_alloc(2 * NE * sizeof *b), *got = rm_alloc(2 * NE * sizeof *got);
  op_dat da = op_decl_dat(m.edges, 1, "double", a, "a");
  op_dat din = op_decl_dat(m.edges, 1, "double", in, "in");
  op_dat db = op_decl_dat(m.edges, 2, "double", NULL, "b");
  op_dat dout = op_decl_dat(m.edges, 1, "double", out, "out");
  for (int on = 0; on < 4; on++) {
    int in_on = on & 1, out_on = on >> 1;
    op_par_loop(opt_direct_src, "opt_direct", m.edges,
                op_arg_dat(da, -1, OP_ID, 1, "double", OP_READ),
                op_opt_arg_dat(in_on, din, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(db, -1, OP_ID, 2, "double", OP_WRITE),
                op_opt_arg_dat(out_on, dout, -1, OP_ID, 1, "double", OP_WRITE));
    for (int e = 0; e < NE; e++)
      opt_direct(a + e, in_on ? in + e : NULL, b + 2 * e, out_on ? out + e : NULL);
    op_fetch_data(db, got);
    rm_check_same(got, b, 2 * NE, sizeof *b, "opt_direct b");
    op_fetch_data(dout, got); /* unchanged while off, a + 1 once on */
    rm_check_same(got, out, NE, sizeof *out, "opt_direct out");
  }

  /* indirect: an optional READ and two optional INCs through the mesh map */
  double *w = rm_doubles(NE, 0.5, 1.5, &rng), *x = rm_doubles(NN, 0.5, 1.5, &rng);
  double *n = rm_doubles(NN, 0, 1, &rng), *ngot = rm_alloc(NN * sizeof *ngot);
  int *seen = rm_alloc(NE * sizeof *seen), *sgot = rm_alloc(NE * sizeof *sgot);
  op_dat dw = op_decl_dat(m.edges, 1, "double", w, "w");
  op_dat dx = op_decl_dat(m.nodes, 1, "double", x, "x");
  op_dat dn = op_decl_dat(m.nodes, 1, "double", n, "n");
  op_dat dseen = op_decl_dat(m.edges, 1, "int", NULL, "seen");
  for (int on = 0; on < 8; on++) {
    int x_on = on & 1, n0_on = (on >> 1) & 1, n1_on = on >> 2;
    op_par_loop(opt_edge_src, "opt_edge", m.edges, op_arg_dat(dw, -1, OP_ID, 1, "double", OP_READ),
                op_opt_arg_dat(x_on, dx, 0, m.pedge, 1, "double", OP_READ),
                op_opt_arg_dat(n0_on, dn, 0, m.pedge, 1, "double", OP_INC),
                op_opt_arg_dat(n1_on, dn, 1, m.pedge, 1, "double", OP_INC),
                op_arg_dat(dseen, -1, OP_ID, 1, "int", OP_WRITE));
    for (int e = 0; e < NE; e++)
      opt_edge(w + e, x_on ? x + en[2 * e] : NULL, n0_on ? n + en[2 * e] : NULL,
               n1_on ? n + en[2 * e + 1] : NULL, seen + e);
    op_fetch_data(dseen, sgot);
    rm_check_same(sgot, seen, NE, sizeof *seen, "opt_edge seen");
    CHECK_EQ_INT(sgot[0], on);
    op_fetch_data(dn, ngot);
    compare_d(ngot, n, NN, "opt_edge n");
  }

  /* vector arguments switched on and off */
  int *wi = rm_ints(NC, -50, 50, &rng), *xi = rm_ints(NN, -50, 50, &rng);
  int *r = rm_ints(NN, -50, 50, &rng), *rgot = rm_alloc(NN * sizeof *rgot);
  int *cseen = rm_alloc(NC * sizeof *cseen), *cgot = rm_alloc(NC * sizeof *cgot);
  op_dat dwi = op_decl_dat(m.cells, 1, "int", wi, "wi");
  op_dat dxi = op_decl_dat(m.nodes, 1, "int", xi, "xi");
  op_dat dr = op_decl_dat(m.nodes, 1, "int", r, "r");
  op_dat dcseen = op_decl_dat(m.cells, 1, "int", NULL, "cseen");
  for (int on = 0; on < 4; on++) {
    int x_on = on & 1, r_on = on >> 1;
    op_par_loop(opt_vec_src, "opt_vec", m.cells, op_arg_dat(dwi, -1, OP_ID, 1, "int", OP_READ),
                op_opt_arg_dat(x_on, dxi, -4, m.pcell, 1, "int", OP_READ),
                op_opt_arg_dat(r_on, dr, -4, m.pcell, 1, "int", OP_INC),
                op_arg_dat(dcseen, -1, OP_ID, 1, "int", OP_WRITE));
    for (int c = 0; c < NC; c++) {
      const int *xv[4];
      int *rv[4];
      for (int j = 0; j < 4; j++) xv[j] = xi + cn[4 * c + j], rv[j] = r + cn[4 * c + j];
      opt_vec(wi + c, x_on ? xv : NULL, r_on ? rv : NULL, cseen + c);
    }
    op_fetch_data(dcseen, cgot);
    rm_check_same(cgot, cseen, NC, sizeof *cseen, "opt_vec seen");
    CHECK_EQ_INT(cgot[NC - 1], on);
    op_fetch_data(dr, rgot);
    rm_check_same(rgot, r, NN, sizeof *r, "opt_vec r");
  }

  free(a), free(in), free(out), free(b), free(got), free(w), free(x), free(n), free(ngot);
  free(seen), free(sgot), free(wi), free(xi), free(r), free(rgot), free(cseen), free(cgot);
  rm_mesh_free(&m);
  op_exit();
  return 0;
}
