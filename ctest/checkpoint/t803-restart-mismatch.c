/* SPDX-License-Identifier: BSD-3-Clause */
/* Restarts that would go wrong silently are refused. (1) Another mesh of the same sizes (the
 * same edges between renumbered nodes): the checkpoint names its mesh (every map's values
 * hashed in the user's numbering), so restoring it onto this one is refused, naming the file
 * and the map. (2) A run that stops before the position of a longer run's checkpoint: its dats
 * were never restored, so reading one (op_fetch_data) is refused, naming the dat and the file,
 * instead of returning the initial values. The same mesh and a long enough run restart (t802
 * checks the values). Usage: t803-restart-mismatch WORKDIR. Built with T803_MPI, the program
 * starts MPI itself (so op_init may follow op_exit) and runs on every rank of mpiexec: the ranks
 * hash the map together, and every rank refuses mesh B. */
#include <sys/stat.h>
#include <unistd.h>
#ifdef T803_MPI
#include <mpi.h>
#endif

#include "test.h"

enum { NODES = 60, STEPS = 10, K = 6 };

static const char *spread_src =
    "void spread(const double *q, double *a, double *b, double *sum) {\n"
    "  a[0] += 0.25 * q[0]; b[0] -= 0.125 * q[0]; *sum += q[0];\n"
    "}\n";
static const char *relax_src =
    "void relax(double *x, const double *r) { x[0] = 0.5 * x[0] + r[0]; }\n";

static op_set nodes, edges;
static op_map e2n;
static op_dat x, r;

/* A ring of edges; `shift` renumbers the nodes (node i is called (i + shift) % NODES). */
static void declare(int shift) {
  nodes = op_decl_set(NODES, "nodes");
  edges = op_decl_set(NODES, "edges");
  int map[2 * NODES];
  double x0[NODES], q[NODES];
  for (int e = 0; e < NODES; e++) {
    map[2 * e] = (e + shift) % NODES;
    map[2 * e + 1] = (e + 1 + shift) % NODES;
    x0[e] = 1.0 + 0.01 * e, q[e] = 0;
  }
  e2n = op_decl_map(edges, nodes, 2, map, "e2n");
  x = op_decl_dat(nodes, 1, "double", x0, "x");
  r = op_decl_dat(nodes, 1, "double", q, "r");
}

static double run_steps(int steps) {
  double total = 0;
  for (int s = 0; s < steps; s++) {
    op_checkpoint();
    double sum = 0;
    op_par_loop(spread_src, "spread", edges, op_arg_dat(x, 0, e2n, 1, "double", OP_READ),
                op_arg_dat(r, 0, e2n, 1, "double", OP_INC),
                op_arg_dat(r, 1, e2n, 1, "double", OP_INC), op_arg_gbl(&sum, 1, "double", OP_INC));
    op_par_loop(relax_src, "relax", nodes, op_arg_dat(x, -1, OP_ID, 1, "double", OP_RW),
                op_arg_dat(r, -1, OP_ID, 1, "double", OP_READ));
    total += sum;
  }
  return total;
}

int main(int argc, char **argv) {
  CHECK(argc == 2);
#ifdef T803_MPI
  MPI_Init(&argc, &argv);
#endif
  mkdir(argv[1], 0755);
  char file[4096];
  snprintf(file, sizeof file, "%s/t803.ckpt.h5", argv[1]);
  unlink(file);
#ifdef T803_MPI
  MPI_Barrier(MPI_COMM_WORLD); /* no rank removes the file after another wrote it */
#endif
  double got[NODES] = {0}, ref[NODES] = {0};

  op_init(1, argv, 0); /* mesh A, checkpoints before every step, stops after K steps */
  declare(0);
  CHECK_EQ_INT(op_checkpointing_init(file, "manual"), 0);
  run_steps(K);
  op_exit();
  CHECK(access(file, R_OK) == 0);

  op_init(1, argv, 0); /* the reference: mesh A, the whole run, restarted from it */
  declare(0);
  CHECK_EQ_INT(op_checkpointing_init(file, "manual"), 1);
  run_steps(STEPS);
  op_fetch_data(x, ref);
  op_exit();

  test_catch_errors();
  /* (1) mesh B: the same sizes, its nodes renumbered */
  op_init(1, argv, 0);
  declare(7);
  CHECK_EQ_INT(op_checkpointing_init(file, "manual"), 1);
  EXPECT_ERROR(run_steps(STEPS), "it was written for another mesh");
  CHECK_CONTAINS(op_last_error(), file);
  CHECK_CONTAINS(op_last_error(), "map 'e2n' from 'edges' to 'nodes', dim 2, values ");
  op_exit();

  /* (2) a run of fewer steps than the checkpoint's position: its data were never restored */
  op_init(1, argv, 0);
  declare(0);
  CHECK_EQ_INT(op_checkpointing_init(file, "manual"), 1);
  run_steps(K - 3);
  EXPECT_ERROR(op_fetch_data(x, got), "dat 'x' read after ");
  CHECK_CONTAINS(op_last_error(), file);
  CHECK_CONTAINS(op_last_error(), "stops short of the checkpoint");
  op_exit();

  /* The same mesh, run long enough, still restarts to the reference's values. */
  op_init(1, argv, 0);
  declare(0);
  CHECK_EQ_INT(op_checkpointing_init(file, "manual"), 1);
  run_steps(STEPS);
  op_fetch_data(x, got);
  op_exit();
  CHECK(memcmp(got, ref, sizeof got) == 0);
#ifdef T803_MPI
  MPI_Finalize();
#endif
  return 0;
}
