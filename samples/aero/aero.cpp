/* SPDX-License-Identifier: BSD-3-Clause */
// aero: OP2's 2-D finite-element potential-flow sample on a quadrilateral mesh, written as an OP2
// program is (C++, kernels in their own headers, OP2's three-argument op_decl_const). Newton
// iterations on the full potential equation, each solving for its step with a conjugate-gradient
// method whose matrix stays in per-cell 4x4 blocks. Checks its own result and exits non-zero
// when it is wrong.
// Usage: aero [FE_grid.dat [PHI.txt]]   (PHI.txt: the final potential, op_print_dat_to_txtfile)
// Mesh files come from aero-mesh; kernels are read from their headers (OP2_KERNEL_PATH).
#include "aero_run.h"

int main(int argc, char **argv) {
  op_init(argc, argv, 1);

  const char *file = "FE_grid.dat", *phi_out;
  aero_args(argc, argv, &file, &phi_out);

  op_printf("reading in grid\n");
  aero_mesh mesh;
  char err[1024];
  if (aero_mesh_read(file, &mesh, err, sizeof err) != 0) {
    op_printf("aero: %s\n", err);
    op_exit();
    return 1;
  }
  int nnode = mesh.nnode, ncell = mesh.ncell, nbnodes = mesh.nbnode;

  op_printf("initialising flow field\n");
  double gam = 1.4;
  aero_constants(gam);

  // the free stream along x; the rest starts at zero
  double *phim = (double *)malloc(nnode * sizeof(double));
  for (int i = 0; i < nnode; i++) phim[i] = minf * mesh.x[2 * i];
  double *K = (double *)calloc(16 * (size_t)ncell, sizeof(double));
  double *resm = (double *)calloc(nnode, sizeof(double));
  double *V = (double *)calloc(nnode, sizeof(double));
  double *P = (double *)calloc(nnode, sizeof(double));
  double *U = (double *)calloc(nnode, sizeof(double));

  // declare sets, pointers and datasets (every rank declares the whole mesh)
  op_set nodes = op_decl_set(nnode, "nodes");
  op_set bnodes = op_decl_set(nbnodes, "bedges");
  op_set cells = op_decl_set(ncell, "cells");

  op_map pbnodes = op_decl_map(bnodes, nodes, 1, mesh.bnode, "pbedge");
  op_map pcell = op_decl_map(cells, nodes, 4, mesh.cell, "pcell");

  op_dat p_xm = op_decl_dat(nodes, 2, "double", mesh.x, "p_x");
  op_dat p_phim = op_decl_dat(nodes, 1, "double", phim, "p_phim");
  op_dat p_resm = op_decl_dat(nodes, 1, "double", resm, "p_resm");
  op_dat p_K = op_decl_dat(cells, 16, "double:soa", K, "p_K");
  op_dat p_V = op_decl_dat(nodes, 1, "double", V, "p_V");
  op_dat p_P = op_decl_dat(nodes, 1, "double", P, "p_P");
  op_dat p_U = op_decl_dat(nodes, 1, "double", U, "p_U");

  op_diagnostic_output();

  int status = aero_run(nodes, bnodes, cells, pbnodes, pcell, p_xm, p_phim, p_resm, p_K, p_V, p_P,
                        p_U, phi_out);
  op_exit();

  aero_mesh_free(&mesh);
  free(phim);
  free(K);
  free(resm);
  free(V);
  free(P);
  free(U);
  return status;
}
