/* SPDX-License-Identifier: BSD-3-Clause */
// jac1 (double precision), OP2's first sample application ported as docs/PORTING.md says:
// Jacobi iterations for a Laplace-like problem on an NN x NN grid of nodes joined by edges, the
// matrix stored on the edges. The program is written as an OP2 program is: kernels in their own
// headers, passed to op_par_loop as functions.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

double alpha;  // a global constant the update kernel reads

#include "check_result.h"
#include "op_seq.h"

#include "res.h"
#include "update.h"

#define TOLERANCE 1e-12
#define NN 6     // grid size
#define NITER 2  // the check's expected values are for two steps

int main(int argc, char **argv) {
  op_init(argc, argv, 5);
  double cpu_t1, cpu_t2, wall_t1, wall_t2;

  // The grid: interior nodes (i, j), 1 <= i, j < NN; an edge from each node to itself (-1 on the
  // diagonal) and one to each interior neighbour (0.25); a missing neighbour adds 0.25 to r.
  int nnode = (NN - 1) * (NN - 1);
  int nedge = nnode + 4 * (NN - 1) * (NN - 2);
  int *pp = (int *)malloc(2 * nedge * sizeof(int));
  double *A = (double *)malloc(nedge * sizeof(double));
  double *r = (double *)calloc(nnode, sizeof(double));
  double *u = (double *)calloc(nnode, sizeof(double));
  double *du = (double *)calloc(nnode, sizeof(double));
  const int step_i[4] = {-1, 1, 0, 0}, step_j[4] = {0, 0, -1, 1};
  int e = 0;
  for (int i = 1; i < NN; i++) {
    for (int j = 1; j < NN; j++) {
      int n = i - 1 + (j - 1) * (NN - 1);
      pp[2 * e] = pp[2 * e + 1] = n;
      A[e++] = -1.0;
      for (int k = 0; k < 4; k++) {
        int i2 = i + step_i[k], j2 = j + step_j[k];
        if (i2 == 0 || i2 == NN || j2 == 0 || j2 == NN) {
          r[n] += 0.25;
          continue;
        }
        pp[2 * e] = n;
        pp[2 * e + 1] = i2 - 1 + (j2 - 1) * (NN - 1);
        A[e++] = 0.25;
      }
    }
  }

  op_set nodes = op_decl_set(nnode, "nodes");
  op_set edges = op_decl_set(nedge, "edges");
  op_map ppedge = op_decl_map(edges, nodes, 2, pp, "ppedge");
  op_dat p_A = op_decl_dat(edges, 1, "double", A, "p_A");
  op_dat p_r = op_decl_dat(nodes, 1, "double", r, "p_r");
  op_dat p_u = op_decl_dat(nodes, 1, "double", u, "p_u");
  op_dat p_du = op_decl_dat(nodes, 1, "double", du, "p_du");
  alpha = 1.0;
  op_decl_const(1, "double", &alpha);
  op_diagnostic_output();

  op_timers(&cpu_t1, &wall_t1);
  double u_sum, u_max, beta = 1.0;
  for (int iter = 0; iter < NITER; iter++) {
    op_par_loop(res, "res", edges, op_arg_dat(p_A, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(p_u, 1, ppedge, 1, "double", OP_READ),
                op_arg_dat(p_du, 0, ppedge, 1, "double", OP_INC),
                op_arg_gbl(&beta, 1, "double", OP_READ));
    u_sum = 0.0;
    u_max = 0.0;
    op_par_loop(update, "update", nodes, op_arg_dat(p_r, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(p_du, -1, OP_ID, 1, "double", OP_RW),
                op_arg_dat(p_u, -1, OP_ID, 1, "double", OP_INC),
                op_arg_gbl(&u_sum, 1, "double", OP_INC), op_arg_gbl(&u_max, 1, "double", OP_MAX));
    op_printf("\n u max/rms = %f %f \n\n", u_max, sqrt(u_sum / nnode));
  }
  op_timers(&cpu_t2, &wall_t2);

  op_printf("\n  Results after %d iterations:\n\n", NITER);
  op_fetch_data(p_u, u);
  for (int j = NN - 1; j > 0; j--) {
    for (int i = 1; i < NN; i++) op_printf(" %7.4f", u[i - 1 + (j - 1) * (NN - 1)]);
    op_printf("\n");
  }
  op_printf("\n");
  op_timing_output();
  op_printf("Max total runtime = %f\n", wall_t2 - wall_t1);

  int result = check_result<double>(u, NN, TOLERANCE);
  op_exit();
  free(pp);
  free(A);
  free(r);
  free(u);
  free(du);
  return result;
}
