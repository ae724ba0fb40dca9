/* SPDX-License-Identifier: BSD-3-Clause */
/* Airfoil's new_grid.dat mesh (plain or gzipped) for the Fortran sample: samples/airfoil's reader,
 * which under MPI gives each rank its block of every set (map values global, from 0), handed to
 * Fortran in two steps: the counts, then the arrays the program allocated. */
#include <stdio.h>
#include <stdlib.h>

#include "mesh_block.h"

/* Reads the mesh; NULL (after printing why) when it cannot. *ncell_total: over all ranks. */
void *airfoil_f_mesh_read(const char *path, int *nnode, int *ncell, int *nedge, int *nbedge,
                          double *ncell_total) {
  airfoil_mesh_part *part = calloc(1, sizeof *part);
  char err[1024] = "";
  if (!part || airfoil_mesh_read_block(path, part, err, sizeof err) != 0) {
    fprintf(stderr, "airfoil: %s\n", part ? err : "out of memory");
    free(part);
    return NULL;
  }
  *nnode = part->local.nnode, *ncell = part->local.ncell;
  *nedge = part->local.nedge, *nbedge = part->local.nbedge;
  *ncell_total = (double)part->ncell;
  return part;
}

static void copy_ints(int *to, const int *from, long n) {
  for (long i = 0; i < n; i++) to[i] = from[i];
}

/* Copies the block into the program's arrays (sizes as airfoil_f_mesh_read said) and frees it. */
void airfoil_f_mesh_take(void *mesh, double *x, int *cell, int *edge, int *ecell, int *bedge,
                         int *becell, int *bound) {
  airfoil_mesh_part *part = mesh;
  const airfoil_mesh *m = &part->local;
  for (long i = 0; i < 2L * m->nnode; i++) x[i] = m->x[i];
  copy_ints(cell, m->cell, 4L * m->ncell);
  copy_ints(edge, m->edge, 2L * m->nedge);
  copy_ints(ecell, m->ecell, 2L * m->nedge);
  copy_ints(bedge, m->bedge, 2L * m->nbedge);
  copy_ints(becell, m->becell, m->nbedge);
  copy_ints(bound, m->bound, m->nbedge);
  airfoil_mesh_free(&part->local);
  free(part);
}
