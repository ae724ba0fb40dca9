/* SPDX-License-Identifier: BSD-3-Clause */
/* Every rank reads the file and parses its block [G*r/P, G*(r+1)/P) of each set. */
#include <limits.h>
#include <stdio.h>
#include <mpi.h>

#include "mesh_block.h"

int airfoil_mesh_same_kind(const char *path, int hdf5, char *err, size_t errlen) {
  int running = 0, p = 1, r = 0;
  MPI_Initialized(&running);
  if (running) {
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
  }
  if (p == 1) return 1;
  int kinds[2] = {hdf5 != 0, hdf5 == 0}, all[2];
  MPI_Allreduce(kinds, all, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (!all[0] || !all[1]) return 1;
  snprintf(err, errlen,
           "rank %d: the ranks were given meshes of different kinds (this one %s: %s); every "
           "rank must read the same mesh",
           r, hdf5 ? "OP2's HDF5 layout" : "new_grid.dat", path);
  return 0;
}

int airfoil_mesh_read_block(const char *path, airfoil_mesh_part *b, char *err, size_t errlen) {
  int running = 0, p = 1, r = 0;
  MPI_Initialized(&running);
  if (running) {
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
  }
  int rc = airfoil_mesh_read_part(path, r, p, b, err, errlen);
  if (p == 1) return rc;
  /* A rank sees only its own block's faults: the one first in reading order is the one a single
   * reader would have stopped at (ties go to the lowest rank). */
  struct {
    long order;
    int rank;
  } fault = {rc ? b->error_order : LONG_MAX, r}, first;
  MPI_Allreduce(&fault, &first, 1, MPI_LONG_INT, MPI_MINLOC, MPI_COMM_WORLD);
  if (first.order == LONG_MAX) return 0;
  MPI_Bcast(err, (int)errlen, MPI_CHAR, first.rank, MPI_COMM_WORLD);
  airfoil_mesh_free(&b->local);
  return -1;
}
