/* SPDX-License-Identifier: BSD-3-Clause */
/* The cost of one op_par_loop call under MPI when the loop does almost nothing: a direct loop
 * over 64 elements per rank, called N times (best of 5 rounds). What it measures is the call's
 * fixed work, mostly its two agreements across ranks (runtime/mpi/agree.c).
 * Usage: mpiexec -np 2 build/bench/mpi_loop_call [N] (OP2_BACKEND=seq OP2_JIT=tcc) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "op2.h"

static const char *inc = "static void inc(double *x) { x[0] += 1.0; }";

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  op_init(argc, argv, 0);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  op_set s = op_decl_set(64, "s");
  op_dat x = op_decl_dat(s, 1, "double", NULL, "x");
  int n = argc > 1 ? atoi(argv[1]) : 20000;
  for (int i = 0; i < 200; i++) /* compiled, distributed and warm */
    op_par_loop(inc, "inc", s, op_arg_dat(x, -1, OP_ID, 1, "double", OP_RW));
  double best = 1e30;
  for (int round = 0; round < 5; round++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < n; i++)
      op_par_loop(inc, "inc", s, op_arg_dat(x, -1, OP_ID, 1, "double", OP_RW));
    double t = (MPI_Wtime() - t0) / n;
    if (t < best) best = t;
  }
  if (rank == 0) printf("op_par_loop, 64 elements a rank: %.2f us a call\n", best * 1e6);
  op_exit();
  MPI_Finalize();
  return 0;
}
