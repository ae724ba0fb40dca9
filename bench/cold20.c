/* SPDX-License-Identifier: BSD-3-Clause */
/* A 20-kernel program's cold start against its warm start (bench/cold20.py, docs/PERFORMANCE.md):
 * a 3-D multigrid Euler code in OP2's style (op_init(argc, argv, 2), kernel functions in a header,
 * helpers in a shared one) on a periodic N x N x N grid of nodes with its edges, boundary nodes and
 * a coarse level. Run it twice with one fresh OP2_CACHE_DIR: the first run compiles every kernel,
 * the second loads them.
 *
 *   OP2_KERNEL_PATH=bench build/bench/cold20 [N [ITERATIONS]]   (default 48 60: about 1.5 s)
 *
 * Prints op_timing_output's table (loop calls on TinyCC code against optimised code), the
 * residual and extrema (equal between runs and tiers), the wall time from op_init to op_exit and
 * the CPU time of the process and of the compilers it ran. */
#include "op_seq.h"

#include <sys/resource.h>

#include "cold20_kernels.h"

double spacing;

static int idx(int n, int i, int j, int k) {
  return (k * n + j) * n + i;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 48, iters = argc > 2 ? atoi(argv[2]) : 60;
  if (n < 4 || n % 2 || iters < 1) {
    fprintf(stderr, "usage: cold20 [N (even, >= 4) [ITERATIONS (>= 1)]]\n");
    return 2;
  }
  double cpu, t0, t1;
  op_timers(&cpu, &t0);
  op_init(argc, argv, 2);
  spacing = 1.0 / (n - 1);
  op_decl_const(1, "double", &spacing, "spacing");
  int nn = n * n * n, nc = n / 2, ncn = nc * nc * nc;
  int ne = 3 * nn, nce = 3 * ncn, nb = 2 * n * n;
  double *x = malloc(3 * sizeof(double) * (size_t)nn);
  int *e2n = malloc(2 * sizeof(int) * (size_t)ne), *ce2n = malloc(2 * sizeof(int) * (size_t)nce);
  int *b2n = malloc(sizeof(int) * (size_t)nb), *f2c = malloc(sizeof(int) * (size_t)nn);
  for (int k = 0; k < n; k++)
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) {
        int p = idx(n, i, j, k);
        x[3 * p] = (double)i / (n - 1) - 0.5 + 0.01 * sin(j + k);
        x[3 * p + 1] = (double)j / (n - 1) + 0.01 * cos(i);
        x[3 * p + 2] = (double)k / (n - 1);
        f2c[p] = idx(nc, i / 2, j / 2, k / 2);
      }
  /* edges along each axis, on the fine and the coarse grid */
  int *grids[2] = {e2n, ce2n}, sizes[2] = {n, nc};
  for (int g = 0; g < 2; g++) {
    int m = sizes[g], e = 0, *map = grids[g];
    for (int axis = 0; axis < 3; axis++)
      for (int k = 0; k < m; k++)
        for (int j = 0; j < m; j++)
          for (int i = 0; i < m; i++) {
            int c[3] = {i, j, k};
            c[axis] = (c[axis] + 1) % m; /* periodic */
            map[2 * e] = idx(m, i, j, k);
            map[2 * e + 1] = idx(m, c[0], c[1], c[2]);
            e++;
          }
  }
  for (int k = 0, b = 0; k < n; k++)
    for (int j = 0; j < n; j++) {
      b2n[b++] = idx(n, 0, j, k);
      b2n[b++] = idx(n, n - 1, j, k);
    }

  op_set nodes = op_decl_set(nn, "nodes"), edges = op_decl_set(ne, "edges");
  op_set bnodes = op_decl_set(nb, "bnodes"), cnodes = op_decl_set(ncn, "cnodes");
  op_set cedges = op_decl_set(nce, "cedges");
  op_map pedge = op_decl_map(edges, nodes, 2, e2n, "pedge");
  op_map pbnd = op_decl_map(bnodes, nodes, 1, b2n, "pbnd");
  op_map pcedge = op_decl_map(cedges, cnodes, 2, ce2n, "pcedge");
  op_map pf2c = op_decl_map(nodes, cnodes, 1, f2c, "pf2c");
  op_dat p_x = op_decl_dat(nodes, 3, "double", x, "x");
  op_dat p_v = op_decl_dat(nodes, NVAR, "double", (double *)NULL, "v");
  op_dat p_old = op_decl_dat(nodes, NVAR, "double", (double *)NULL, "old");
  op_dat p_flux = op_decl_dat(nodes, NVAR, "double", (double *)NULL, "flux");
  op_dat p_vol = op_decl_dat(nodes, 1, "double", (double *)NULL, "vol");
  op_dat p_dt = op_decl_dat(nodes, 1, "double", (double *)NULL, "dt");
  op_dat p_n = op_decl_dat(edges, 3, "double", (double *)NULL, "normal");
  op_dat p_csum = op_decl_dat(cnodes, NVAR, "double", (double *)NULL, "csum");
  op_dat p_ccount = op_decl_dat(cnodes, 1, "double", (double *)NULL, "ccount");
  op_dat p_ccorr = op_decl_dat(cnodes, NVAR, "double", (double *)NULL, "ccorr");

  op_par_loop(init_vars, "init_vars", nodes, op_arg_dat(p_x, -1, OP_ID, 3, "double", OP_READ),
              op_arg_dat(p_v, -1, OP_ID, NVAR, "double", OP_WRITE));
  op_par_loop(node_volume, "node_volume", nodes, op_arg_dat(p_x, -1, OP_ID, 3, "double", OP_READ),
              op_arg_dat(p_vol, -1, OP_ID, 1, "double", OP_WRITE));
  op_par_loop(edge_normal, "edge_normal", edges, op_arg_dat(p_x, 0, pedge, 3, "double", OP_READ),
              op_arg_dat(p_x, 1, pedge, 3, "double", OP_READ),
              op_arg_dat(p_n, -1, OP_ID, 3, "double", OP_WRITE));

  double rms = 0, least = 0, total = 0, peak = 0;
  int bad = 0;
  for (int it = 0; it < iters; it++) {
    op_par_loop(copy_vars, "copy_vars", nodes, op_arg_dat(p_v, -1, OP_ID, NVAR, "double", OP_READ),
                op_arg_dat(p_old, -1, OP_ID, NVAR, "double", OP_WRITE));
    op_par_loop(step_factor, "step_factor", nodes,
                op_arg_dat(p_v, -1, OP_ID, NVAR, "double", OP_READ),
                op_arg_dat(p_vol, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(p_dt, -1, OP_ID, 1, "double", OP_WRITE));
    for (int stage = 0; stage < 3; stage++) {
      op_par_loop(zero_flux, "zero_flux", nodes,
                  op_arg_dat(p_flux, -1, OP_ID, NVAR, "double", OP_WRITE));
      op_par_loop(edge_flux, "edge_flux", edges, op_arg_dat(p_n, -1, OP_ID, 3, "double", OP_READ),
                  op_arg_dat(p_v, 0, pedge, NVAR, "double", OP_READ),
                  op_arg_dat(p_v, 1, pedge, NVAR, "double", OP_READ),
                  op_arg_dat(p_flux, 0, pedge, NVAR, "double", OP_INC),
                  op_arg_dat(p_flux, 1, pedge, NVAR, "double", OP_INC));
      op_par_loop(bnd_flux, "bnd_flux", bnodes, op_arg_dat(p_x, 0, pbnd, 3, "double", OP_READ),
                  op_arg_dat(p_v, 0, pbnd, NVAR, "double", OP_READ),
                  op_arg_dat(p_flux, 0, pbnd, NVAR, "double", OP_INC));
      op_par_loop(time_step, "time_step", nodes, op_arg_gbl(&stage, 1, "int", OP_READ),
                  op_arg_dat(p_dt, -1, OP_ID, 1, "double", OP_READ),
                  op_arg_dat(p_vol, -1, OP_ID, 1, "double", OP_READ),
                  op_arg_dat(p_old, -1, OP_ID, NVAR, "double", OP_READ),
                  op_arg_dat(p_flux, -1, OP_ID, NVAR, "double", OP_READ),
                  op_arg_dat(p_v, -1, OP_ID, NVAR, "double", OP_WRITE));
    }
    op_par_loop(restrict_zero, "restrict_zero", cnodes,
                op_arg_dat(p_csum, -1, OP_ID, NVAR, "double", OP_WRITE),
                op_arg_dat(p_ccount, -1, OP_ID, 1, "double", OP_WRITE));
    op_par_loop(restrict_add, "restrict_add", nodes,
                op_arg_dat(p_flux, -1, OP_ID, NVAR, "double", OP_READ),
                op_arg_dat(p_csum, 0, pf2c, NVAR, "double", OP_INC),
                op_arg_dat(p_ccount, 0, pf2c, 1, "double", OP_INC));
    op_par_loop(restrict_mean, "restrict_mean", cnodes,
                op_arg_dat(p_ccount, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(p_csum, -1, OP_ID, NVAR, "double", OP_RW));
    op_par_loop(zero_corr, "zero_corr", cnodes,
                op_arg_dat(p_ccorr, -1, OP_ID, NVAR, "double", OP_WRITE));
    op_par_loop(coarse_smooth, "coarse_smooth", cedges,
                op_arg_dat(p_csum, 0, pcedge, NVAR, "double", OP_READ),
                op_arg_dat(p_csum, 1, pcedge, NVAR, "double", OP_READ),
                op_arg_dat(p_ccorr, 0, pcedge, NVAR, "double", OP_INC),
                op_arg_dat(p_ccorr, 1, pcedge, NVAR, "double", OP_INC));
    op_par_loop(prolong, "prolong", nodes, op_arg_dat(p_ccorr, 0, pf2c, NVAR, "double", OP_READ),
                op_arg_dat(p_dt, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(p_v, -1, OP_ID, NVAR, "double", OP_RW));
    op_par_loop(dampen, "dampen", nodes, op_arg_dat(p_old, -1, OP_ID, NVAR, "double", OP_READ),
                op_arg_dat(p_v, -1, OP_ID, NVAR, "double", OP_RW));
    rms = 0, bad = 0, least = 1e300, total = 0, peak = 0;
    op_par_loop(residual, "residual", nodes, op_arg_dat(p_flux, -1, OP_ID, NVAR, "double", OP_READ),
                op_arg_gbl(&rms, 1, "double", OP_INC));
    op_par_loop(count_bad, "count_bad", nodes, op_arg_dat(p_v, -1, OP_ID, NVAR, "double", OP_READ),
                op_arg_gbl(&bad, 1, "int", OP_INC));
    op_par_loop(min_dt, "min_dt", nodes, op_arg_dat(p_dt, -1, OP_ID, 1, "double", OP_READ),
                op_arg_gbl(&least, 1, "double", OP_MIN));
    op_par_loop(energy_stats, "energy_stats", nodes,
                op_arg_dat(p_v, -1, OP_ID, NVAR, "double", OP_READ),
                op_arg_dat(p_vol, -1, OP_ID, 1, "double", OP_READ),
                op_arg_gbl(&total, 1, "double", OP_INC), op_arg_gbl(&peak, 1, "double", OP_MAX));
  }
  op_timing_output();
  op_exit();
  op_timers(&cpu, &t1);
  printf("cold20 %d^3: rms %.15e  bad %d  min dt %.15e  energy %.15e  peak %.15e\n", n, sqrt(rms),
         bad, least, total, peak);
  /* the process's CPU time (its loops, TinyCC, the library's threads) and its compilers' (the
   * optimising tier's, which runs beside the loops): on a machine with a core to spare for the
   * compilers, the wall time is about the first */
  struct rusage self, children;
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &children);
  printf("wall %.3f s  cpu %.3f s  compilers' cpu %.3f s\n", t1 - t0,
         self.ru_utime.tv_sec + self.ru_stime.tv_sec +
             1e-6 * (self.ru_utime.tv_usec + self.ru_stime.tv_usec),
         children.ru_utime.tv_sec + children.ru_stime.tv_sec +
             1e-6 * (children.ru_utime.tv_usec + children.ru_stime.tv_usec));
  free(x), free(e2n), free(ce2n), free(b2n), free(f2c);
  return 0;
}
