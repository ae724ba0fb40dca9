/* SPDX-License-Identifier: BSD-3-Clause */
/* op_fetch_data_idx under MPI moves only what each rank asked for: every rank fetches its own
 * small range of a large dat (ranges differ and overlap), gets the right values, and receives no
 * more than its range (each value with its global index), not the whole dat.
 * Usage: t491-fetch-range local|replicated */
#include "mpi_test.h"
#include "runtime/op2_impl.h"

enum { N = 20000, DIM = 3, RANGE = 50 };

KERNEL(
    shift, static void shift(double *x) {
      for (int k = 0; k < 3; k++) x[k] += 0.25;
    })

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  CHECK(argc == 2);
  mt_mode mode = mt_parse_mode(argv[1]);
  op_init(argc, argv, 0);
  op2_context *ctx = op2_ctx();
  unsigned rng = rm_rng(491);
  double *x = rm_doubles((size_t)N * DIM, -1, 1, &rng);
  mt_set cells = mt_decl_set(mode, MT_SPLIT_SKEWED, N, "cells");
  op_dat dx = mt_decl_dat(&cells, DIM, "double", sizeof(double), x, "x");
  op_par_loop(shift_src, "shift", cells.set, op_arg_dat(dx, -1, OP_ID, DIM, "double", OP_RW));
  for (int i = 0; i < N; i++) shift(x + (size_t)i * DIM);

  /* Rank r asks for [low, low + RANGE): far apart for most ranks, overlapping for two. */
  int r = mt_rank(), low = (r * 7919) % (N - RANGE);
  if (r == 1) low = 0;
  double got[RANGE * DIM];
  long before = ctx->mpi.fetch_bytes_received;
  op_fetch_data_idx(dx, got, low, low + RANGE - 1);
  long received = ctx->mpi.fetch_bytes_received - before;
  mt_check_bytes(got, x + (size_t)low * DIM, RANGE, DIM * sizeof(double), "range");
  long bound = RANGE * (long)(sizeof(long) + DIM * sizeof(double));
  if (mt_size() > 1 && received > bound) {
    fprintf(stderr,
            "rank %d: fetching %d elements received %ld bytes (bound %ld; the dat has %ld)\n", r,
            RANGE, received, bound, (long)N * DIM * (long)sizeof(double));
    exit(1);
  }
  if (r == 0)
    printf("t491 on %d ranks: %d-element fetch received %ld bytes\n", mt_size(), RANGE, received);
  free(x);
  op_exit();
  MPI_Finalize();
  return 0;
}
