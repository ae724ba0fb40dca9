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

/* Whether every rank was given a mesh of the same kind (`hdf5`: OP2's HDF5 layout, else
 * new_grid.dat). Checked before either reader starts: the .dat reader agrees on its faults with
 * an MPI call of its own, which a rank reading HDF5 (in the library's collective calls) would
 * never join, and both would wait forever. 1 when they agree; 0 with err set on every rank.
 * Collective when MPI is running: every rank calls it first, whatever its mesh. */
int airfoil_mesh_same_kind(const char *path, int hdf5, char *err, size_t errlen);

#endif
