/* SPDX-License-Identifier: BSD-3-Clause */
/* Airfoil: OP2's standard benchmark, a 2D inviscid flow solver on an unstructured quadrilateral
 * mesh around a NACA0012 aerofoil, written against op2jit with kernels as source strings.
 * Usage: airfoil MESH [ITERATIONS]   (MESH in new_grid.dat format, plain or gzipped)
 * Under mpirun every rank reads the mesh and declares its block; PT-Scotch partitions.
 * AIRFOIL_CHECKPOINT=FILE checkpoints at the start of every iteration (AIRFOIL_CHECKPOINT_POLICY,
 * default "manual", may say "time:SECONDS") and restarts from FILE when it holds a checkpoint. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <op2.h>

#include "flow.h"
#include "kernels.h"
#include "mesh_block.h"

typedef struct airfoil_mesh_handles {
  op_set nodes, edges, bedges, cells;
  op_map pedge, pecell, pbedge, pbecell, pcell;
  op_dat p_bound, p_x, p_q, p_qold, p_adt, p_res;
} airfoil_mesh_handles;

/* new_grid.dat: each rank reads and declares its block; the flow starts at free stream. */
static int declare_from_dat(const char *path, airfoil_mesh_handles *h, double *ncell) {
  airfoil_mesh_part block;
  char err[1024] = "";
  if (airfoil_mesh_read_block(path, &block, err, sizeof err) != 0) {
    if (op_is_root()) fprintf(stderr, "airfoil: %s\n", err);
    return -1;
  }
  airfoil_mesh mesh = block.local;
  airfoil_flow flow = airfoil_free_stream();
  double *q = malloc(4 * sizeof(double) * (size_t)mesh.ncell);
  for (int n = 0; n < mesh.ncell; n++)
    for (int m = 0; m < 4; m++) q[4 * n + m] = flow.qinf[m];

  h->nodes = op_decl_set(mesh.nnode, "nodes");
  h->edges = op_decl_set(mesh.nedge, "edges");
  h->bedges = op_decl_set(mesh.nbedge, "bedges");
  h->cells = op_decl_set(mesh.ncell, "cells");
  h->pedge = op_decl_map(h->edges, h->nodes, 2, mesh.edge, "pedge");
  h->pecell = op_decl_map(h->edges, h->cells, 2, mesh.ecell, "pecell");
  h->pbedge = op_decl_map(h->bedges, h->nodes, 2, mesh.bedge, "pbedge");
  h->pbecell = op_decl_map(h->bedges, h->cells, 1, mesh.becell, "pbecell");
  h->pcell = op_decl_map(h->cells, h->nodes, 4, mesh.cell, "pcell");
  h->p_bound = op_decl_dat(h->bedges, 1, "int", mesh.bound, "p_bound");
  h->p_x = op_decl_dat(h->nodes, 2, "double", mesh.x, "p_x");
  h->p_q = op_decl_dat(h->cells, 4, "double", q, "p_q");
  h->p_qold = op_decl_dat(h->cells, 4, "double", NULL, "p_qold");
  h->p_adt = op_decl_dat(h->cells, 1, "double", NULL, "p_adt");
  h->p_res = op_decl_dat(h->cells, 4, "double", NULL, "p_res");
  free(q);
  *ncell = (double)block.ncell; /* all ranks together */
  airfoil_mesh_free(&mesh);     /* the library keeps its own copies */
  airfoil_declare_constants(&flow);
  return 0;
}

/* OP2's HDF5 layout: every rank reads its block in parallel; flow field and constants from the
 * file, as OP2's Airfoil does. */
