/* Airfoil: OP2's standard benchmark, a 2D inviscid flow solver on an unstructured quadrilateral
 * mesh around a NACA0012 aerofoil, written against op2jit with kernels as source strings.
 * Usage: airfoil MESH [ITERATIONS]   (MESH in new_grid.dat format, plain or gzipped)
 * Under mpirun rank 0 reads the mesh and each rank declares its block; PT-Scotch partitions. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <op2.h>

#include "kernels.h"
#include "mesh_scatter.h"

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

  airfoil_block block;
  char err[1024] = "";
  if (airfoil_mesh_read_block(argv[1], &block, err, sizeof err) != 0) {
    if (op_is_root()) fprintf(stderr, "airfoil: %s\n", err);
    op_exit();
    return 1;
  }
  airfoil_mesh mesh = block.local;

  double gam = 1.4f, gm1 = gam - 1.0f, cfl = 0.9f, eps = 0.05f, mach = 0.4f;
  double alpha = 3.0f * atan(1.0f) / 45.0f, p = 1.0f, r = 1.0f;
  double u = sqrt(gam * p / r) * mach, e = p / (r * gm1) + 0.5f * u * u;
  double qinf[4] = {r, r * u, 0.0f, r * e};

  double *q = malloc(4 * sizeof(double) * (size_t)mesh.ncell);
  for (int n = 0; n < mesh.ncell; n++)
    for (int m = 0; m < 4; m++) q[4 * n + m] = qinf[m];

  op_set nodes = op_decl_set(mesh.nnode, "nodes");
  op_set edges = op_decl_set(mesh.nedge, "edges");
  op_set bedges = op_decl_set(mesh.nbedge, "bedges");
  op_set cells = op_decl_set(mesh.ncell, "cells");

  op_map pedge = op_decl_map(edges, nodes, 2, mesh.edge, "pedge");
  op_map pecell = op_decl_map(edges, cells, 2, mesh.ecell, "pecell");
  op_map pbedge = op_decl_map(bedges, nodes, 2, mesh.bedge, "pbedge");
  op_map pbecell = op_decl_map(bedges, cells, 1, mesh.becell, "pbecell");
  op_map pcell = op_decl_map(cells, nodes, 4, mesh.cell, "pcell");

  op_dat p_bound = op_decl_dat(bedges, 1, "int", mesh.bound, "p_bound");
  op_dat p_x = op_decl_dat(nodes, 2, "double", mesh.x, "p_x");
  op_dat p_q = op_decl_dat(cells, 4, "double", q, "p_q");
  op_dat p_qold = op_decl_dat(cells, 4, "double", NULL, "p_qold");
  op_dat p_adt = op_decl_dat(cells, 1, "double", NULL, "p_adt");
  op_dat p_res = op_decl_dat(cells, 4, "double", NULL, "p_res");
  free(q);
  double ncell = (double)block.ncell; /* all ranks together */
  airfoil_mesh_free(&mesh); /* the library keeps its own copies */
  op_partition("PTSCOTCH", "KWAY", cells, pecell, p_x);

  op_decl_const(1, "double", &gam, "gam");
  op_decl_const(1, "double", &gm1, "gm1");
  op_decl_const(1, "double", &cfl, "cfl");
  op_decl_const(1, "double", &eps, "eps");
  op_decl_const(1, "double", &mach, "mach");
  op_decl_const(1, "double", &alpha, "alpha");
  op_decl_const(4, "double", qinf, "qinf");

  double cpu0, wall0, cpu1, wall1;
  op_timers(&cpu0, &wall0);
  for (int iter = 1; iter <= niter; iter++) {
    op_par_loop(save_soln_src, "save_soln", cells,
                op_arg_dat(p_q, -1, OP_ID, 4, "double", OP_READ),
                op_arg_dat(p_qold, -1, OP_ID, 4, "double", OP_WRITE));
    double rms = 0.0;
    for (int k = 0; k < 2; k++) {
      op_par_loop(adt_calc_src, "adt_calc", cells,
                  op_arg_dat(p_x, 0, pcell, 2, "double", OP_READ),
                  op_arg_dat(p_x, 1, pcell, 2, "double", OP_READ),
                  op_arg_dat(p_x, 2, pcell, 2, "double", OP_READ),
                  op_arg_dat(p_x, 3, pcell, 2, "double", OP_READ),
                  op_arg_dat(p_q, -1, OP_ID, 4, "double", OP_READ),
                  op_arg_dat(p_adt, -1, OP_ID, 1, "double", OP_WRITE));
      op_par_loop(res_calc_src, "res_calc", edges,
                  op_arg_dat(p_x, 0, pedge, 2, "double", OP_READ),
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
      op_par_loop(update_src, "update", cells,
                  op_arg_dat(p_qold, -1, OP_ID, 4, "double", OP_READ),
                  op_arg_dat(p_q, -1, OP_ID, 4, "double", OP_WRITE),
                  op_arg_dat(p_res, -1, OP_ID, 4, "double", OP_RW),
                  op_arg_dat(p_adt, -1, OP_ID, 1, "double", OP_READ),
                  op_arg_gbl(&rms, 1, "double", OP_INC));
    }
    rms = sqrt(rms / ncell);
    if (iter % 100 == 0 && op_is_root()) printf(" %d  %.15e\n", iter, rms);
  }
  op_timers(&cpu1, &wall1);
  op_timing_output();
  if (op_is_root()) printf("\n  total wall time %.3f s\n", wall1 - wall0);
  op_exit();
  return 0;
}
