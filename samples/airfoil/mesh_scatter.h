/* Airfoil under MPI: rank 0 reads a new_grid.dat mesh and every rank receives its contiguous block
 * of each set, map values kept as global indices (OP2's distributed declaration). */
#ifndef AIRFOIL_MESH_SCATTER_H
#define AIRFOIL_MESH_SCATTER_H

#include <stddef.h>

#include "mesh_io.h"

/* The whole mesh on one process; on several, this rank's blocks. first_* give the block starts.
 * Returns 0, or -1 with err set (on every rank). Collective when MPI is running. */
typedef struct airfoil_block {
  airfoil_mesh local;
  long nnode, ncell, nedge, nbedge; /* global counts */
} airfoil_block;

int airfoil_mesh_read_block(const char *path, airfoil_block *b, char *err, size_t errlen);

#endif