static int declare_from_hdf5(const char *path, airfoil_mesh_handles *h, double *ncell) {
  h->nodes = op_decl_set_hdf5(path, "nodes");
  h->edges = op_decl_set_hdf5(path, "edges");
  h->bedges = op_decl_set_hdf5(path, "bedges");
  h->cells = op_decl_set_hdf5(path, "cells");
  h->pedge = op_decl_map_hdf5(h->edges, h->nodes, 2, path, "pedge");
  h->pecell = op_decl_map_hdf5(h->edges, h->cells, 2, path, "pecell");
  h->pbedge = op_decl_map_hdf5(h->bedges, h->nodes, 2, path, "pbedge");
  h->pbecell = op_decl_map_hdf5(h->bedges, h->cells, 1, path, "pbecell");
  h->pcell = op_decl_map_hdf5(h->cells, h->nodes, 4, path, "pcell");
  h->p_bound = op_decl_dat_hdf5(h->bedges, 1, "int", path, "p_bound");
  h->p_x = op_decl_dat_hdf5(h->nodes, 2, "double", path, "p_x");
  h->p_q = op_decl_dat_hdf5(h->cells, 4, "double", path, "p_q");
  h->p_qold = op_decl_dat_hdf5(h->cells, 4, "double", path, "p_qold");
  h->p_adt = op_decl_dat_hdf5(h->cells, 1, "double", path, "p_adt");
  h->p_res = op_decl_dat_hdf5(h->cells, 4, "double", path, "p_res");
  airfoil_flow f;
  op_get_const_hdf5("gam", 1, "double", (char *)&f.gam, path);
  op_get_const_hdf5("gm1", 1, "double", (char *)&f.gm1, path);
  op_get_const_hdf5("cfl", 1, "double", (char *)&f.cfl, path);
  op_get_const_hdf5("eps", 1, "double", (char *)&f.eps, path);
  op_get_const_hdf5("mach", 1, "double", (char *)&f.mach, path);
  op_get_const_hdf5("alpha", 1, "double", (char *)&f.alpha, path);
  op_get_const_hdf5("qinf", 4, "double", (char *)f.qinf, path);
  airfoil_declare_constants(&f);
  *ncell = h->cells ? (double)op_get_size(h->cells) : 0;
  return 0; /* errors went through op2's handler, which exits by default */
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s MESH [ITERATIONS]\n", argv[0]);
    return 2;
  }
  int niter = argc > 2 ? atoi(argv[2]) : 1000;
  if (niter < 1) {
    fprintf(stderr, "airfoil: ITERATIONS must be a positive integer, got '%s'\n", argv[2]);
    return 2;
  }
  op_init(argc, argv, 0);

  airfoil_mesh_handles h;
  double ncell;
  size_t len = strlen(argv[1]);
  int hdf5 = len > 3 && strcmp(argv[1] + len - 3, ".h5") == 0;
  char err[1024];
  if (!airfoil_mesh_same_kind(argv[1], hdf5, err, sizeof err)) { /* every rank says so */
    fprintf(stderr, "airfoil: %s\n", err);
    op_exit();
    return 1;
  }
  int rc = hdf5 ? declare_from_hdf5(argv[1], &h, &ncell) : declare_from_dat(argv[1], &h, &ncell);
  if (rc != 0) {
    op_exit();
    return 1;
  }
  op_partition("PTSCOTCH", "KWAY", h.cells, h.pecell, h.p_x);
  op_set edges = h.edges, bedges = h.bedges, cells = h.cells;
  op_map pedge = h.pedge, pecell = h.pecell, pbedge = h.pbedge, pbecell = h.pbecell,
         pcell = h.pcell;
  op_dat p_bound = h.p_bound, p_x = h.p_x, p_q = h.p_q, p_qold = h.p_qold, p_adt = h.p_adt,
         p_res = h.p_res;

  const char *checkpoint = getenv("AIRFOIL_CHECKPOINT");
  if (checkpoint && *checkpoint)
    op_checkpointing_init(checkpoint, getenv("AIRFOIL_CHECKPOINT_POLICY"));

  double cpu0, wall0, cpu1, wall1, last_rms = 0.0;
  op_timers(&cpu0, &wall0);
  for (int iter = 1; iter <= niter; iter++) {
    op_checkpoint();
    op_par_loop(save_soln_src, "save_soln", cells, op_arg_dat(p_q, -1, OP_ID, 4, "double", OP_READ),
                op_arg_dat(p_qold, -1, OP_ID, 4, "double", OP_WRITE));
    double rms = 0.0;
    for (int k = 0; k < 2; k++) {
      op_par_loop(adt_calc_src, "adt_calc", cells, op_arg_dat(p_x, 0, pcell, 2, "double", OP_READ),
                  op_arg_dat(p_x, 1, pcell, 2, "double", OP_READ),
                  op_arg_dat(p_x, 2, pcell, 2, "double", OP_READ),
                  op_arg_dat(p_x, 3, pcell, 2, "double", OP_READ),
                  op_arg_dat(p_q, -1, OP_ID, 4, "double", OP_READ),
                  op_arg_dat(p_adt, -1, OP_ID, 1, "double", OP_WRITE));
      op_par_loop(res_calc_src, "res_calc", edges, op_arg_dat(p_x, 0, pedge, 2, "double", OP_READ),
                  op_arg_dat(p_x, 1, pedge, 2, "double", OP_READ),
                  op_arg_dat(p_q, 0, pecell, 4, "double", OP_READ),
                  op_arg_dat(p_q, 1, pecell, 4, "double", OP_READ),
                  op_arg_dat(p_adt, 0, pecell, 1, "double", OP_READ),
                  op_arg_dat(p_adt, 1, pecell, 1, "double", OP_READ),
                  op_arg_dat(p_res, 0, pecell, 4, "double", OP_INC),
                  op_arg_dat(p_res, 1, pecell, 4, "double", OP_INC));
      op_par_loop(bres_calc_src, "bres_calc", bedges,
                  op_arg_dat(p_x, 0, pbedge, 2, "double", OP_READ),
                  op_arg_dat(p_x, 1, pbedge, 2, "double", OP_READ),
                  op_arg_dat(p_q, 0, pbecell, 4, "double", OP_READ),
                  op_arg_dat(p_adt, 0, pbecell, 1, "double", OP_READ),
                  op_arg_dat(p_res, 0, pbecell, 4, "double", OP_INC),
                  op_arg_dat(p_bound, -1, OP_ID, 1, "int", OP_READ));
      rms = 0.0;
      op_par_loop(update_src, "update", cells, op_arg_dat(p_qold, -1, OP_ID, 4, "double", OP_READ),
                  op_arg_dat(p_q, -1, OP_ID, 4, "double", OP_WRITE),
                  op_arg_dat(p_res, -1, OP_ID, 4, "double", OP_RW),
                  op_arg_dat(p_adt, -1, OP_ID, 1, "double", OP_READ),
                  op_arg_gbl(&rms, 1, "double", OP_INC));
    }
    rms = sqrt(rms / ncell);
    if (iter % 100 == 0 && op_is_root()) printf(" %d  %.15e\n", iter, rms);
    last_rms = rms;
  }
  op_timers(&cpu1, &wall1);
  op_timing_output();
  /* Every bit of the last rms, so that runs can be compared exactly. */
  if (op_is_root()) printf("\n  final rms %a\n", last_rms);
  if (op_is_root()) printf("\n  total wall time %.3f s\n", wall1 - wall0);
  op_exit();
  return 0;
}
