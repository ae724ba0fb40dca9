/* SPDX-License-Identifier: BSD-3-Clause */
/* mg3d: a 3-D vertex-centred finite-volume solver with multigrid, written as an OP2 program (C11,
 * one kernel per header, found along OP2_KERNEL_PATH). Steady advection-diffusion,
 * adv . grad u = nu lap u, on the median dual of an unstructured hexahedral mesh (mg3d-mesh):
 * unknowns on nodes, first-order upwind advection and two-point diffusion fluxes over each edge's
 * dual face, outflow through boundary faces, a smooth inflow profile as data. Damped Jacobi
 * smoothing in V-cycles over the mesh's levels: residuals restricted by adding each fine node's
 * into its coarse node (a map between the levels), corrections prolonged back through the same
 * map; each coarse level has its own edges and geometry.
 *
 * It checks itself and exits non-zero when a check fails: the residual falls; the residual's sum
 * equals the inflow less the outflow (every edge's flux leaves one node and enters another); the
 * solution stays within the inflow's bounds; and a uniform inflow leaves a uniform state uniform
 * (the dual cells close). Lines starting "result" are what mg3d-baseline prints too.
 * Usage: mg3d MESH.h5 [CYCLES]   (plus the library's OP2_NAME=value options; MG3D_PARTITION in
 * the environment names the partitioner, LIB[:ROUTINE] as op_partition's, PTSCOTCH:KWAY when
 * unset) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_seq.h"

#include "mg3d_scheme.h"

/* the constants the kernels read (declared to the library in declare_constants) */
double nu, adv[3], omega;

#include "diag_bface.h"
#include "diag_edge.h"
#include "edge_coef.h"
#include "inflow.h"
#include "node_stats.h"
#include "prolong.h"
#include "res_bface.h"
#include "res_edge.h"
#include "res_init.h"
#include "restrict_res.h"
#include "set_value.h"
#include "smooth.h"
#include "zero_node.h"

typedef struct mg_level {
  op_set nodes, edges, bfaces;
  op_map pedge, pbface, pprolong; /* pprolong: nodes -> 8 nodes of the next level */
  op_dat x, vol, w, bn, pw;       /* from the mesh (pw: pprolong's weights) */
  op_dat ek, diag;                /* edge coefficients, Jacobi diagonal */
  op_dat u, b, r;                 /* unknown (or correction), right-hand side, residual */
} mg_level;

typedef struct mg {
  int levels;
  mg_level l[MG3D_MAX_LEVELS];
  double nnode; /* finest level, all ranks */
} mg;

static void declare_constants(void) {
  nu = MG3D_NU;
  adv[0] = MG3D_ADV_X, adv[1] = MG3D_ADV_Y, adv[2] = MG3D_ADV_Z;
  omega = MG3D_OMEGA;
  op_decl_const(1, "double", &nu, "nu");
  op_decl_const(3, "double", adv, "adv");
  op_decl_const(1, "double", &omega, "omega");
}

static void declare_level(mg_level *l, int lv, const char *file) {
  char name[64];
#define MG3D_NAME(base) (snprintf(name, sizeof name, "%s%d", base, lv), name)
  l->nodes = op_decl_set_hdf5(file, MG3D_NAME("nodes"));
  l->edges = op_decl_set_hdf5(file, MG3D_NAME("edges"));
  l->bfaces = op_decl_set_hdf5(file, MG3D_NAME("bfaces"));
  l->pedge = op_decl_map_hdf5(l->edges, l->nodes, 2, file, MG3D_NAME("pedge"));
  l->pbface = op_decl_map_hdf5(l->bfaces, l->nodes, 4, file, MG3D_NAME("pbface"));
  l->x = op_decl_dat_hdf5(l->nodes, 3, "double", file, MG3D_NAME("p_x"));
  l->vol = op_decl_dat_hdf5(l->nodes, 1, "double", file, MG3D_NAME("p_vol"));
  l->w = op_decl_dat_hdf5(l->edges, 3, "double", file, MG3D_NAME("p_w"));
  l->bn = op_decl_dat_hdf5(l->bfaces, 12, "double", file, MG3D_NAME("p_bn"));
  l->ek = op_decl_dat(l->edges, 2, "double", NULL, MG3D_NAME("p_ek"));
  l->diag = op_decl_dat(l->nodes, 1, "double", NULL, MG3D_NAME("p_diag"));
  l->u = op_decl_dat(l->nodes, 1, "double", NULL, MG3D_NAME("p_u"));
  l->b = op_decl_dat(l->nodes, 1, "double", NULL, MG3D_NAME("p_b"));
  l->r = op_decl_dat(l->nodes, 1, "double", NULL, MG3D_NAME("p_r"));
#undef MG3D_NAME
  l->pprolong = NULL;
  l->pw = NULL;
}

