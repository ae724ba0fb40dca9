/* SPDX-License-Identifier: BSD-3-Clause */
/* Airfoil under MPI: every rank reads the new_grid.dat mesh and keeps its contiguous block of each
 * set, map values kept as global indices (OP2's distributed declaration). The ranks parse their
 * blocks at the same time, so no rank waits for another to read the whole mesh. While it reads,
 * each rank holds the file's whole text (78 MB for the 720k mesh): with many ranks on one node,
 * OP2's HDF5 layout (airfoil_to_hdf5), where each rank reads only its block, needs less. */
#ifndef AIRFOIL_MESH_BLOCK_H
#define AIRFOIL_MESH_BLOCK_H

#include <stddef.h>

#include "mesh_io.h"

/* The whole mesh on one process; on several, this rank's blocks (see airfoil_mesh_part). Returns
 * 0, or -1 with err set on every rank: the message of the fault nearest the start of the file,
 * as one process reading it alone would say. Collective when MPI is running. */
int airfoil_mesh_read_block(const char *path, airfoil_mesh_part *b, char *err, size_t errlen);

#endif
