/* SPDX-License-Identifier: BSD-3-Clause */
/* op_decl_map_long (OP2's 64-bit map values, idx_g_t), on 1 to 3 ranks, with and without
 * OP2_TEST_ID_BASE (global ids from that base: op_decl_map_long's values are then base + index,
 * in any process count):
 *   - a value outside the target set is refused on every rank, naming the map, row and value:
 *     one past the last id, one that an int would wrap to a valid index, and (under the base) a
 *     plain index, which lies below it;
 *   - op_decl_map_long makes the same map as op_decl_map of the same targets: loops through both
 *     give plain C's results, and their local values are equal (once distributed too);
 *   - an HDF5 map of 64-bit integers (the user's indices, OP2's "long long" maps) is read as one:
 *     on several ranks it is held as 64-bit global ids until the distribution, like
 *     op_decl_map_long's, and loops through it give the same results;
 *   - op_dump_to_hdf5 writes both 64-bit maps as the user's indices, before the distribution
 *     (from the 64-bit global ids) and after it. */
#include <hdf5.h>
#include <limits.h>

#include "mpi_test.h"
#include "runtime/op2_impl.h"

enum { NN = 300, NE = 700 };

KERNEL(
    gather,
    static void gather(const double *a, const double *b, double *s) { s[0] = a[0] + 2.0 * b[0]; })

KERNEL(
    spread, static void spread(const double *s, double *a, double *b) {
      a[0] += s[0];
      b[0] -= 0.5 * s[0];
    })

/* Writes the edge->node pairs as a [NE, 2] dataset of 64-bit integers (rank 0; every rank waits).
 */
