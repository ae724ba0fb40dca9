/* SPDX-License-Identifier: BSD-3-Clause */
/* Converts an aero mesh from FE_grid.dat text (aero_mesh_io.h) to the HDF5 file OP2's aero_hdf5
 * reads: sets nodes, bedges, cells; maps pbedge, pcell; dats p_x, p_phim (the free stream,
 * AERO_MINF * x), p_resm, p_K (16 per cell), p_V, p_P, p_U (zeros), written by the library's
 * op_dump_to_hdf5 in OP2's layout.
 * Usage: aero_to_hdf5 FE_grid.dat FE_grid.h5 (one process; the file is read in parallel later). */
#include <stdio.h>
#include <stdlib.h>

#include <op2.h>

#include "aero_mesh_io.h"

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s FE_grid.dat FE_grid.h5\n", argv[0]);
    return 2;
  }
  aero_mesh mesh;
  char err[1024];
  if (aero_mesh_read(argv[1], &mesh, err, sizeof err) != 0) {
    fprintf(stderr, "aero_to_hdf5: %s\n", err);
    return 1;
  }
  double *phim = malloc(sizeof(double) * (size_t)mesh.nnode);
  if (!phim) {
    fprintf(stderr, "aero_to_hdf5: out of memory\n");
    return 1;
  }
  for (int n = 0; n < mesh.nnode; n++) phim[n] = AERO_MINF * mesh.x[2 * n];

  op_init(argc, argv, 0);
  op_set nodes = op_decl_set(mesh.nnode, "nodes");
  op_set bnodes = op_decl_set(mesh.nbnode, "bedges");
  op_set cells = op_decl_set(mesh.ncell, "cells");
  op_decl_map(bnodes, nodes, 1, mesh.bnode, "pbedge");
  op_decl_map(cells, nodes, 4, mesh.cell, "pcell");
  op_decl_dat(nodes, 2, "double", mesh.x, "p_x");
  op_decl_dat(nodes, 1, "double", phim, "p_phim");
  op_decl_dat(cells, 16, "double:soa", NULL, "p_K");
  const char *zeros[] = {"p_resm", "p_V", "p_P", "p_U"};
  for (int k = 0; k < 4; k++) op_decl_dat(nodes, 1, "double", NULL, zeros[k]);
  free(phim);
  aero_mesh_free(&mesh);

  /* Errors go to the library's default handler, which prints them and exits with status 1. */
  op_dump_to_hdf5(argv[2]);
  op_exit();
  return 0;
}
