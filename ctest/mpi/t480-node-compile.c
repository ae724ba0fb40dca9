/* SPDX-License-Identifier: BSD-3-Clause */
/* The optimising tier under MPI: one compile per machine. With OP2_JIT=tiered and a fresh kernel
 * cache, every rank starts on TinyCC code; only the machine's first rank runs the system compiler,
 * and the others must pick its optimised kernels up from the cache and switch to them, never
 * compiling themselves. Results must match plain C throughout. Usage: t480-node-compile */
#include <time.h>

#include "mpi_test.h"
#include "runtime/op2_impl.h"

enum { NN = 400, NE = 900, KERNELS = 2 };

KERNEL(
    relax, static void relax(const double *x, double *v) { v[0] = 0.5 * v[0] + x[0]; })

KERNEL(
    gather_edges,
    static void gather_edges(const double *va, const double *vb, double *ra, double *rb) {
      ra[0] += va[0] - vb[0];
      rb[0] += va[0] + vb[0];
    })

static int all_optimised(op2_context *ctx) {
  int n = 0;
  for (int i = 0; i < ctx->kernels.count; i++) {
    const op2_kernel *k = ctx->kernels.items[i];
    n += op2_kernel_tier(k) == OP2_TIER_CC;
  }
  return n == KERNELS && ctx->kernels.count == KERNELS;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  char dir[4096];
  mt_fresh_cache(dir, sizeof dir);
  CHECK(setenv("OP2_JIT", "tiered", 1) == 0);
  op_init(argc, argv, 0);
  op2_context *ctx = op2_ctx();
  CHECK(ctx->mpi.size >= 2 && ctx->mpi.node_size == ctx->mpi.size);
  unsigned rng = rm_rng(480);
  mt_set nodes = mt_decl_set(MT_LOCAL, MT_SPLIT_SKEWED, NN, "nodes");
  mt_set edges = mt_decl_set(MT_LOCAL, MT_SPLIT_SKEWED, NE, "edges");
  int *en = rm_map_values(NE, 2, NN, 60, &rng);
  op_map pedge = mt_decl_map(&edges, &nodes, 2, en, "pedge");
  double *x = rm_doubles(NN, -1, 1, &rng), *v = rm_alloc(sizeof(double) * NN);
  double *r = rm_alloc(sizeof(double) * NN);
  op_dat dx = mt_decl_dat(&nodes, 1, "double", sizeof(double), x, "x");
  op_dat dv = mt_decl_dat(&nodes, 1, "double", sizeof(double), NULL, "v");
  op_dat dr = mt_decl_dat(&nodes, 1, "double", sizeof(double), NULL, "r");

  /* Iterate until every rank runs optimised code (a minute at most: a compile takes seconds). */
  double start = MPI_Wtime();
  int iterations = 0, everyone = 0;
  while (!everyone) {
    op_par_loop(relax_src, "relax", nodes.set, op_arg_dat(dx, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(dv, -1, OP_ID, 1, "double", OP_RW));
    op_par_loop(gather_edges_src, "gather_edges", edges.set,
                op_arg_dat(dv, 0, pedge, 1, "double", OP_READ),
                op_arg_dat(dv, 1, pedge, 1, "double", OP_READ),
                op_arg_dat(dr, 0, pedge, 1, "double", OP_INC),
                op_arg_dat(dr, 1, pedge, 1, "double", OP_INC));
    for (int n = 0; n < NN; n++) relax(x + n, v + n);
    for (int e = 0; e < NE; e++)
      gather_edges(v + en[2 * e], v + en[2 * e + 1], r + en[2 * e], r + en[2 * e + 1]);
    iterations++;
    int mine = all_optimised(ctx);
    MPI_Allreduce(&mine, &everyone, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    double elapsed = MPI_Wtime() - start;
    MPI_Bcast(&elapsed, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD); /* one decision for all ranks */
    if (!everyone && elapsed > 60) {
      fprintf(stderr, "rank %d: still on TinyCC code after %d iterations (%.0f s)\n", mt_rank(),
              iterations, elapsed);
      exit(1);
    }
    struct timespec pause = {0, 10 * 1000 * 1000};
    if (!everyone) nanosleep(&pause, NULL);
  }
  double *got = mt_fetch_all(dr, NN, sizeof(double));
  mt_check_doubles(got, r, NN, 1e-9, "r");
  free(got);

  int first = ctx->mpi.node_rank == 0, compiled = ctx->jit.cc_compiles;
  int ok = first ? compiled == KERNELS : compiled == 0, all_ok = 0;
  if (!ok)
    fprintf(stderr, "node rank %d ran the optimising compiler %d times, expected %d\n",
            ctx->mpi.node_rank, compiled, first ? KERNELS : 0);
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  CHECK(all_ok);
  if (mt_rank() == 0)
    printf(
        "t480 on %d ranks: one optimising compile per kernel, all ranks on it after %d "
        "iterations\n",
        mt_size(), iterations);
  free(x), free(v), free(r), free(en);
  op_exit();
  mt_remove_cache(dir);
  MPI_Finalize();
  return 0;
}