/* Each level's edge coefficients and Jacobi diagonal. */
static void setup_level(mg_level *l) {
  op_par_loop(edge_coef, "edge_coef", l->edges, op_arg_dat(l->x, 0, l->pedge, 3, "double", OP_READ),
              op_arg_dat(l->x, 1, l->pedge, 3, "double", OP_READ),
              op_arg_dat(l->w, -1, OP_ID, 3, "double", OP_READ),
              op_arg_dat(l->ek, -1, OP_ID, 2, "double", OP_WRITE));
  op_par_loop(zero_node, "zero_node", l->nodes,
              op_arg_dat(l->diag, -1, OP_ID, 1, "double", OP_WRITE),
              op_arg_dat(l->u, -1, OP_ID, 1, "double", OP_WRITE));
  op_par_loop(diag_edge, "diag_edge", l->edges, op_arg_dat(l->ek, -1, OP_ID, 2, "double", OP_READ),
              op_arg_dat(l->diag, 0, l->pedge, 1, "double", OP_INC),
              op_arg_dat(l->diag, 1, l->pedge, 1, "double", OP_INC));
  op_par_loop(diag_bface, "diag_bface", l->bfaces,
              op_arg_dat(l->bn, -1, OP_ID, 12, "double", OP_READ),
              op_arg_dat(l->diag, -4, l->pbface, 1, "double", OP_INC));
}

