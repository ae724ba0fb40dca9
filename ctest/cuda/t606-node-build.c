/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI + CUDA: one kernel build per machine. Under mpiexec (all ranks on this machine) with
 * OP2_BACKEND=cuda-emu and a fresh kernel cache, the machine's first rank must compile every
 * loop's module and every other rank must load it from the disk cache, compiling nothing; the
 * loops must still compute what plain C computes. Usage: t606-node-build */

#include "mpi/mpi_test.h"
#include "runtime/op2_impl.h"

enum { NN = 300, NE = 700, LOOPS = 3 };

KERNEL(
    init_v, static void init_v(const double *x, double *v) { v[0] = 2.0 * x[0] - 1.0; })

KERNEL(
    spread, static void spread(const double *va, const double *vb, double *ra, double *rb) {
      ra[0] += va[0] - vb[0];
      rb[0] += 0.5 * va[0];
    })

KERNEL(
    total, static void total(const double *r, double *sum) { *sum += r[0]; })

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  char dir[4096];
  mt_fresh_cache(dir, sizeof dir);
  op_init(argc, argv, 0);
  op2_context *ctx = op2_ctx();
  CHECK(ctx->mpi.size >= 2 && ctx->mpi.node_size == ctx->mpi.size);
  unsigned rng = rm_rng(606);
  mt_set nodes = mt_decl_set(MT_LOCAL, MT_SPLIT_SKEWED, NN, "nodes");
  mt_set edges = mt_decl_set(MT_LOCAL, MT_SPLIT_SKEWED, NE, "edges");
  int *en = rm_map_values(NE, 2, NN, 50, &rng);
  op_map pedge = mt_decl_map(&edges, &nodes, 2, en, "pedge");
  double *x = rm_doubles(NN, -1, 1, &rng), *v = rm_alloc(sizeof(double) * NN);
  double *r = rm_alloc(sizeof(double) * NN);
  op_dat dx = mt_decl_dat(&nodes, 1, "double", sizeof(double), x, "x");
  op_dat dv = mt_decl_dat(&nodes, 1, "double", sizeof(double), NULL, "v");
  op_dat dr = mt_decl_dat(&nodes, 1, "double", sizeof(double), NULL, "r");

  op_par_loop(init_v_src, "init_v", nodes.set, op_arg_dat(dx, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(dv, -1, OP_ID, 1, "double", OP_WRITE));
  op_par_loop(spread_src, "spread", edges.set, op_arg_dat(dv, 0, pedge, 1, "double", OP_READ),
              op_arg_dat(dv, 1, pedge, 1, "double", OP_READ),
              op_arg_dat(dr, 0, pedge, 1, "double", OP_INC),
              op_arg_dat(dr, 1, pedge, 1, "double", OP_INC));
  double sum = 0, want = 0;
  op_par_loop(total_src, "total", nodes.set, op_arg_dat(dr, -1, OP_ID, 1, "double", OP_READ),
              op_arg_gbl(&sum, 1, "double", OP_INC));
  for (int n = 0; n < NN; n++) init_v(x + n, v + n);
  for (int e = 0; e < NE; e++)
    spread(v + en[2 * e], v + en[2 * e + 1], r + en[2 * e], r + en[2 * e + 1]);
  for (int n = 0; n < NN; n++) total(r + n, &want);
  CHECK_NEAR(sum, want, 1e-12);

  int compiled = ctx->jit.compiles, loaded = ctx->jit.disk_hits, first = ctx->mpi.node_rank == 0;
  int ok = first ? compiled == LOOPS && loaded == 0 : compiled == 0 && loaded == LOOPS, all_ok = 0;
  if (!ok)
    fprintf(stderr, "node rank %d: compiled %d, from disk %d; expected %d and %d\n",
            ctx->mpi.node_rank, compiled, loaded, first ? LOOPS : 0, first ? 0 : LOOPS);
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  CHECK(all_ok);
  if (mt_rank() == 0)
    printf("t606 on %d ranks: node rank 0 compiled %d modules, the others loaded them\n", mt_size(),
           LOOPS);
  free(x), free(v), free(r), free(en);
  op_exit();
  mt_remove_cache(dir);
  MPI_Finalize();
  return 0;
}
