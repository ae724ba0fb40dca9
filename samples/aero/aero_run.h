/* SPDX-License-Identifier: BSD-3-Clause */
// What both aero programs share: the global constants, the kernels, and once the sets, maps and
// dats are declared, the Newton iterations with their conjugate-gradient solves and the check of
// the result. Included once, by aero.cpp (mesh from FE_grid.dat) or aero_hdf5.cpp (FE_grid.h5).
#ifndef AERO_RUN_H
#define AERO_RUN_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// global constants, read by the kernels (which the program compiles too, as OP2 programs do)
double gm1, gm1i, wtg1[2], xi1[2], Ng1[4], Ng1_xi[4], wtg2[4], Ng2[16], Ng2_xi[32], minf, m2, freq,
    kappa, nmode, mfan;

#include "op_seq.h"

#include "aero_mesh_io.h"

#include "dirichlet.h"
#include "dotPV.h"
#include "dotR.h"
#include "init_cg.h"
#include "res_calc.h"
#include "spMV.h"
#include "update.h"
#include "updateP.h"
#include "updateUR.h"

#define AERO_NITER 20       // Newton iterations, as OP2's aero
#define AERO_MAXITER 200    // conjugate-gradient iterations per Newton step at most
#define AERO_RMS_TOL 1e-11  // the last Newton step's rms: the potential has converged

// The positional arguments, skipping the library's OP2_NAME=value entries: the mesh file (or
// `mesh` unchanged) and where to print the final potential (NULL: nowhere).
static void aero_args(int argc, char **argv, const char **mesh, const char **phi_out) {
  int k = 0;
  *phi_out = NULL;
  for (int a = 1; a < argc; a++) {
    if (strchr(argv[a], '=')) continue;
    if (k == 0) *mesh = argv[a];
    if (k == 1) *phi_out = argv[a];
    k++;
  }
}

// The free-stream and finite-element constants, in OP2's names, set and declared to the library
// (after op_init). The 2x2 Gauss points of the reference square [0,1]^2 are numbered g = a + 2b at
// (xi1[a], xi1[b]); a cell's corners m = p + 2q sit at (p, q) with bilinear shape functions
// N_m = f_p(xi) f_q(eta), f_0 = 1 - t, f_1 = t. Ng2[4g+m] = N_m at g; Ng2_xi[4g+m] = dN_m/dxi and
// Ng2_xi[16+4g+m] = dN_m/deta at g. The one-dimensional versions (wtg1, xi1, Ng1, Ng1_xi) and the
// fan's (freq, kappa, nmode, mfan) are declared as OP2's aero declares them; no kernel reads them.
static void aero_constants(double gam) {
  gm1 = gam - 1.0;
  gm1i = 1.0 / gm1;
  xi1[0] = 0.5 - 0.5 / sqrt(3.0);
  xi1[1] = 0.5 + 0.5 / sqrt(3.0);
  for (int a = 0; a < 2; a++) {
    wtg1[a] = 0.5;
    for (int p = 0; p < 2; p++) {
      Ng1[2 * a + p] = p ? xi1[a] : 1.0 - xi1[a];
      Ng1_xi[2 * a + p] = p ? 1.0 : -1.0;
    }
  }
  for (int g = 0; g < 4; g++) {
    double xi = xi1[g % 2], eta = xi1[g / 2];
    wtg2[g] = 0.25;
    for (int m = 0; m < 4; m++) {
      int p = m % 2, q = m / 2;
      double fx = p ? xi : 1.0 - xi, fy = q ? eta : 1.0 - eta;
      double dfx = p ? 1.0 : -1.0, dfy = q ? 1.0 : -1.0;
      Ng2[4 * g + m] = fx * fy;
      Ng2_xi[4 * g + m] = dfx * fy;
      Ng2_xi[16 + 4 * g + m] = fx * dfy;
    }
  }
  minf = AERO_MINF;
  m2 = minf * minf;
  freq = 1;
  kappa = 1;
  nmode = 0;
  mfan = 1.0;

  op_decl_const(1, "double", &gam);
  op_decl_const(1, "double", &gm1);
  op_decl_const(1, "double", &gm1i);
  op_decl_const(1, "double", &m2);
  op_decl_const(2, "double", wtg1);
  op_decl_const(2, "double", xi1);
  op_decl_const(4, "double", Ng1);
  op_decl_const(4, "double", Ng1_xi);
  op_decl_const(4, "double", wtg2);
  op_decl_const(16, "double", Ng2);
  op_decl_const(32, "double", Ng2_xi);
  op_decl_const(1, "double", &minf);
  op_decl_const(1, "double", &freq);
  op_decl_const(1, "double", &kappa);
  op_decl_const(1, "double", &nmode);
  op_decl_const(1, "double", &mfan);
}

