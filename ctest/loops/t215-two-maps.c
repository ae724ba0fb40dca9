/* SPDX-License-Identifier: BSD-3-Clause */
/* One dat written through two different maps in one loop: read-write, increments, read-write and
 * increments mixed, and a vector through one map with a column through another. Every update must
 * land, under every strategy: under CUDA's hierarchical strategy a dat is staged once per block
 * over the union of the elements its maps reach (with one staged copy per map, an element reached
 * through both has two copies and one copy's updates are lost at the write-back). Results are
 * compared with plain C. */
#include "random_mesh.h"

enum { NE = 4000, NN = 1000 };

KERNEL(
    rw_two, static void rw_two(double *a, double *b) {
      *a += 1.0;
      *b += 2.0;
    })
KERNEL(
    inc_two, static void inc_two(const double *w, double *a, double *b) {
      a[0] += w[0];
      b[0] += 2.0 * w[0];
      a[1] -= w[0];
      b[1] += 0.5;
    })
KERNEL(
    mixed_two, static void mixed_two(const double *w, double *a, double *b) {
      a[0] += w[0];
      b[0] += 3.0 * w[0];
    })
KERNEL(
    vec_two, static void vec_two(double **v, double *b, const double *w) {
      v[0][0] += w[0];
      v[1][0] += 0.5 * w[0];
      b[0] += 2.0 * w[0];
    })

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  unsigned rng = rm_rng(215);
  op_set edges = op_decl_set(NE, "edges"), nodes = op_decl_set(NN, "nodes");
  int *ma = rm_map_values(NE, 1, NN, RM_FULLY_RANDOM, &rng);
  int *mb = rm_map_values(NE, 1, NN, RM_FULLY_RANDOM, &rng);
  int *mv = rm_map_values(NE, 2, NN, 100, &rng);
  op_map A = op_decl_map(edges, nodes, 1, ma, "A"), B = op_decl_map(edges, nodes, 1, mb, "B");
  op_map V = op_decl_map(edges, nodes, 2, mv, "V");
  double *w = rm_doubles(NE, 0.5, 1.5, &rng);
  double *start = rm_doubles(2 * NN, -1.0, 1.0, &rng);
  op_dat dw = op_decl_dat(edges, 1, "double", w, "w");
  double *got = rm_alloc(sizeof(double) * 2 * NN), *want = rm_alloc(sizeof(double) * 2 * NN);

  /* Declared before the first loop, so the test also runs under MPI (the mesh is distributed
   * at the first loop and later declarations on its sets are refused). */
  op_dat d1 = op_decl_dat(nodes, 1, "double", start, "d1");
  op_dat d2 = op_decl_dat(nodes, 2, "double", start, "d2");
  op_dat d3 = op_decl_dat(nodes, 1, "double", start, "d3");
  op_dat d4 = op_decl_dat(nodes, 1, "double", start, "d4");

  /* the example of the issue: OP_RW through A and B; exact */
  op_par_loop(rw_two_src, "rw_two", edges, op_arg_dat(d1, 0, A, 1, "double", OP_RW),
              op_arg_dat(d1, 0, B, 1, "double", OP_RW));
  memcpy(want, start, sizeof(double) * NN);
  for (int e = 0; e < NE; e++) rw_two(want + ma[e], want + mb[e]);
  op_fetch_data(d1, got);
  rm_check_near(got, want, NN, 0, "rw_two");

  /* OP_INC through A and B, two values per node */
  op_par_loop(inc_two_src, "inc_two", edges, op_arg_dat(dw, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(d2, 0, A, 2, "double", OP_INC), op_arg_dat(d2, 0, B, 2, "double", OP_INC));
  memcpy(want, start, sizeof(double) * 2 * NN);
  for (int e = 0; e < NE; e++) inc_two(w + e, want + 2 * ma[e], want + 2 * mb[e]);
  op_fetch_data(d2, got);
  rm_check_near(got, want, 2 * NN, 1e-12, "inc_two");

  /* OP_RW through A, OP_INC through B */
  op_par_loop(mixed_two_src, "mixed_two", edges, op_arg_dat(dw, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(d3, 0, A, 1, "double", OP_RW), op_arg_dat(d3, 0, B, 1, "double", OP_INC));
  memcpy(want, start, sizeof(double) * NN);
  for (int e = 0; e < NE; e++) mixed_two(w + e, want + ma[e], want + mb[e]);
  op_fetch_data(d3, got);
  rm_check_near(got, want, NN, 1e-12, "mixed_two");

  /* OP_INC of a two-column vector through V and of a column through B */
  op_par_loop(vec_two_src, "vec_two", edges, op_arg_dat(d4, -2, V, 1, "double", OP_INC),
              op_arg_dat(d4, 0, B, 1, "double", OP_INC),
              op_arg_dat(dw, -1, OP_ID, 1, "double", OP_READ));
  memcpy(want, start, sizeof(double) * NN);
  for (int e = 0; e < NE; e++) {
    double *v[2] = {want + mv[2 * e], want + mv[2 * e + 1]};
    vec_two(v, want + mb[e], w + e);
  }
  op_fetch_data(d4, got);
  rm_check_near(got, want, NN, 1e-12, "vec_two");

  free(ma), free(mb), free(mv), free(w), free(start), free(got), free(want);
  op_exit();
  return 0;
}