static void write_long_map(const char *file, const int *en) {
  if (mt_rank() == 0) {
    long long *v = rm_alloc(sizeof(long long) * 2 * NE);
    for (int k = 0; k < 2 * NE; k++) v[k] = en[k];
    hid_t f = H5Fcreate(file, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t dims[2] = {NE, 2};
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t d = H5Dcreate2(f, "pl", H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(d >= 0 && H5Dwrite(d, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
    H5Dclose(d), H5Sclose(space), H5Fclose(f);
    free(v);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Rank 0 reads map `name` back from a dump: the user's indices, as plain C has them. */
static void check_dumped(const char *file, const char *name, const int *en) {
  if (mt_rank() == 0) {
    int *got = rm_alloc(sizeof(int) * 2 * NE);
    hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = f >= 0 ? H5Dopen2(f, name, H5P_DEFAULT) : -1;
    CHECK(d >= 0 && H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, got) >= 0);
    H5Dclose(d), H5Fclose(f);
    mt_check_ints(got, en, 2 * NE, name);
    free(got);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* s = x[m0] + 2 x[m1] through `map`, then acc[m0] += s, acc[m1] -= s/2, against plain C. */
static void check_loops(const mt_set *nodes, const mt_set *edges, op_map map, op_dat x,
                        const double *xs, const int *en, const char *what) {
  op_dat s = op_decl_dat_temp(edges->set, 1, "double", (double *)NULL, "s");
  op_dat acc = op_decl_dat_temp(nodes->set, 1, "double", (double *)NULL, "acc");
  CHECK(s && acc);
  op_par_loop(gather_src, "gather", edges->set, op_arg_dat(x, 0, map, 1, "double", OP_READ),
              op_arg_dat(x, 1, map, 1, "double", OP_READ),
              op_arg_dat(s, -1, OP_ID, 1, "double", OP_WRITE));
  op_par_loop(spread_src, "spread", edges->set, op_arg_dat(s, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(acc, 0, map, 1, "double", OP_INC),
              op_arg_dat(acc, 1, map, 1, "double", OP_INC));
  double *ws = rm_alloc(sizeof(double) * NE), *wacc = rm_alloc(sizeof(double) * NN);
  for (int n = 0; n < NN; n++) wacc[n] = 0;
  for (int e = 0; e < NE; e++) {
    gather(xs + en[2 * e], xs + en[2 * e + 1], ws + e);
    spread(ws + e, wacc + en[2 * e], wacc + en[2 * e + 1]);
  }
  double *got = mt_fetch_all(s, NE, sizeof(double));
  mt_check_doubles(got, ws, NE, 0, what);
  free(got);
  got = mt_fetch_all(acc, NN, sizeof(double));
  mt_check_doubles(got, wacc, NN, 1e-12, what);
  free(got), free(ws), free(wacc);
  CHECK_EQ_INT(op_free_dat_temp(s), 0);
  CHECK_EQ_INT(op_free_dat_temp(acc), 0);
}

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  test_catch_errors();
  const char *b = getenv("OP2_TEST_ID_BASE");
  const idx_g_t base = b ? strtoll(b, NULL, 10) : 0;
  const int several = mt_size() > 1;
  unsigned rng = rm_rng(419);
  mt_set nodes = mt_decl_set(MT_LOCAL, MT_SPLIT_SKEWED, NN, "nodes");
  mt_set edges = mt_decl_set(MT_LOCAL, MT_SPLIT_EVEN, NE, "edges");
  int *en = rm_map_values(NE, 2, NN, 150, &rng);
  double *xs = rm_doubles(NN, -1, 1, &rng);
  op_dat x = mt_decl_dat(&nodes, 1, "double", sizeof(double), xs, "x");
  /* this rank's rows as global ids */
  size_t n = 2 * (size_t)edges.b.count;
  idx_g_t *ids = rm_alloc(sizeof(idx_g_t) * (n + 1));
  for (size_t k = 0; k < n; k++) ids[k] = base + en[2 * (size_t)edges.b.first + k];

  /* refused: one past the last id (row 0, column 1 of every rank's rows) */
  char want[256];
  idx_g_t saved = ids[1];
  ids[1] = base + NN;
  snprintf(want, sizeof want,
           "op_decl_map_long 'bad': value %lld at row 0, column 1 is outside set 'nodes' (values "
           "%lld..%lld)",
           (long long)(base + NN), (long long)base, (long long)(base + NN - 1));
  EXPECT_ERROR(CHECK(op_decl_map_long(edges.set, nodes.set, 2, ids, "bad") == NULL), want);
  /* 2^32 + 5 past the base: cut to an int, the valid index 5 */
  ids[1] = base + ((idx_g_t)1 << 32) + 5;
  snprintf(want, sizeof want, "'bad': value %lld at row 0, column 1 is outside set 'nodes'",
           (long long)ids[1]);
  EXPECT_ERROR(CHECK(op_decl_map_long(edges.set, nodes.set, 2, ids, "bad") == NULL), want);
  if (base > 0) { /* under the base, the values are ids: a plain index lies below them */
    ids[1] = 5;
    snprintf(want, sizeof want, "value 5 at row 0, column 1 is outside set 'nodes' (values %lld..",
             (long long)base);
    EXPECT_ERROR(CHECK(op_decl_map_long(edges.set, nodes.set, 2, ids, "bad") == NULL), want);
  }
  ids[1] = saved;

  op_map m_int = mt_decl_map(&edges, &nodes, 2, en, "m_int");
  op_map m_long = op_decl_map_long(edges.set, nodes.set, 2, ids, "m_long");
  char dir[512], file[600];
  mt_scratch_dir(dir, sizeof dir);
  snprintf(file, sizeof file, "%s/long-map.h5", dir);
  write_long_map(file, en);
  op_map m_h5 = op_decl_map_hdf5(edges.set, nodes.set, 2, file, "pl");
  CHECK(m_long && m_h5);
  if (several) { /* 64-bit global ids until the distribution; int maps keep ints */
    CHECK(m_int->gvalues == NULL && m_int->values != NULL);
    CHECK(m_long->gvalues != NULL && m_long->values == NULL);
    CHECK(m_h5->gvalues != NULL && m_h5->values == NULL);
    for (size_t k = 0; k < n; k++)
      CHECK(m_long->gvalues[k] == ids[k] && m_h5->gvalues[k] == ids[k]);
  } else {
    CHECK(m_long->gvalues == NULL && m_h5->gvalues == NULL);
  }

  /* dumped before and after the distribution: the user's indices, as ints (OP2's layout) */
  for (int when = 0; when < 2; when++) {
    char dump[640];
    snprintf(dump, sizeof dump, "%s/dump%d.h5", dir, when);
    op_dump_to_hdf5(dump);
    check_dumped(dump, "m_long", en);
    check_dumped(dump, "pl", en);
    if (when == 0) check_loops(&nodes, &edges, m_int, x, xs, en, "through op_decl_map");
  }
  check_loops(&nodes, &edges, m_long, x, xs, en, "through op_decl_map_long");
  check_loops(&nodes, &edges, m_h5, x, xs, en, "through a 64-bit HDF5 map");
  /* the same local values: the 64-bit maps became the int map's local indices */
  size_t rows = (size_t)edges.set->size + (size_t)edges.set->exec_size;
  CHECK(m_long->gvalues == NULL && m_h5->gvalues == NULL);
  CHECK(memcmp(m_int->values, m_long->values, sizeof(int) * 2 * rows) == 0);
  CHECK(memcmp(m_int->values, m_h5->values, sizeof(int) * 2 * rows) == 0);

  free(ids), free(en), free(xs);
  int me = mt_rank(), p = mt_size();
  mt_scratch_remove(dir);
  op_exit();
  if (me == 0)
    printf(
        "t419 on %d ranks, ids from %lld: op_decl_map_long refuses outside values and matches "
        "op_decl_map\n",
        p, (long long)base);
  return 0;
}
