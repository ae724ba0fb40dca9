/* SPDX-License-Identifier: BSD-3-Clause */
/* Built by plain g++ with `pkg-config --cflags --libs op2` (as OP2's users build their MPI
 * programs), <mpi.h> included first as OP2's *_mpi.cpp files do: op2.pc's flags must find mpi.h
 * and keep MPI's C++ bindings out, which need a library op2.pc does not link. */
#include <mpi.h>

#include "op_lib_mpi.h"

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  op_set s = op_decl_set(3, "s");
  int ok = rank == 0 && s && s->size == 3 && MPI_ROOT == 0 && MPI_FLOAT != MPI_DATATYPE_NULL;
  op_exit();
  if (!ok) fprintf(stderr, "t751: rank %d, set %p\n", rank, (void *)s);
  return ok ? 0 : 1;
}
