/* SPDX-License-Identifier: BSD-3-Clause */
/* Global-memory traffic of Airfoil's res_calc on the 45k mesh under each strategy, counted by the
 * emulator in 32-byte sectors (per warp and access site, distinct sectors; see docs/CUDA.md), and
 * the results of the three strategies against the seq backend. Hierarchical staging must move
 * fewer sectors per edge than atomics and than global colouring.
 * Usage: t604-sectors MESH */
#include "kernels.h"
#include "mesh_io.h"
#include "random_mesh.h"
#include "runtime/cuda/cuda.h"

static airfoil_mesh mesh;

/* adt_calc then res_calc once from a fixed state; res (4 per cell) into `res`. */
static void run(const char *backend, const char *strategy, double *res, op2_cuda_sectors *out) {
  setenv("OP2_CUDA_STRATEGY", strategy, 1);
  setenv("OP2_CUDA_EMU_SECTORS", "on", 1);
  char opt[64];
  snprintf(opt, sizeof opt, "OP2_BACKEND=%s", backend);
  char *argv[] = {"t604", opt, NULL};
  op_init(2, argv, 0);
  double gam = 1.4, gm1 = 0.4, cfl = 0.9, eps = 0.05;
  op_decl_const(1, "double", &gam, "gam");
  op_decl_const(1, "double", &gm1, "gm1");
  op_decl_const(1, "double", &cfl, "cfl");
  op_decl_const(1, "double", &eps, "eps");
  op_set nodes = op_decl_set(mesh.nnode, "nodes"), edges = op_decl_set(mesh.nedge, "edges");
  op_set cells = op_decl_set(mesh.ncell, "cells");
  op_map pedge = op_decl_map(edges, nodes, 2, mesh.edge, "pedge");
  op_map pecell = op_decl_map(edges, cells, 2, mesh.ecell, "pecell");
  op_map pcell = op_decl_map(cells, nodes, 4, mesh.cell, "pcell");
  double *q = rm_alloc(4 * sizeof(double) * (size_t)mesh.ncell);
  unsigned rng = rm_rng(604);
  for (int c = 0; c < mesh.ncell; c++) { /* a perturbed free stream */
    q[4 * c] = 1.0 + 0.01 * rm_uniform(&rng, -1, 1);
    q[4 * c + 1] = 0.47 + 0.01 * rm_uniform(&rng, -1, 1);
    q[4 * c + 2] = 0.01 * rm_uniform(&rng, -1, 1);
    q[4 * c + 3] = 1.8 + 0.01 * rm_uniform(&rng, -1, 1);
  }
  op_dat p_x = op_decl_dat(nodes, 2, "double", mesh.x, "p_x");
  op_dat p_q = op_decl_dat(cells, 4, "double", q, "p_q");
  op_dat p_adt = op_decl_dat(cells, 1, "double", NULL, "p_adt");
  op_dat p_res = op_decl_dat(cells, 4, "double", NULL, "p_res");
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
  op_fetch_data(p_res, res);
  if (out) {
    CHECK(op2_cuda_emu_sectors("res_calc", out) == 0);
    CHECK_EQ_INT(op2_cuda_loop_strategy("res_calc"), !strcmp(strategy, "atomics") ? OP2_CUDA_ATOMICS
                                                     : !strcmp(strategy, "global") ? OP2_CUDA_GLOBAL
                                                                                   : OP2_CUDA_HIER);
  }
  free(q);
  op_exit();
}

int main(int argc, char **argv) {
  CHECK(argc == 2);
  char err[1024];
  CHECK(airfoil_mesh_read(argv[1], &mesh, err, sizeof err) == 0);
  size_t n = 4 * (size_t)mesh.ncell;
  double *want = rm_alloc(n * sizeof *want), *got = rm_alloc(n * sizeof *got);
  run("seq", "auto", want, NULL);
  const char *names[3] = {"atomics", "global", "hierarchical"};
  double total[3];
  printf("res_calc on %d edges, global-memory sectors (32 bytes) per edge:\n", mesh.nedge);
  printf("  %-13s %8s %8s %8s %8s %9s\n", "strategy", "load", "store", "atomic", "total",
         "launches");
  for (int s = 0; s < 3; s++) {
    op2_cuda_sectors sec;
    run("cuda-emu", names[s], got, &sec);
    op2_cuda_sectors gone;
    CHECK(op2_cuda_emu_sectors("res_calc", &gone) == -1); /* op_exit freed the counts */
    rm_check_near(got, want, n, 1e-12,
                  names[s]); /* increments: the order differs, within rounding */
    CHECK_EQ_INT(sec.calls, 1);
    CHECK_EQ_INT(sec.elements, mesh.nedge);
    double e = mesh.nedge;
    total[s] = (sec.load_sectors + sec.store_sectors + sec.atomic_sectors) / e;
    printf("  %-13s %8.3f %8.3f %8.3f %8.3f %9ld\n", names[s], sec.load_sectors / e,
           sec.store_sectors / e, sec.atomic_sectors / e, total[s], sec.launches);
    CHECK(sec.load_sectors > mesh.nedge); /* at least the maps and the data, once */
    if (s == 0) CHECK(sec.atomic_sectors > 0 && sec.store_sectors == 0);
    if (s > 0) CHECK(sec.atomic_sectors == 0 && sec.store_sectors > 0);
  }
  CHECK(total[2] < total[0]);
  CHECK(total[2] < total[1]);
  free(want), free(got);
  airfoil_mesh_free(&mesh);
  return 0;
}