// Newton iterations on the potential: assemble the residual R and the cells' matrices K, hold R
// at zero on the Dirichlet nodes, solve K U = R by conjugate gradients until |R| drops by 10, and
// step phi -= U. Prints the rms of every step (OP2's line), then PASSED or FAILED, the final
// potential to `phi_out` (unless NULL) and the timings; returns 0 when every solve reached its
// tolerance and the last step's rms shows a converged potential.
static int aero_run(op_set nodes, op_set bnodes, op_set cells, op_map pbnodes, op_map pcell,
                    op_dat p_xm, op_dat p_phim, op_dat p_resm, op_dat p_K, op_dat p_V, op_dat p_P,
                    op_dat p_U, const char *phi_out) {
  double cpu_t1, cpu_t2, wall_t1, wall_t2;
  op_timers(&cpu_t1, &wall_t1);
  int nnode = op_get_size(nodes), failed_solves = 0;
  double rms = 1.0, first_rms = 0.0;
  for (int iter = 1; iter <= AERO_NITER; iter++) {
    op_par_loop(res_calc, "res_calc", cells, op_arg_dat(p_xm, -4, pcell, 2, "double", OP_READ),
                op_arg_dat(p_phim, -4, pcell, 1, "double", OP_READ),
                op_arg_dat(p_K, -1, OP_ID, 16, "double:soa", OP_WRITE),
                op_arg_dat(p_resm, -4, pcell, 1, "double", OP_INC));
    op_par_loop(dirichlet, "dirichlet", bnodes,
                op_arg_dat(p_resm, 0, pbnodes, 1, "double", OP_WRITE));

    double c1 = 0, c2 = 0, c3 = 0, alpha = 0, beta = 0;
    op_par_loop(init_cg, "init_cg", nodes, op_arg_dat(p_resm, -1, OP_ID, 1, "double", OP_READ),
                op_arg_gbl(&c1, 1, "double", OP_INC),
                op_arg_dat(p_U, -1, OP_ID, 1, "double", OP_WRITE),
                op_arg_dat(p_V, -1, OP_ID, 1, "double", OP_WRITE),
                op_arg_dat(p_P, -1, OP_ID, 1, "double", OP_WRITE));
    double res0 = sqrt(c1), res = res0;
    int inner_iter = 0;
    while (res > 0.1 * res0 && inner_iter < AERO_MAXITER) {
      op_par_loop(spMV, "spMV", cells, op_arg_dat(p_V, -4, pcell, 1, "double", OP_INC),
                  op_arg_dat(p_K, -1, OP_ID, 16, "double:soa", OP_READ),
                  op_arg_dat(p_P, -4, pcell, 1, "double", OP_READ));
      op_par_loop(dirichlet, "dirichlet", bnodes,
                  op_arg_dat(p_V, 0, pbnodes, 1, "double", OP_WRITE));
      c2 = 0;
      op_par_loop(dotPV, "dotPV", nodes, op_arg_dat(p_P, -1, OP_ID, 1, "double", OP_READ),
                  op_arg_dat(p_V, -1, OP_ID, 1, "double", OP_READ),
                  op_arg_gbl(&c2, 1, "double", OP_INC));
      alpha = c1 / c2;
      // OP2's aero increments U and R directly (OP_INC on a direct dat adds, as OP_RW)
      op_par_loop(updateUR, "updateUR", nodes, op_arg_dat(p_U, -1, OP_ID, 1, "double", OP_INC),
                  op_arg_dat(p_resm, -1, OP_ID, 1, "double", OP_INC),
                  op_arg_dat(p_P, -1, OP_ID, 1, "double", OP_READ),
                  op_arg_dat(p_V, -1, OP_ID, 1, "double", OP_RW),
                  op_arg_gbl(&alpha, 1, "double", OP_READ));
      c3 = 0;
      op_par_loop(dotR, "dotR", nodes, op_arg_dat(p_resm, -1, OP_ID, 1, "double", OP_READ),
                  op_arg_gbl(&c3, 1, "double", OP_INC));
      beta = c3 / c1;
      op_par_loop(updateP, "updateP", nodes, op_arg_dat(p_resm, -1, OP_ID, 1, "double", OP_READ),
                  op_arg_dat(p_P, -1, OP_ID, 1, "double", OP_RW),
                  op_arg_gbl(&beta, 1, "double", OP_READ));
      c1 = c3;
      res = sqrt(c1);
      inner_iter++;
    }
    if (!(res <= 0.1 * res0)) failed_solves++;  // also when the residual is not a number

    rms = 0;
    op_par_loop(update, "update", nodes, op_arg_dat(p_phim, -1, OP_ID, 1, "double", OP_RW),
                op_arg_dat(p_resm, -1, OP_ID, 1, "double", OP_WRITE),
                op_arg_dat(p_U, -1, OP_ID, 1, "double", OP_READ),
                op_arg_gbl(&rms, 1, "double", OP_INC));
    rms = sqrt(rms / nnode);
    if (iter == 1) first_rms = rms;
    op_printf("rms = %10.5e iter: %d\n", rms, inner_iter);
  }

  // The check OP2's aero makes against its one mesh's known rms, made for any mesh: every linear
  // solve reached its tolerance, the first step moved the potential (the flow is not trivially
  // uniform) and the last one no longer does (Newton converged).
  int ok = failed_solves == 0 && first_rms > 1e3 * AERO_RMS_TOL && rms < AERO_RMS_TOL;
  op_printf(
      "%d nodes: first step rms %.3e, last %.3e (below %.0e wanted), %d solves short of "
      "their tolerance\n",
      nnode, first_rms, rms, AERO_RMS_TOL, failed_solves);
  op_printf("This test is considered %s\n", ok ? "PASSED" : "FAILED");
  op_timers(&cpu_t2, &wall_t2);
  if (phi_out) op_print_dat_to_txtfile(p_phim, phi_out);
  op_timing_output();
  op_printf("Max total runtime = %f\n", wall_t2 - wall_t1);
  return ok ? 0 : 1;
}

#endif
