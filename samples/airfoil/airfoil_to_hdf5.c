/* SPDX-License-Identifier: BSD-3-Clause */
/* Converts an Airfoil mesh from new_grid.dat text (plain or gzipped) to the HDF5 file OP2's own
 * converter writes: sets nodes, edges, bedges, cells; maps pedge, pecell, pbedge, pbecell,
 * pcell; dats p_bound, p_x, p_q (free stream), p_qold, p_adt, p_res (zeros); Airfoil's
 * constants. The library's writer produces the layout, so the file also gets an XDMF
 * description (OUT.h5.xdmf) that ParaView opens.
 * Usage: airfoil_to_hdf5 MESH.dat[.gz] OUT.h5
 * Under mpirun each rank declares its block of the mesh and the ranks write the file together. */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>
#include <op2.h>

#include "flow.h"
#include "mesh_io.h"

static int ranks, my_rank;

static long block_begin(long n, int r) {
  return (long)((n * (long long)r) / ranks);
}

/* This rank's block of a set of n elements: its count, and a pointer to its rows of a table with
 * `width` values per element. */
static int block_count(int n) {
  return (int)(block_begin(n, my_rank + 1) - block_begin(n, my_rank));
}

static const void *block_rows(const void *table, int n, size_t row_bytes) {
  return (const char *)table + (size_t)block_begin(n, my_rank) * row_bytes;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s MESH.dat[.gz] OUT.h5\n", argv[0]);
    return 2;
  }
  op_init(argc, argv, 0);

  airfoil_mesh mesh;
  char err[1024];
  if (airfoil_mesh_read(argv[1], &mesh, err, sizeof err) != 0) {
    fprintf(stderr, "airfoil_to_hdf5: %s\n", err);
    return 1;
  }
  /* op_init started MPI if a launcher ran us; otherwise this is the only process. */
  int mpi_up = 0;
  MPI_Initialized(&mpi_up);
  ranks = 1;
  my_rank = 0;
  if (mpi_up) {
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
  }

  airfoil_flow flow = airfoil_free_stream();

  int ncell_local = block_count(mesh.ncell);
  double *q = malloc(4 * sizeof(double) * (size_t)(ncell_local ? ncell_local : 1));
  if (!q) {
    fprintf(stderr, "airfoil_to_hdf5: out of memory\n");
    return 1;
  }
  for (int n = 0; n < ncell_local; n++)
    for (int m = 0; m < 4; m++) q[4 * n + m] = flow.qinf[m];

  op_set nodes = op_decl_set(block_count(mesh.nnode), "nodes");
  op_set edges = op_decl_set(block_count(mesh.nedge), "edges");
  op_set bedges = op_decl_set(block_count(mesh.nbedge), "bedges");
  op_set cells = op_decl_set(ncell_local, "cells");

  op_decl_map(edges, nodes, 2, block_rows(mesh.edge, mesh.nedge, 2 * sizeof(int)), "pedge");
  op_decl_map(edges, cells, 2, block_rows(mesh.ecell, mesh.nedge, 2 * sizeof(int)), "pecell");
  op_decl_map(bedges, nodes, 2, block_rows(mesh.bedge, mesh.nbedge, 2 * sizeof(int)), "pbedge");
  op_decl_map(bedges, cells, 1, block_rows(mesh.becell, mesh.nbedge, sizeof(int)), "pbecell");
  op_decl_map(cells, nodes, 4, block_rows(mesh.cell, mesh.ncell, 4 * sizeof(int)), "pcell");

  op_decl_dat(bedges, 1, "int", block_rows(mesh.bound, mesh.nbedge, sizeof(int)), "p_bound");
  op_decl_dat(nodes, 2, "double", block_rows(mesh.x, mesh.nnode, 2 * sizeof(double)), "p_x");
  op_decl_dat(cells, 4, "double", q, "p_q");
  op_decl_dat(cells, 4, "double", NULL, "p_qold");
  op_decl_dat(cells, 1, "double", NULL, "p_adt");
  op_decl_dat(cells, 4, "double", NULL, "p_res");
  free(q);
  airfoil_mesh_free(&mesh);

  airfoil_declare_constants(&flow);

  /* Errors go to the library's default handler, which prints them and exits with status 1. */
  op_dump_to_hdf5(argv[2]);
  op_exit();
  return 0;
}
