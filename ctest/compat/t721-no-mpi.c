/* SPDX-License-Identifier: BSD-3-Clause */
/* A program that does not use MPI, run without a launcher, never touches it: after op_init, a
 * loop and op_exit, MPI is neither initialised nor finalised. <mpi.h> is deliberately not
 * included (that is what tells op2.h the program does not use MPI); the two queries, which MPI
 * allows at any time, are declared here. */
#include "test.h"

int MPI_Initialized(int *flag);
int MPI_Finalized(int *flag);

static const char *twice_src = "static void twice(double *v) { v[0] *= 2.0; }\n";

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  double v[3] = {1, 2, 3}, got[3];
  op_set s = op_decl_set(3, "s");
  op_dat dv = op_decl_dat(s, 1, "double", v, "v");
  op_par_loop(twice_src, "twice", s, op_arg_dat(dv, -1, OP_ID, 1, "double", OP_RW));
  op_fetch_data(dv, got);
  CHECK(got[0] == 2 && got[1] == 4 && got[2] == 6);
  int up = -1;
  MPI_Initialized(&up);
  CHECK_EQ_INT(up, 0);
  op_exit();
  int down = -1;
  MPI_Initialized(&up);
  MPI_Finalized(&down);
  CHECK_EQ_INT(up, 0);
  CHECK_EQ_INT(down, 0);
  return 0;
}
