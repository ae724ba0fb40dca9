/* SPDX-License-Identifier: BSD-3-Clause */
/* A program that calls MPI itself after op_init (as OP2's MPI programs do) runs as one process
 * without mpirun: MPI_Comm_rank gives 0, MPI_Comm_size 1, its own MPI_Allreduce works, and the
 * library's loops and reductions give plain C's results. Under mpirun the sizes are the
 * launcher's. The argument is the number of ranks expected. */
#include <mpi.h>

#include "test.h"

enum { N = 10000 };

static const char *sum_src = "static void sum(const double *v, double *s) { *s += v[0]; }\n";

int main(int argc, char **argv) {
  CHECK(argc == 2);
  op_init(argc, argv, 0);
  int rank = -1, size = -1;
  CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank) == MPI_SUCCESS);
  CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size) == MPI_SUCCESS);
  CHECK_EQ_INT(size, atoi(argv[1]));
  CHECK(rank >= 0 && rank < size);
  CHECK_EQ_INT(op_is_root(), rank == 0);
  int one = 1, count = 0;
  CHECK(MPI_Allreduce(&one, &count, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK_EQ_INT(count, size);

  /* every rank declares the whole set (OP2's replicated form) */
  static double v[N];
  double want = 0, got = 0;
  for (int i = 0; i < N; i++) want += v[i] = (double)(i % 13) * 0.5;
  op_set s = op_decl_set(N, "s");
  op_dat dv = op_decl_dat(s, 1, "double", v, "v");
  op_par_loop(sum_src, "sum", s, op_arg_dat(dv, -1, OP_ID, 1, "double", OP_READ),
              op_arg_gbl(&got, 1, "double", OP_INC));
  CHECK(got == want);
  CHECK_EQ_INT(op_get_size(s), N);
  op_exit();
  return 0;
}
