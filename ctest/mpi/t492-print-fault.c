/* SPDX-License-Identifier: BSD-3-Clause */
/* op_print_dat_to_binfile whose gather fails writes no file. Under OP2_FAULT=gather:LAST the
 * print's gather fails on the last rank, so every rank's call fails: rank 0 must not write the file
 * from a buffer the gather never filled (it did when the print ignored the fetch's failure). The
 * fault fires once: the same call made again writes the whole dat in the user's order. Usage:
 * t492-print-fault FILE */
#include <unistd.h>

#include "mpi_test.h"

enum { NN = 200 };

static int errors_seen;

static void returning_handler(const char *message, void *user) {
  (void)message, (void)user;
  errors_seen++;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  CHECK(argc == 2);
  const char *file = argv[1];
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char dir[4096];
  mt_fresh_cache(dir, sizeof dir);
  op_set_error_handler(returning_handler, NULL);
  op_init(argc, argv, 0);
  unsigned rng = rm_rng(492);
  mt_set nodes = mt_decl_set(MT_LOCAL, MT_SPLIT_SKEWED, NN, "nodes");
  double *xs = rm_doubles(NN, -1, 1, &rng);
  op_dat x = mt_decl_dat(&nodes, 1, "double", sizeof(double), xs, "x");
  if (rank == 0) unlink(file);

  op_print_dat_to_binfile(x, file);
  CHECK(errors_seen >= 1);
  if (rank == 0) CHECK(access(file, F_OK) != 0); /* nothing written */

  errors_seen = 0;
  op_print_dat_to_binfile(x, file);
  CHECK_EQ_INT(errors_seen, 0);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    FILE *f = fopen(file, "rb");
    CHECK(f != NULL);
    int head[2];
    double got[NN];
    CHECK(fread(head, sizeof head, 1, f) == 1 && fread(got, sizeof got, 1, f) == 1);
    fclose(f);
    CHECK_EQ_INT(head[0], NN);
    CHECK_EQ_INT(head[1], 1);
    for (int i = 0; i < NN; i++) CHECK(got[i] == xs[i]);
    unlink(file);
  }
  op_exit();
  free(xs);
  printf("rank %d: finished\n", rank);
  MPI_Finalize();
  return 0;
}
