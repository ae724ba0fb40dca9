/* SPDX-License-Identifier: BSD-3-Clause */
/* Every rank declares the whole mesh, as a program written for one process does, and leaves
 * components of its dats that no kernel reads uninitialised, as OP2-Common's jac2 does (it
 * mallocs its arrays and sets only the first component): the garbage differs from rank to rank.
 * The sets and maps, identical on every rank, still make the declaration the whole mesh, so the
 * loops' results are plain C's on the whole mesh (not those of a mesh twice the size whose
 * second copy is never updated). Usage: t411-whole-mesh-unset */
#include "mpi_test.h"

enum { NN = 90, NE = 240, NITER = 3 };

KERNEL(
    res, static void res(const double *a, const float *u, float *du, const float *beta) {
      *du += (float)((*beta) * (*a) * (*u));
    })

KERNEL(
    update, static void update(const float *r, float *du, float *u, float *u_sum, float *u_max) {
      *u += *du + 0.5f * (*r);
      *du = 0.0f;
      *u_sum += (*u) * (*u);
      *u_max = MAX(*u_max, *u);
    })

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  int rank = mt_rank();
  unsigned rng = rm_rng(411);
  int *pp = rm_map_values(NE, 2, NN, 300, &rng);
  double *A = rm_alloc(sizeof(double) * 3 * NE);
  float *r = rm_alloc(sizeof(float) * 2 * NN), *u = rm_alloc(sizeof(float) * 2 * NN);
  float *du = rm_alloc(sizeof(float) * 3 * NN);
  for (int e = 0; e < NE; e++) {
    A[3 * e] = rm_uniform(&rng, -1, 1);
    A[3 * e + 1] = A[3 * e + 2] = 1e6 * (rank + 1) + e; /* "uninitialised": never read */
  }
  for (int n = 0; n < NN; n++) {
    r[2 * n] = (float)rm_uniform(&rng, 0, 1), u[2 * n] = 0.0f, du[3 * n] = 0.0f;
    r[2 * n + 1] = u[2 * n + 1] = du[3 * n + 1] = du[3 * n + 2] = (float)(1000 * rank + n);
  }
  /* the plain-C reference, on the first components */
  float *ru = rm_alloc(sizeof(float) * NN), *rdu = rm_alloc(sizeof(float) * NN);
  for (int n = 0; n < NN; n++) ru[n] = rdu[n] = 0.0f;
  float beta = 1.0f, want_sum[NITER], want_max[NITER];
  for (int it = 0; it < NITER; it++) {
    for (int e = 0; e < NE; e++) res(A + 3 * e, ru + pp[2 * e + 1], rdu + pp[2 * e], &beta);
    want_sum[it] = 0.0f, want_max[it] = 0.0f;
    for (int n = 0; n < NN; n++) update(r + 2 * n, rdu + n, ru + n, &want_sum[it], &want_max[it]);
  }

  op_set nodes = op_decl_set(NN, "nodes"), edges = op_decl_set(NE, "edges");
  op_map ppedge = op_decl_map(edges, nodes, 2, pp, "ppedge");
  op_dat p_A = op_decl_dat(edges, 3, "double", A, "p_A");
  op_dat p_r = op_decl_dat(nodes, 2, "float", r, "p_r");
  op_dat p_u = op_decl_dat(nodes, 2, "float", u, "p_u");
  op_dat p_du = op_decl_dat(nodes, 3, "float", du, "p_du");
  for (int it = 0; it < NITER; it++) {
    op_par_loop(res_src, "res", edges, op_arg_dat(p_A, -1, OP_ID, 3, "double", OP_READ),
                op_arg_dat(p_u, 1, ppedge, 2, "float", OP_READ),
                op_arg_dat(p_du, 0, ppedge, 3, "float", OP_INC),
                op_arg_gbl(&beta, 1, "float", OP_READ));
    float u_sum = 0.0f, u_max = 0.0f;
    op_par_loop(update_src, "update", nodes, op_arg_dat(p_r, -1, OP_ID, 2, "float", OP_READ),
                op_arg_dat(p_du, -1, OP_ID, 3, "float", OP_RW),
                op_arg_dat(p_u, -1, OP_ID, 2, "float", OP_INC),
                op_arg_gbl(&u_sum, 1, "float", OP_INC), op_arg_gbl(&u_max, 1, "float", OP_MAX));
    CHECK_NEAR(u_sum, want_sum[it], 1e-5); /* summed in another order over the ranks */
    CHECK_NEAR(u_max, want_max[it], 0);
  }
  /* the whole dat comes back, in the user's order, on every rank */
  op_fetch_data(p_u, u);
  for (int n = 0; n < NN; n++) CHECK_NEAR(u[2 * n], ru[n], 1e-5);
  CHECK_EQ_INT(op_get_size(nodes), NN);
  if (rank == 0) printf("whole mesh with rank-dependent unset components: plain C's results\n");
  op_exit();
  free(pp), free(A), free(r), free(u), free(du), free(ru), free(rdu);
  return 0;
}
