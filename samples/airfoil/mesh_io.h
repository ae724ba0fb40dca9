/* SPDX-License-Identifier: BSD-3-Clause */
/* Airfoil meshes in OP2's new_grid.dat text format.
 *
 * Layout (ASCII, whitespace separated, one record per line, 0-based indices):
 *   nnode ncell nedge nbedge
 *   nnode lines   x y
 *   ncell lines   n0 n1 n2 n3            (counter-clockwise)
 *   nedge lines   node1 node2 cell1 cell2
 *   nbedge lines  node1 node2 cell bound (AIRFOIL_BOUND_WALL or AIRFOIL_BOUND_FARFIELD)
 *
 * Orientation that Airfoil's flux kernels rely on: with (dx, dy) = x[node1] - x[node2], the normal
 * (dy, -dx) of an edge points from cell1 into cell2, and that of a boundary edge out of the domain.
 */
#ifndef OP2JIT_SAMPLES_AIRFOIL_MESH_IO_H
#define OP2JIT_SAMPLES_AIRFOIL_MESH_IO_H

#include <stddef.h>

enum { AIRFOIL_BOUND_WALL = 1, AIRFOIL_BOUND_FARFIELD = 2 };

typedef struct {
  int nnode, ncell, nedge, nbedge;
  double *x;   /* 2 * nnode */
  int *cell;   /* 4 * ncell */
  int *edge;   /* 2 * nedge nodes */
  int *ecell;  /* 2 * nedge cells */
  int *bedge;  /* 2 * nbedge nodes */
  int *becell; /* nbedge */
  int *bound;  /* nbedge */
} airfoil_mesh;

/* Allocates all arrays for the given (non-negative) counts; 0 on success, -1 when out of memory,
 * in which case *m is left empty. */
int airfoil_mesh_alloc(airfoil_mesh *m, int nnode, int ncell, int nedge, int nbedge);

/* Reads a plain or gzip-compressed file. Returns 0 on success; otherwise -1, *m empty, and err
 * holds "FILE:LINE: problem" (or "FILE: problem" when no line is involved). */
int airfoil_mesh_read(const char *path, airfoil_mesh *m, char *err, size_t errlen);

/* One part of a mesh read by several processes, each reading the file and keeping part `which`
 * of `nparts`: records [n*which/nparts, n*(which+1)/nparts) of each section of n records. Lines
 * of other parts are skipped unread, so a fault in them is that part's to report. Map values stay
 * indices into the whole mesh. */
typedef struct {
  airfoil_mesh local;                                   /* this part's records */
  long nnode, ncell, nedge, nbedge;                     /* the whole mesh's counts */
  long first_node, first_cell, first_edge, first_bedge; /* index of local record 0 */
  /* On failure, where the fault lies in reading order: twice its line, plus one when it is a
   * record missing at the end of the file (after a fault in the last line's own record). */
  long error_order;
} airfoil_mesh_part;

/* Returns 0, or -1 with *part's arrays empty and err as airfoil_mesh_read's. Reading part p of n
 * for every p and taking the failure with the lowest error_order (the lowest part on a tie)
 * gives airfoil_mesh_read's message for the whole file. */
int airfoil_mesh_read_part(const char *path, int which, int nparts, airfoil_mesh_part *part,
                           char *err, size_t errlen);

/* Writes atomically (a temporary file next to path, renamed over it), gzip-compressed when path
 * ends in ".gz". Coordinates are printed with 17 significant digits so reading them back gives
 * the same doubles. Returns 0 on success, else -1 with a message in err. */
int airfoil_mesh_write(const char *path, const airfoil_mesh *m, char *err, size_t errlen);

/* Frees the arrays and zeroes *m; safe on an empty or already freed mesh. */
void airfoil_mesh_free(airfoil_mesh *m);

#endif
