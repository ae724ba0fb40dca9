/* SPDX-License-Identifier: BSD-3-Clause */
// jac2, OP2's second Jacobi sample ported as docs/PORTING.md says: jac1's problem with mixed
// precision and several values per element (a double matrix with 3 values per edge, float u and
// r with 2 per node, du with 3), and a constant declared twice (the second value counts).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

float alpha;  // a global constant the update kernel reads

#include "op_seq.h"

#define STRIDE 2  // u holds two floats per node
#include "check_result.h"

#include "res.h"
#include "update.h"

#define TOLERANCE 1e-6
#define NN 6
#define NITER 2

int main(int argc, char **argv) {
  op_init(argc, argv, 5);
  double cpu_t1, cpu_t2, wall_t1, wall_t2;

  int nnode = (NN - 1) * (NN - 1);
  int nedge = nnode + 4 * (NN - 1) * (NN - 2);
  int *pp = (int *)malloc(2 * nedge * sizeof(int));
  double *A = (double *)calloc(3 * nedge, sizeof(double));
  float *r = (float *)calloc(2 * nnode, sizeof(float));
  float *u = (float *)calloc(2 * nnode, sizeof(float));
  float *du = (float *)calloc(3 * nnode, sizeof(float));
  const int step_i[4] = {-1, 1, 0, 0}, step_j[4] = {0, 0, -1, 1};
  int e = 0;
  for (int i = 1; i < NN; i++) {
    for (int j = 1; j < NN; j++) {
      int n = i - 1 + (j - 1) * (NN - 1);
      pp[2 * e] = pp[2 * e + 1] = n;
      A[3 * e++] = -1.0;
      for (int k = 0; k < 4; k++) {
        int i2 = i + step_i[k], j2 = j + step_j[k];
        if (i2 == 0 || i2 == NN || j2 == 0 || j2 == NN) {
          r[2 * n] += 0.25f;
          continue;
        }
        pp[2 * e] = n;
        pp[2 * e + 1] = i2 - 1 + (j2 - 1) * (NN - 1);
        A[3 * e++] = 0.25;
      }
    }
  }

  op_set nodes = op_decl_set(nnode, "nodes");
  op_set edges = op_decl_set(nedge, "edges");
  op_map ppedge = op_decl_map(edges, nodes, 2, pp, "ppedge");
  op_dat p_A = op_decl_dat(edges, 3, "double", A, "p_A");
  op_dat p_r = op_decl_dat(nodes, 2, "float", r, "p_r");
  op_dat p_u = op_decl_dat(nodes, 2, "float", u, "p_u");
  op_dat p_du = op_decl_dat(nodes, 3, "float", du, "p_du");
  alpha = 2.0f;
  op_decl_const(1, "float", &alpha);
  alpha = 1.0f;
  op_decl_const(1, "float", &alpha);
  op_diagnostic_output();

  op_timers(&cpu_t1, &wall_t1);
  float u_sum, u_max, beta = 1.0f;
  for (int iter = 0; iter < NITER; iter++) {
    op_par_loop(res, "res", edges, op_arg_dat(p_A, -1, OP_ID, 3, "double", OP_READ),
                op_arg_dat(p_u, 1, ppedge, 2, "float", OP_READ),
                op_arg_dat(p_du, 0, ppedge, 3, "float", OP_INC),
                op_arg_gbl(&beta, 1, "float", OP_READ));
    u_sum = 0.0f;
    u_max = 0.0f;
    op_par_loop(update, "update", nodes, op_arg_dat(p_r, -1, OP_ID, 2, "float", OP_READ),
                op_arg_dat(p_du, -1, OP_ID, 3, "float", OP_RW),
                op_arg_dat(p_u, -1, OP_ID, 2, "float", OP_INC),
                op_arg_gbl(&u_sum, 1, "float", OP_INC), op_arg_gbl(&u_max, 1, "float", OP_MAX));
    op_printf("\n u max/rms = %f %f \n\n", u_max, sqrt(u_sum / nnode));
  }
  op_timers(&cpu_t2, &wall_t2);

  op_printf("\n  Results after %d iterations:\n\n", NITER);
  op_fetch_data(p_u, u);
  for (int j = NN - 1; j > 0; j--) {
    for (int i = 1; i < NN; i++) op_printf(" %7.4f", u[2 * (i - 1 + (j - 1) * (NN - 1))]);
    op_printf("\n");
  }
  op_printf("\n");
  op_timing_output();
  op_printf("Max total runtime = %f\n", wall_t2 - wall_t1);

  int result = check_result<float>(u, NN, TOLERANCE);
  op_exit();
  free(pp);
  free(A);
  free(r);
  free(u);
  free(du);
  return result;
}
