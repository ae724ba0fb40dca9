/* SPDX-License-Identifier: BSD-3-Clause */
/* Parallel input: under MPI each rank reads only its uniform block of every dataset of the 45k
 * Airfoil mesh (at most ceil(N/P) rows, through collective hyperslab reads), and while the mesh
 * is declared, partitioned (the partitioner named by argv[2], the declared blocks never kept:
 * OP2_PARTITION_KEEP=0) and moved, no rank holds more of a set's rows in one array than the
 * larger of its block and what it owns now, plus its halo: never the whole set. The loops' results
 * are the plain-C ones on the whole mesh, exactly (integer counts) or to rounding (sums), as on
 * one process.
 * Usage: t507-parallel-read new_grid_45k.h5 PTSCOTCH|INERTIAL */
#include <math.h>

#include "h5_test.h"
#include "runtime/op2_impl.h"

static const char *inc_ends_src = "void inc_ends(double *a, double *b) { *a += 1.0; *b += 1.0; }\n";
static const char *sum_x_src =
    "void sum_x(const double *x, double *sum) { *sum += x[0] + 2.0 * x[1]; }\n";

/* A whole dataset, read by the test itself with plain HDF5: the reference. */
static void *read_whole(const char *file, const char *name, hid_t type, size_t bytes, long *rows) {
  hid_t fid = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
  CHECK(fid >= 0);
  hid_t dset = H5Dopen2(fid, name, H5P_DEFAULT), space = H5Dget_space(dset);
  hsize_t dims[2] = {0, 1};
  CHECK(H5Sget_simple_extent_dims(space, dims, NULL) >= 1);
  *rows = (long)dims[0];
  void *buf = malloc((size_t)dims[0] * bytes);
  CHECK(buf && H5Dread(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
  H5Sclose(space), H5Dclose(dset), H5Fclose(fid);
  return buf;
}

/* The uniform block, rounded up: the most rows any rank may read of a dataset on `set`. */
static long block_of(op_set set) {
  int p = h5t_size();
  return (set->global_size + p - 1) / p;
}

static void check_read(op_set set, long n) {
  CHECK_EQ_INT(set->global_size, n);
  if (set->rows_read_most > block_of(set)) {
    fprintf(stderr, "rank %d read %ld rows of a dataset on '%s' (%ld elements, block %ld)\n",
            h5t_rank(), set->rows_read_most, set->name, n, block_of(set));
    exit(1);
  }
  CHECK_EQ_INT(set->rows_read_most, set->size); /* its own block, all of it */
}

/* After distribution: the most rows held in one array is bounded by the block (as read) or the
 * owned part (as moved), plus the halo; and no rank holds the whole set. */
static void check_held(op_set set) {
  long owned = set->size, halo = (long)set->exec_size + set->nonexec_size;
  long bound = (owned > block_of(set) ? owned : block_of(set)) + halo;
  if (set->rows_held_most > bound || (h5t_size() > 1 && owned + halo >= set->global_size)) {
    fprintf(stderr,
            "rank %d held %ld rows of '%s' in one array (%ld elements, block %ld, owns %ld, halo "
            "%ld)\n",
            h5t_rank(), set->rows_held_most, set->name, set->global_size, block_of(set), owned,
            halo);
    exit(1);
  }
  CHECK(set->rows_read_most <= block_of(set));
  long total = owned;
  if (h5t_mpi_up()) MPI_Allreduce(&owned, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  CHECK_EQ_INT(total, set->global_size); /* every element owned once */
}

int main(int argc, char **argv) {
  CHECK(argc == 3);
  const char *file = argv[1], *lib = argv[2];
  op_init(argc, argv, 0);
  test_catch_errors();

  op_set nodes = op_decl_set_hdf5(file, "nodes");
  op_set edges = op_decl_set_hdf5(file, "edges");
  op_set bedges = op_decl_set_hdf5(file, "bedges");
  op_set cells = op_decl_set_hdf5(file, "cells");
  CHECK(nodes && edges && bedges && cells);
  op_map pedge = op_decl_map_hdf5(edges, nodes, 2, file, "pedge");
  op_map pecell = op_decl_map_hdf5(edges, cells, 2, file, "pecell");
  op_map pbedge = op_decl_map_hdf5(bedges, nodes, 2, file, "pbedge");
  op_map pcell = op_decl_map_hdf5(cells, nodes, 4, file, "pcell");
  op_dat p_x = op_decl_dat_hdf5(nodes, 2, "double", file, "p_x");
  op_dat p_q = op_decl_dat_hdf5(cells, 4, "double", file, "p_q");
  CHECK(pedge && pecell && pbedge && pcell && p_x && p_q);
  op_dat deg = op_decl_dat(nodes, 1, "double", NULL, "deg");
  check_read(nodes, 45451);
  check_read(edges, 89650);
  check_read(bedges, 700);
  check_read(cells, 45000);

  if (strcmp(lib, "INERTIAL") == 0)
    op_partition("INERTIAL", NULL, nodes, pedge, p_x);
  else
    op_partition(lib, "KWAY", cells, pecell, p_x);
  op_par_loop(inc_ends_src, "inc_ends", edges, op_arg_dat(deg, 0, pedge, 1, "double", OP_INC),
              op_arg_dat(deg, 1, pedge, 1, "double", OP_INC));
  double sum = 0;
  op_par_loop(sum_x_src, "sum_x", nodes, op_arg_dat(p_x, -1, OP_ID, 2, "double", OP_READ),
              op_arg_gbl(&sum, 1, "double", OP_INC));
  op_set sets[] = {nodes, edges, bedges, cells};
  for (int s = 0; s < 4; s++) check_held(sets[s]);

  /* The plain-C results on the whole mesh, read here by the test. */
  long ne, nn;
  int *edge = read_whole(file, "pedge", H5T_NATIVE_INT, 2 * sizeof(int), &ne);
  double *x = read_whole(file, "p_x", H5T_NATIVE_DOUBLE, 2 * sizeof(double), &nn);
  double *want = calloc((size_t)nn, sizeof(double)), want_sum = 0;
  CHECK(want != NULL);
  for (long e = 0; e < ne; e++) want[edge[2 * e]] += 1.0, want[edge[2 * e + 1]] += 1.0;
  for (long n = 0; n < nn; n++) want_sum += x[2 * n] + 2.0 * x[2 * n + 1];
  CHECK_NEAR(sum, want_sum, 1e-12 * fabs(want_sum));
  long first, count;
  h5t_block(nn, &first, &count);
  double *got = malloc(sizeof(double) * (size_t)(count + 1));
  CHECK(got != NULL);
  op_fetch_data(deg, got); /* this rank's declared block, in the file's order */
  for (long i = 0; i < count; i++)
    if (got[i] != want[first + i]) {
      fprintf(stderr, "deg of node %ld: %g, expected %g\n", first + i, got[i], want[first + i]);
      exit(1);
    }
  free(got), free(want), free(edge), free(x);
  printf("t507: rank %d of %d: every dataset read in blocks, no set held whole\n", h5t_rank(),
         h5t_size());
  op_exit();
  return 0;
}
