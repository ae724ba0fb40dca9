/* SPDX-License-Identifier: BSD-3-Clause */
/* Indirect OP_WRITE and OP_RW. Through an injective map (each edge owns two cells, in random
 * order) every target is written by exactly one element, so the result is plain C's bit for bit
 * and targets no edge owns keep their values. Through the mesh's non-injective map, RW is tested
 * with updates whose result does not depend on order (a maximum, an integer sum, a count), which
 * must also be exact under every backend. */
#include "random_mesh.h"

enum { NE = 40000, NN = 10000, NC = 2 * NE + 123 }; /* 123 cells nobody owns */

KERNEL(
    write_owned, static void write_owned(const double *w, double *c0, double *c1, double *r0) {
      for (int k = 0; k < 3; k++) {
        c0[k] = w[0] * (double)(k + 1);
        c1[k] = w[0] - (double)k;
      }
      r0[0] = r0[0] * 0.5 + w[0];
    })

/* The same through a vector argument: OP_WRITE and OP_RW get `double **`. */
KERNEL(
    write_owned_vec, static void write_owned_vec(const double *w, double **c, double **r) {
      for (int j = 0; j < 2; j++) {
        for (int k = 0; k < 3; k++) c[j][k] = w[0] * (double)(j + k) + 1.0;
        r[j][0] = r[j][0] - w[0] * (double)j;
      }
    })

/* Order-independent updates of shared nodes: max of doubles and ints, integer sum and count. */
KERNEL(
    rw_shared, static void rw_shared(const double *w, const int *v, double *dmax0, double *dmax1,
                                     int *imax0, int *imax1, int *acc0, int *acc1) {
      if (w[0] > dmax0[0]) dmax0[0] = w[0];
      if (w[0] > dmax1[0]) dmax1[0] = w[0];
      imax0[0] = MAX(imax0[0], v[0]);
      imax1[0] = MAX(imax1[0], v[0]);
      acc0[0] += v[0];
      acc0[1] += 1;
      acc1[0] -= v[0];
      acc1[1] += 1;
    })

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  rm_mesh m;
  rm_mesh_make(&m, NE, NN, 1, RM_JUMPS, 203);
  unsigned rng = rm_rng(2031);
  int *own = rm_injective_values(NE, 2, NC, &rng);
  op_set owned = op_decl_set(NC, "owned");
  op_map powned = op_decl_map(m.edges, owned, 2, own, "powned");
  const int *en = m.edge_nodes;

  double *w = rm_doubles(NE, -5, 5, &rng);
  double *c = rm_doubles(3 * NC, -1, 1, &rng), *r = rm_doubles(NC, -1, 1, &rng);
  op_dat dw = op_decl_dat(m.edges, 1, "double", w, "w");
  op_dat dc = op_decl_dat(owned, 3, "double", c, "c");
  op_dat dr = op_decl_dat(owned, 1, "double", r, "r");
  double *got = rm_alloc(3 * NC * sizeof *got);

  op_par_loop(write_owned_src, "write_owned", m.edges,
              op_arg_dat(dw, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(dc, 0, powned, 3, "double", OP_WRITE),
              op_arg_dat(dc, 1, powned, 3, "double", OP_WRITE),
              op_arg_dat(dr, 0, powned, 1, "double", OP_RW));
  for (int e = 0; e < NE; e++)
    write_owned(w + e, c + 3 * own[2 * e], c + 3 * own[2 * e + 1], r + own[2 * e]);
  op_fetch_data(dc, got);
  rm_check_same(got, c, 3 * NC, sizeof *c, "write_owned c");
  op_fetch_data(dr, got);
  rm_check_same(got, r, NC, sizeof *r, "write_owned r");

  op_par_loop(write_owned_vec_src, "write_owned_vec", m.edges,
              op_arg_dat(dw, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(dc, -2, powned, 3, "double", OP_WRITE),
              op_arg_dat(dr, -2, powned, 1, "double", OP_RW));
  for (int e = 0; e < NE; e++) {
    double *cv[2] = {c + 3 * own[2 * e], c + 3 * own[2 * e + 1]};
    double *rv[2] = {r + own[2 * e], r + own[2 * e + 1]};
    write_owned_vec(w + e, cv, rv);
  }
  op_fetch_data(dc, got);
  rm_check_same(got, c, 3 * NC, sizeof *c, "write_owned_vec c");
  op_fetch_data(dr, got);
  rm_check_same(got, r, NC, sizeof *r, "write_owned_vec r");

  int *v = rm_ints(NE, -100000, 100000, &rng);
  double *dmax = rm_doubles(NN, -6, 0, &rng); /* some nodes keep their start value */
  int *imax = rm_ints(NN, -100000, 0, &rng);
  int *acc = rm_ints(2 * NN, -50, 50, &rng);
  op_dat dv = op_decl_dat(m.edges, 1, "int", v, "v");
  op_dat ddmax = op_decl_dat(m.nodes, 1, "double", dmax, "dmax");
  op_dat dimax = op_decl_dat(m.nodes, 1, "int", imax, "imax");
  op_dat dacc = op_decl_dat(m.nodes, 2, "int", acc, "acc");
  for (int call = 0; call < 3; call++) {
    op_par_loop(rw_shared_src, "rw_shared", m.edges,
                op_arg_dat(dw, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(dv, -1, OP_ID, 1, "int", OP_READ),
                op_arg_dat(ddmax, 0, m.pedge, 1, "double", OP_RW),
                op_arg_dat(ddmax, 1, m.pedge, 1, "double", OP_RW),
                op_arg_dat(dimax, 0, m.pedge, 1, "int", OP_RW),
                op_arg_dat(dimax, 1, m.pedge, 1, "int", OP_RW),
                op_arg_dat(dacc, 0, m.pedge, 2, "int", OP_RW),
                op_arg_dat(dacc, 1, m.pedge, 2, "int", OP_RW));
    for (int e = 0; e < NE; e++) {
      int a = en[2 * e], b = en[2 * e + 1];
      rw_shared(w + e, v + e, dmax + a, dmax + b, imax + a, imax + b, acc + 2 * a, acc + 2 * b);
    }
  }
  op_fetch_data(ddmax, got);
  rm_check_same(got, dmax, NN, sizeof *dmax, "rw_shared dmax");
  int *igot = rm_alloc(2 * NN * sizeof *igot);
  op_fetch_data(dimax, igot);
  rm_check_same(igot, imax, NN, sizeof *imax, "rw_shared imax");
  op_fetch_data(dacc, igot);
  rm_check_same(igot, acc, 2 * NN, sizeof *acc, "rw_shared acc");

  free(own), free(w), free(c), free(r), free(got), free(v), free(dmax), free(imax), free(acc);
  free(igot);
  rm_mesh_free(&m);
  op_exit();
  return 0;
}