/* r = b - A u; the outflow through the boundary is added to *outflow. */
static void residual(mg_level *l, double *outflow) {
  op_par_loop(res_init, "res_init", l->nodes, op_arg_dat(l->b, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(l->r, -1, OP_ID, 1, "double", OP_WRITE));
  op_par_loop(res_edge, "res_edge", l->edges, op_arg_dat(l->u, 0, l->pedge, 1, "double", OP_READ),
              op_arg_dat(l->u, 1, l->pedge, 1, "double", OP_READ),
              op_arg_dat(l->ek, -1, OP_ID, 2, "double", OP_READ),
              op_arg_dat(l->r, 0, l->pedge, 1, "double", OP_INC),
              op_arg_dat(l->r, 1, l->pedge, 1, "double", OP_INC));
  op_par_loop(res_bface, "res_bface", l->bfaces,
              op_arg_dat(l->u, -4, l->pbface, 1, "double", OP_READ),
              op_arg_dat(l->bn, -1, OP_ID, 12, "double", OP_READ),
              op_arg_dat(l->r, -4, l->pbface, 1, "double", OP_INC),
              op_arg_gbl(outflow, 1, "double", OP_INC));
}

/* One Jacobi sweep; returns the sum of squares of the residual before it. */
static double sweep(mg_level *l) {
  double outflow = 0.0, rsq = 0.0, rmax = 0.0;
  residual(l, &outflow);
  op_par_loop(smooth, "smooth", l->nodes, op_arg_dat(l->u, -1, OP_ID, 1, "double", OP_RW),
              op_arg_dat(l->r, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(l->diag, -1, OP_ID, 1, "double", OP_READ),
              op_arg_gbl(&rsq, 1, "double", OP_INC), op_arg_gbl(&rmax, 1, "double", OP_MAX));
  return rsq;
}

/* A V-cycle from level lv down; returns the finest residual's sum of squares at its start. */
static double vcycle(mg *m, int lv) {
  mg_level *l = &m->l[lv];
  if (lv == m->levels - 1 || lv + 1 >= MG3D_MAX_LEVELS) { /* the coarsest */
    double first = sweep(l);
    for (int s = 1; s < (lv == 0 ? MG3D_PRE + MG3D_POST : MG3D_COARSEST); s++) sweep(l);
    return first;
  }
  double first = sweep(l);
  for (int s = 1; s < MG3D_PRE; s++) sweep(l);
  mg_level *c = &m->l[lv + 1];
  double outflow = 0.0;
  residual(l, &outflow);
  op_par_loop(zero_node, "zero_node", c->nodes, op_arg_dat(c->b, -1, OP_ID, 1, "double", OP_WRITE),
              op_arg_dat(c->u, -1, OP_ID, 1, "double", OP_WRITE));
  op_par_loop(restrict_res, "restrict_res", l->nodes,
              op_arg_dat(l->r, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(l->pw, -1, OP_ID, 8, "double", OP_READ),
              op_arg_dat(c->b, -8, l->pprolong, 1, "double", OP_INC));
  vcycle(m, lv + 1);
  op_par_loop(prolong, "prolong", l->nodes, op_arg_dat(l->u, -1, OP_ID, 1, "double", OP_RW),
              op_arg_dat(l->pw, -1, OP_ID, 8, "double", OP_READ),
              op_arg_dat(c->u, -8, l->pprolong, 1, "double", OP_READ));
  for (int s = 0; s < MG3D_POST; s++) sweep(l);
  return first;
}

typedef struct figures {
  double rms_first, rms_last, mass, umin, umax, rsum, bsum, outflow;
} figures;

/* Inflow g0 + gamp cos cos cos on the finest level, u = g0 everywhere, then `cycles` V-cycles. */
static figures solve(mg *m, double g0, double gamp, int cycles, int print) {
  mg_level *f = &m->l[0];
  double g[2] = {g0, gamp};
  op_par_loop(zero_node, "zero_node", f->nodes, op_arg_dat(f->b, -1, OP_ID, 1, "double", OP_WRITE),
              op_arg_dat(f->u, -1, OP_ID, 1, "double", OP_WRITE));
  op_par_loop(inflow, "inflow", f->bfaces, op_arg_dat(f->x, -4, f->pbface, 3, "double", OP_READ),
              op_arg_dat(f->bn, -1, OP_ID, 12, "double", OP_READ),
              op_arg_dat(f->b, -4, f->pbface, 1, "double", OP_INC),
              op_arg_gbl(g, 2, "double", OP_READ));
  op_par_loop(set_value, "set_value", f->nodes, op_arg_dat(f->u, -1, OP_ID, 1, "double", OP_WRITE),
              op_arg_gbl(&g0, 1, "double", OP_READ));
  figures fig = {0};
  for (int c = 1; c <= cycles; c++) {
    double rms = sqrt(vcycle(m, 0) / m->nnode);
    if (c == 1) fig.rms_first = rms;
    if (print) op_printf("cycle %3d  rms residual %.10e\n", c, rms);
  }
  /* the final residual, the balance and the solution's figures */
  double count = 0.0;
  fig.umin = INFINITY, fig.umax = -INFINITY;
  residual(f, &fig.outflow);
  op_par_loop(
      node_stats, "node_stats", f->nodes, op_arg_dat(f->u, -1, OP_ID, 1, "double", OP_READ),
      op_arg_dat(f->vol, -1, OP_ID, 1, "double", OP_READ),
      op_arg_dat(f->r, -1, OP_ID, 1, "double", OP_READ),
      op_arg_dat(f->b, -1, OP_ID, 1, "double", OP_READ), op_arg_gbl(&count, 1, "double", OP_INC),
      op_arg_gbl(&fig.mass, 1, "double", OP_INC), op_arg_gbl(&fig.umin, 1, "double", OP_MIN),
      op_arg_gbl(&fig.umax, 1, "double", OP_MAX), op_arg_gbl(&fig.rsum, 1, "double", OP_INC),
      op_arg_gbl(&fig.bsum, 1, "double", OP_INC));
  double rsq = sweep(f); /* the final residual's rms (the sweep's step is not counted) */
  fig.rms_last = sqrt(rsq / m->nnode);
  return fig;
}

int main(int argc, char **argv) {
  op_init(argc, argv, 1);
  const char *file = NULL;
  int cycles = MG3D_CYCLES, npos = 0;
  for (int a = 1; a < argc; a++) {
    if (strchr(argv[a], '=')) continue; /* the library's options */
    if (npos == 0) file = argv[a];
    if (npos == 1) cycles = atoi(argv[a]);
    npos++;
  }
  if (!file || npos > 2 || cycles < 1) {
    op_printf("usage: mg3d MESH.h5 [CYCLES]   (MESH.h5 from mg3d-mesh)\n");
    op_exit();
    return 2;
  }
  declare_constants();
  mg m = {0};
  op_get_const_hdf5("mg_levels", 1, "int", (char *)&m.levels, file);
  if (m.levels < 1 || m.levels > MG3D_MAX_LEVELS) {
    op_printf("mg3d: %s: mg_levels %d is not 1 to %d\n", file, m.levels, MG3D_MAX_LEVELS);
    op_exit();
    return 1;
  }
  for (int lv = 0; lv < m.levels; lv++) declare_level(&m.l[lv], lv, file);
  for (int lv = 0; lv + 1 < m.levels; lv++) {
    char name[32];
    snprintf(name, sizeof name, "pprolong%d", lv);
    m.l[lv].pprolong = op_decl_map_hdf5(m.l[lv].nodes, m.l[lv + 1].nodes, 8, file, name);
    snprintf(name, sizeof name, "p_pw%d", lv);
    m.l[lv].pw = op_decl_dat_hdf5(m.l[lv].nodes, 8, "double", file, name);
  }
  /* MG3D_PARTITION=LIB[:ROUTINE] picks another of OP2's partitioners (INERTIAL, PARMETIS:GEOM,
   * ...): the figures must not change. */
  char lib[32] = "PTSCOTCH", *routine = "KWAY";
  const char *pick = getenv("MG3D_PARTITION");
  if (pick && *pick) {
    snprintf(lib, sizeof lib, "%s", pick);
    char *colon = strchr(lib, ':');
    routine = colon ? colon + 1 : NULL;
    if (colon) *colon = '\0';
  }
  op_partition(lib, routine, m.l[0].nodes, m.l[0].pedge, m.l[0].x);

  double cpu0, wall0, cpu1, wall1;
  op_timers(&cpu0, &wall0);
  for (int lv = 0; lv < m.levels; lv++) setup_level(&m.l[lv]);
  double count = 0.0, dummy = 0.0, umin = 0.0, umax = 0.0;
  op_par_loop(node_stats, "node_stats", m.l[0].nodes,
              op_arg_dat(m.l[0].u, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(m.l[0].vol, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(m.l[0].r, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(m.l[0].b, -1, OP_ID, 1, "double", OP_READ),
              op_arg_gbl(&count, 1, "double", OP_INC), op_arg_gbl(&dummy, 1, "double", OP_INC),
              op_arg_gbl(&umin, 1, "double", OP_MIN), op_arg_gbl(&umax, 1, "double", OP_MAX),
              op_arg_gbl(&dummy, 1, "double", OP_INC), op_arg_gbl(&dummy, 1, "double", OP_INC));
  m.nnode = count;
  op_printf("mg3d: %s, %d levels, %.0f nodes on the finest\n", file, m.levels, m.nnode);

  figures fig = solve(&m, MG3D_G0, MG3D_GAMP, cycles, 1);
  op_timers(&cpu1, &wall1);
  figures fs = solve(&m, MG3D_G0, 0.0, MG3D_FREE_CYCLES, 0);

  op_printf("result rms_first %.15e\n", fig.rms_first);
  op_printf("result rms_last %.15e\n", fig.rms_last);
  op_printf("result mass %.15e\n", fig.mass);
  op_printf("result umin %.15e\n", fig.umin);
  op_printf("result umax %.15e\n", fig.umax);
  op_printf("result outflow %.15e\n", fig.outflow);

  int ok = 1;
  double rate = pow(fig.rms_last / fig.rms_first, 1.0 / cycles);
  int fell = rate <= MG3D_RATE;
  ok &= fell;
  op_printf("check residual: fell by %.3e per cycle on average over %d cycles (%.2f wanted): %s\n",
            rate, cycles, MG3D_RATE, fell ? "ok" : "FAILED");
  double imbalance = fabs(fig.rsum - (fig.bsum - fig.outflow));
  double scale = fabs(fig.bsum) + fabs(fig.outflow);
  int conserved = imbalance <= MG3D_CONSERVATION_TOL * scale;
  ok &= conserved;
  op_printf("check conservation: |sum r - (inflow - outflow)| = %.3e of %.3e: %s\n", imbalance,
            scale, conserved ? "ok" : "FAILED");
  double lo = MG3D_G0 - MG3D_GAMP, hi = MG3D_G0 + MG3D_GAMP;
  int bounded = fig.umin >= lo - MG3D_BOUNDS_SLACK && fig.umax <= hi + MG3D_BOUNDS_SLACK;
  ok &= bounded;
  op_printf("check bounds: u in [%.6f, %.6f], inflow in [%.3f, %.3f]: %s\n", fig.umin, fig.umax, lo,
            hi, bounded ? "ok" : "FAILED");
  double dev = fmax(fs.umax - MG3D_G0, MG3D_G0 - fs.umin) / MG3D_G0;
  int uniform = dev <= MG3D_FREE_STREAM_TOL;
  ok &= uniform;
  op_printf("check free stream: uniform inflow, %d cycles, largest deviation %.3e: %s\n",
            MG3D_FREE_CYCLES, dev, uniform ? "ok" : "FAILED");
  op_printf("mg3d: %d cycles in %.3f s\n", cycles, wall1 - wall0);
  op_printf("This test is considered %s\n", ok ? "PASSED" : "FAILED");
  op_timing_output();
  op_exit();
  return ok ? 0 : 1;
}
