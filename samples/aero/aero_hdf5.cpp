/* SPDX-License-Identifier: BSD-3-Clause */
// aero_hdf5: the aero sample (see aero.cpp) with its mesh and initial fields read from OP2's HDF5
// layout, as OP2's aero_hdf5 reads them; under MPI each rank reads its part of the file and
// op_partition distributes the cells with PT-Scotch.
// Usage: aero_hdf5 [FE_grid.h5 [PHI.txt]]   (FE_grid.h5 from aero_to_hdf5)
#include "aero_run.h"

int main(int argc, char **argv) {
  op_init(argc, argv, 1);

  const char *file = "FE_grid.h5", *phi_out;
  aero_args(argc, argv, &file, &phi_out);

  op_printf("initialising flow field\n");
  double gam = 1.4;
  aero_constants(gam);

  // declare sets, pointers and datasets
  op_set nodes = op_decl_set_hdf5(file, "nodes");
  op_set bnodes = op_decl_set_hdf5(file, "bedges");
  op_set cells = op_decl_set_hdf5(file, "cells");

  op_map pbnodes = op_decl_map_hdf5(bnodes, nodes, 1, file, "pbedge");
  op_map pcell = op_decl_map_hdf5(cells, nodes, 4, file, "pcell");

  op_dat p_xm = op_decl_dat_hdf5(nodes, 2, "double", file, "p_x");
  op_dat p_phim = op_decl_dat_hdf5(nodes, 1, "double", file, "p_phim");
  op_dat p_resm = op_decl_dat_hdf5(nodes, 1, "double", file, "p_resm");
  op_dat p_K = op_decl_dat_hdf5(cells, 16, "double:soa", file, "p_K");
  op_dat p_V = op_decl_dat_hdf5(nodes, 1, "double", file, "p_V");
  op_dat p_P = op_decl_dat_hdf5(nodes, 1, "double", file, "p_P");
  op_dat p_U = op_decl_dat_hdf5(nodes, 1, "double", file, "p_U");

  op_diagnostic_output();
  op_partition("PTSCOTCH", "KWAY", cells, pcell, p_xm);

  int status = aero_run(nodes, bnodes, cells, pbnodes, pcell, p_xm, p_phim, p_resm, p_K, p_V, p_P,
                        p_U, phi_out);
  op_exit();
  return status;
}
