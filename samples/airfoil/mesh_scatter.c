/* Rank 0 reads, every rank gets its block: [G*r/P, G*(r+1)/P) of each set. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_scatter.h"

static long block_begin(long g, int r, int p) {
  return (long)((g * (long long)r) / p);
}

/* Scatters `per` values of type `t` per element of a set of `global` elements. */
static void *scatter(const void *all, long global, int per, MPI_Datatype t, size_t tsize, int p,
                     int r, int *local_count) {
  int *counts = malloc(sizeof(int) * (size_t)p), *disp = malloc(sizeof(int) * (size_t)p);
  for (int q = 0; q < p; q++) {
    disp[q] = (int)(block_begin(global, q, p) * per);
    counts[q] = (int)((block_begin(global, q + 1, p) - block_begin(global, q, p)) * per);
  }
  *local_count = counts[r] / per;
  void *mine = malloc((size_t)counts[r] * tsize + 1);
  MPI_Scatterv(all, counts, disp, t, mine, counts[r], t, 0, MPI_COMM_WORLD);
  free(counts), free(disp);
  return mine;
}

int airfoil_mesh_read_block(const char *path, airfoil_block *b, char *err, size_t errlen) {
  memset(b, 0, sizeof *b);
  int running = 0, p = 1, r = 0;
  MPI_Initialized(&running);
  if (running) {
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
  }
  airfoil_mesh all = {0};
  int rc = 0;
  if (r == 0) rc = airfoil_mesh_read(path, &all, err, errlen);
  if (p == 1) {
    if (rc) return -1;
    b->local = all;
    b->nnode = all.nnode, b->ncell = all.ncell, b->nedge = all.nedge, b->nbedge = all.nbedge;
    return 0;
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Bcast(err, (int)errlen, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rc) return -1;
  long counts[4] = {all.nnode, all.ncell, all.nedge, all.nbedge};
  MPI_Bcast(counts, 4, MPI_LONG, 0, MPI_COMM_WORLD);
  b->nnode = counts[0], b->ncell = counts[1], b->nedge = counts[2], b->nbedge = counts[3];
  airfoil_mesh *m = &b->local;
  m->x = scatter(all.x, b->nnode, 2, MPI_DOUBLE, sizeof(double), p, r, &m->nnode);
  m->cell = scatter(all.cell, b->ncell, 4, MPI_INT, sizeof(int), p, r, &m->ncell);
  m->edge = scatter(all.edge, b->nedge, 2, MPI_INT, sizeof(int), p, r, &m->nedge);
  m->ecell = scatter(all.ecell, b->nedge, 2, MPI_INT, sizeof(int), p, r, &m->nedge);
  m->bedge = scatter(all.bedge, b->nbedge, 2, MPI_INT, sizeof(int), p, r, &m->nbedge);
  m->becell = scatter(all.becell, b->nbedge, 1, MPI_INT, sizeof(int), p, r, &m->nbedge);
  m->bound = scatter(all.bound, b->nbedge, 1, MPI_INT, sizeof(int), p, r, &m->nbedge);
  if (r == 0) airfoil_mesh_free(&all);
  return 0;
}
