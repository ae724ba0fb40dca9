/* SPDX-License-Identifier: BSD-3-Clause */
// Cold against warm start of a program whose kernels are C++ (bench/cxx_cold_kernels.h): run
// twice with the same fresh OP2_CACHE_DIR, the first run compiles every kernel, the second loads
// them (docs/PERFORMANCE.md). build/bench/cxx_cold ITERATIONS [NODES], with
// OP2_KERNEL_PATH=bench (where the kernels' header is). Prints the residual, the wall time and
// the CPU time of the process and of the compilers it ran.
#include "op_seq.h"

#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cxx_cold_kernels.h"

int main(int argc, char **argv) {
  int iters = argc > 1 ? std::atoi(argv[1]) : 100;
  int nnode = argc > 2 ? std::atoi(argv[2]) : 50000, nedge = 3 * nnode;
  double t0, t1, cpu;
  op_timers(&cpu, &t0);
  op_init(argc, argv, 0);
  std::vector<double> coord(3 * nnode), vol(nnode), w(2 * nedge);
  std::vector<int> edge(2 * nedge);
  unsigned seed = 12345;
  for (int i = 0; i < nnode; i++) {
    for (int d = 0; d < 3; d++) coord[3 * i + d] = (double)((i * (d + 7)) % 101) / 10.0;
    vol[i] = 0.5 + (double)(i % 17) / 17.0;
  }
  for (int e = 0; e < nedge; e++) {
    seed = seed * 1103515245u + 12345u;
    edge[2 * e] = e % nnode;
    edge[2 * e + 1] = (int)((seed >> 8) % (unsigned)nnode);
    w[2 * e] = 0.01 + (double)(e % 13) / 130.0;
    w[2 * e + 1] = 0.001 * (double)(e % 5);
  }
  op_set nodes = op_decl_set(nnode, "nodes"), edges = op_decl_set(nedge, "edges");
  op_map e2n = op_decl_map(edges, nodes, 2, edge.data(), "e2n");
  op_dat p_coord = op_decl_dat(nodes, 3, "double", coord.data(), "coord");
  op_dat p_vol = op_decl_dat(nodes, 1, "double", vol.data(), "vol");
  op_dat p_w = op_decl_dat(edges, 2, "double", w.data(), "w");
  op_dat p_vars = op_decl_dat(nodes, NVAR, "double", (double *)NULL, "vars");
  op_dat p_flux = op_decl_dat(nodes, NVAR, "double", (double *)NULL, "flux");
  op_dat p_dt = op_decl_dat(nodes, 1, "double", (double *)NULL, "dt");
  op_par_loop(init_vars, "init_vars", nodes, op_arg_dat(p_coord, -1, OP_ID, 3, "double", OP_READ),
              op_arg_dat(p_vars, -1, OP_ID, NVAR, "double", OP_WRITE));
  double rms = 0;
  for (int it = 0; it < iters; it++) {
    op_par_loop(calc_dt, "calc_dt", nodes, op_arg_dat(p_vars, -1, OP_ID, NVAR, "double", OP_READ),
                op_arg_dat(p_vol, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(p_dt, -1, OP_ID, 1, "double", OP_WRITE));
    for (int stage = 0; stage < 3; stage++) {
      op_par_loop(zero_flux, "zero_flux", nodes,
                  op_arg_dat(p_flux, -1, OP_ID, NVAR, "double", OP_WRITE));
      op_par_loop(flux_edge, "flux_edge", edges, op_arg_dat(p_w, -1, OP_ID, 2, "double", OP_READ),
                  op_arg_dat(p_vars, 0, e2n, NVAR, "double", OP_READ),
                  op_arg_dat(p_vars, 1, e2n, NVAR, "double", OP_READ),
                  op_arg_dat(p_flux, 0, e2n, NVAR, "double", OP_INC),
                  op_arg_dat(p_flux, 1, e2n, NVAR, "double", OP_INC));
      op_par_loop(time_step, "time_step", nodes, op_arg_gbl(&stage, 1, "int", OP_READ),
                  op_arg_dat(p_dt, -1, OP_ID, 1, "double", OP_READ),
                  op_arg_dat(p_flux, -1, OP_ID, NVAR, "double", OP_READ),
                  op_arg_dat(p_vars, -1, OP_ID, NVAR, "double", OP_RW));
    }
    rms = 0;
    op_par_loop(residual, "residual", nodes, op_arg_dat(p_flux, -1, OP_ID, NVAR, "double", OP_READ),
                op_arg_gbl(&rms, 1, "double", OP_INC));
  }
  op_exit();
  op_timers(&cpu, &t1);
  // the process's CPU time (its threads: the loops, TinyCC) and its compilers' (g++ for the C++
  // tier, which the first call waits for; the optimising tier's, which runs beside the loops)
  struct rusage self, children;
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &children);
  auto secs = [](const struct rusage &r) {
    return r.ru_utime.tv_sec + r.ru_stime.tv_sec + 1e-6 * (r.ru_utime.tv_usec + r.ru_stime.tv_usec);
  };
  std::printf("rms %.17g  wall %.3f s  cpu %.3f s  compilers' cpu %.3f s\n", rms, t1 - t0,
              secs(self), secs(children));
  return 0;
}
