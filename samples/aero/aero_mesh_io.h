/* SPDX-License-Identifier: BSD-3-Clause */
/* Aero meshes: quadrilateral finite-element meshes in the text layout OP2's aero reads
 * (FE_grid.dat).
 *
 * Layout (ASCII, whitespace separated, one record per line, 0-based indices):
 *   nnode ncell nbnode
 *   nnode lines   x y
 *   ncell lines   n0 n1 n2 n3     the cell's corners at (xi, eta) = (0,0), (1,0), (0,1), (1,1) of
 *                                 the reference square: tensor-product order, not around the cell
 *   nbnode lines  n               nodes whose potential stays fixed (Dirichlet)
 *
 * The kernels' shape functions number corners as above, so a cell written counter-clockwise
 * would fold over itself; the reader refuses cells whose isoparametric map is not orientation
 * preserving at their centre.
 */
#ifndef OP2JIT_SAMPLES_AERO_MESH_IO_H
#define OP2JIT_SAMPLES_AERO_MESH_IO_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The free-stream Mach number: the potential starts as AERO_MINF * x. */
#define AERO_MINF 0.1

typedef struct {
  int nnode, ncell, nbnode;
  double *x;  /* 2 * nnode */
  int *cell;  /* 4 * ncell */
  int *bnode; /* nbnode */
} aero_mesh;

/* Arrays for the given positive counts; 0 on success, -1 when out of memory (*m left empty). */
int aero_mesh_alloc(aero_mesh *m, int nnode, int ncell, int nbnode);

/* A channel of length 3 and height 1 with a smooth bump of height `bump` on its lower wall
 * between x = 1 and x = 2, cut into ni x nj cells. The inlet (x = 0) and outlet (x = 3) columns
 * are the Dirichlet nodes; the walls are left free, so the flow has to turn over the bump.
 * 0 on success, -1 (with a message in err) for bad sizes or no memory. */
int aero_mesh_channel(int ni, int nj, double bump, aero_mesh *m, char *err, size_t errlen);

/* Reads a mesh. 0 on success; otherwise -1, *m empty, and err holds "FILE:LINE: problem". */
int aero_mesh_read(const char *path, aero_mesh *m, char *err, size_t errlen);

/* Writes a mesh (a temporary file renamed over path); coordinates with 17 significant digits,
 * so reading them back gives the same doubles. 0 on success, else -1 with a message in err. */
int aero_mesh_write(const char *path, const aero_mesh *m, char *err, size_t errlen);

/* Frees the arrays and zeroes *m; safe on an empty mesh. */
void aero_mesh_free(aero_mesh *m);

#ifdef __cplusplus
}
#endif

#endif
