/* SPDX-License-Identifier: BSD-3-Clause */
/* op_partition under OP2's names on a 3-D mesh: a 14x12x10 grid of perturbed nodes numbered at
 * random (so the declared blocks are poor), its edges and hexahedral cells.
 * Usage: t416-partitioners LIB ROUTINE MAX_IMBALANCE CUT_RATIO [TEXT]
 *   ROUTINE "-" for NULL. LIB EXTERNAL: rank 0 first writes OP2's "partvecNNNN" (NNNN the rank
 *   count) into an HDF5 file, the program reads it with op_decl_dat_hdf5 and passes it; every
 *   node must end on the rank it names. LIB EXTERNAL-BAD: the file's parts were made for one
 *   rank more: op_partition must fail on every rank, naming the dat and the range.
 * Checks (with 2 or more ranks): loops through both maps give plain C's values; the owned nodes'
 * imbalance is at most MAX_IMBALANCE; the edge cut (edges whose nodes are owned by different
 * ranks), counted here from the owners, is what OP2_DIAGS=2 reports, and with CUT_RATIO > 0 at
 * most CUT_RATIO times PT-Scotch's on the same mesh (run first, in an op_init of its own);
 * TEXT, when given, is in what op_partition printed on rank 0. */
#include <hdf5.h>

#include "mpi_test.h"
#include "runtime/op2_impl.h"
#include "runtime/distributed.h"

enum { NX = 14, NY = 12, NZ = 10, NN = NX * NY * NZ };
enum { NE = (NX - 1) * NY * NZ + NX * (NY - 1) * NZ + NX * NY * (NZ - 1) };
enum { NC = (NX - 1) * (NY - 1) * (NZ - 1) };

KERNEL(
    spread, static void spread(const double *w, double *a, double *b) {
      a[0] += w[0];
      b[0] -= 0.5 * w[0];
    })

KERNEL(
    gather8, static void gather8(const double *q0, const double *q1, const double *q2,
                                 const double *q3, const double *q4, const double *q5,
                                 const double *q6, const double *q7, double *c) {
      c[0] =
          q0[0] + 2 * q1[0] + 3 * q2[0] + 4 * q3[0] + 5 * q4[0] + 6 * q5[0] + 7 * q6[0] + 8 * q7[0];
    })

typedef struct mesh {
  int *num;   /* grid node -> its number in the mesh (a random permutation) */
  double *x;  /* 3 per node, by number */
  int *edges; /* 2 per edge */
  int *cells; /* 8 per cell */
  double *w;  /* per edge */
  int *layer; /* per node (by number): its grid position's share of the ranks, EXTERNAL's part */
} mesh;

static int grid(int i, int j, int k) {
  return i + NX * (j + NY * k);
}

static mesh make_mesh(void) {
  mesh m;
  unsigned rng = rm_rng(416);
  m.num = rm_alloc(sizeof(int) * NN);
  for (int g = 0; g < NN; g++) m.num[g] = g;
  for (int g = NN - 1; g > 0; g--) { /* Fisher-Yates */
    int h = rm_below(&rng, g + 1), t = m.num[g];
    m.num[g] = m.num[h], m.num[h] = t;
  }
  m.x = rm_alloc(sizeof(double) * 3 * NN);
  m.layer = rm_alloc(sizeof(int) * NN);
  for (int k = 0; k < NZ; k++)
    for (int j = 0; j < NY; j++)
      for (int i = 0; i < NX; i++) {
        int n = m.num[grid(i, j, k)];
        m.x[3 * n] = i + rm_uniform(&rng, -0.2, 0.2);
        m.x[3 * n + 1] = j + rm_uniform(&rng, -0.2, 0.2);
        m.x[3 * n + 2] = k + rm_uniform(&rng, -0.2, 0.2);
        m.layer[n] = (int)((long)grid(i, j, k) * mt_size() / NN);
      }
  m.edges = rm_alloc(sizeof(int) * 2 * NE);
  int e = 0;
  for (int k = 0; k < NZ; k++)
    for (int j = 0; j < NY; j++)
      for (int i = 0; i < NX; i++) {
        int here = m.num[grid(i, j, k)];
        if (i + 1 < NX) m.edges[2 * e] = here, m.edges[2 * e++ + 1] = m.num[grid(i + 1, j, k)];
        if (j + 1 < NY) m.edges[2 * e] = here, m.edges[2 * e++ + 1] = m.num[grid(i, j + 1, k)];
        if (k + 1 < NZ) m.edges[2 * e] = here, m.edges[2 * e++ + 1] = m.num[grid(i, j, k + 1)];
      }
  CHECK(e == NE);
  m.cells = rm_alloc(sizeof(int) * 8 * NC);
  int c = 0;
  for (int k = 0; k + 1 < NZ; k++)
    for (int j = 0; j + 1 < NY; j++)
      for (int i = 0; i + 1 < NX; i++, c++)
        for (int v = 0; v < 8; v++)
          m.cells[8 * c + v] = m.num[grid(i + (v & 1), j + (v >> 1 & 1), k + (v >> 2))];
  m.w = rm_doubles(NE, -1, 1, &rng);
  return m;
}

/* The owner of every node (gathered: test code), the edge cut and the owned nodes' imbalance. */
static void figures(op_set nodes, const mesh *m, long *cut, double *imbalance) {
  int *mine = rm_alloc(sizeof(int) * 2 * ((size_t)nodes->size + 1)), total = 0;
  for (int e = 0; e < nodes->size; e++) {
    /* the user's index (global ids start at OP2_TEST_ID_BASE's base, if set) */
    mine[2 * e] = nodes->orig ? (int)(nodes->orig[e] - op2_gid_base(op2_ctx())) : e;
    mine[2 * e + 1] = mt_rank();
  }
  int *all = mt_allgather_ints(mine, 2 * nodes->size, NULL, &total);
  CHECK(total == 2 * NN);
  int *owner = rm_alloc(sizeof(int) * NN), *count = calloc((size_t)mt_size(), sizeof(int));
  for (int n = 0; n < NN; n++) owner[n] = -1;
  for (int k = 0; k < NN; k++) {
    CHECK(all[2 * k] >= 0 && all[2 * k] < NN && owner[all[2 * k]] < 0);
    owner[all[2 * k]] = all[2 * k + 1];
    count[all[2 * k + 1]]++;
  }
  *cut = 0;
  for (int e = 0; e < NE; e++) *cut += owner[m->edges[2 * e]] != owner[m->edges[2 * e + 1]];
  int most = 0;
  for (int r = 0; r < mt_size(); r++) most = count[r] > most ? count[r] : most;
  *imbalance = (double)most * mt_size() / NN;
  free(mine), free(all), free(owner), free(count);
}

/* The EXTERNAL case's file: OP2's partvecNNNN, `parts` ranks' worth of layers (rank 0 writes). */
static void write_partvec(const char *file, const char *name, const mesh *m, int parts) {
  if (mt_rank() == 0) {
    int *v = rm_alloc(sizeof(int) * NN);
    for (int n = 0; n < NN; n++) v[n] = (int)((long)m->layer[n] * parts / mt_size());
    if (parts != mt_size()) v[NN - 1] = parts - 1; /* a part only a larger run has */
    hid_t f = H5Fcreate(file, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t dims[2] = {NN, 1};
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t d = H5Dcreate2(f, name, H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(f >= 0 && d >= 0 && H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
    H5Dclose(d), H5Sclose(space), H5Fclose(f);
    free(v);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

typedef struct run {
  long cut;
  double imbalance;
  const char *said;
} run;

/* One op_init .. op_exit: declare, partition, loop, check against plain C. */
static run partition_and_run(int argc, char **argv, const mesh *m, const char *lib,
                             const char *routine, const char *h5) {
  op_init(argc, argv, 2);
  test_catch_errors();
  mt_set nodes = mt_decl_set(MT_LOCAL, MT_SPLIT_EVEN, NN, "nodes");
  mt_set edges = mt_decl_set(MT_LOCAL, MT_SPLIT_SKEWED, NE, "edges");
  mt_set cells = mt_decl_set(MT_LOCAL, MT_SPLIT_EVEN, NC, "cells");
  op_map pedge = mt_decl_map(&edges, &nodes, 2, m->edges, "pedge");
  op_map pcell = mt_decl_map(&cells, &nodes, 8, m->cells, "pcell");
  op_dat x = mt_decl_dat(&nodes, 3, "double", sizeof(double), m->x, "x");
  op_dat w = mt_decl_dat(&edges, 1, "double", sizeof(double), m->w, "w");
  op_dat q = mt_decl_dat(&nodes, 1, "double", sizeof(double), NULL, "q");
  op_dat cv = mt_decl_dat(&cells, 1, "double", sizeof(double), NULL, "cv");
  char name[32];
  snprintf(name, sizeof name, "partvec%04d", mt_size());
  op_dat parts = h5 ? op_decl_dat_hdf5(nodes.set, 1, "int", h5, name) : NULL;
  CHECK(!h5 || parts != NULL);
  int bad = strcmp(lib, "EXTERNAL-BAD") == 0;
  run r = {0};
  test_errors_expected = bad; /* the returning handler: op_partition returns the error */
  r.said = mt_partition_capturing(bad ? "EXTERNAL" : lib, routine, h5 ? NULL : nodes.set,
                                  h5 ? NULL : pedge, h5 ? parts : x);
  test_errors_expected = 0;
  if (bad) { /* every rank gets the error; nothing moved */
    CHECK(test_errors_seen >= 1);
    char want[96];
    snprintf(want, sizeof want, "dat '%s' gives element", name);
    CHECK_CONTAINS(op_last_error(), want);
    snprintf(want, sizeof want, "outside [0, %d)", mt_size());
    CHECK_CONTAINS(op_last_error(), want);
    op_exit();
    return r;
  }
  CHECK(op_last_error() == NULL || op_last_error()[0] == 0);

  op_par_loop(spread_src, "spread", edges.set, op_arg_dat(w, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(q, 0, pedge, 1, "double", OP_INC),
              op_arg_dat(q, 1, pedge, 1, "double", OP_INC));
  op_arg a[9];
  for (int v = 0; v < 8; v++) a[v] = op_arg_dat(q, v, pcell, 1, "double", OP_READ);
  a[8] = op_arg_dat(cv, -1, OP_ID, 1, "double", OP_WRITE);
  op_par_loop(gather8_src, "gather8", cells.set, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7],
              a[8]);
  double *qr = calloc(NN, sizeof(double)), *cr = rm_alloc(sizeof(double) * NC);
  for (int e = 0; e < NE; e++) spread(m->w + e, qr + m->edges[2 * e], qr + m->edges[2 * e + 1]);
  for (int c = 0; c < NC; c++) {
    const int *p = m->cells + 8 * c;
    gather8(qr + p[0], qr + p[1], qr + p[2], qr + p[3], qr + p[4], qr + p[5], qr + p[6], qr + p[7],
            cr + c);
  }
  double *qg = mt_fetch_all(q, NN, sizeof(double)), *cg = mt_fetch_all(cv, NC, sizeof(double));
  mt_check_doubles(qg, qr, NN, 1e-12, "edge increments");
  mt_check_doubles(cg, cr, NC, 1e-12, "cell gathers");
  free(qr), free(cr), free(qg), free(cg);

  figures(nodes.set, m, &r.cut, &r.imbalance);
  if (h5) /* every node on the rank the file names */
    for (int e = 0; e < nodes.set->size; e++)
      CHECK(m->layer[nodes.set->orig[e] - op2_gid_base(op2_ctx())] == mt_rank());
  op_exit();
  return r;
}

int main(int argc, char **argv) {
  CHECK(argc == 5 || argc == 6);
  const char *lib = argv[1], *routine = strcmp(argv[2], "-") ? argv[2] : NULL;
  double max_imbalance = atof(argv[3]), ratio = atof(argv[4]);
  MPI_Init(&argc, &argv);
  mesh m = make_mesh();
  char dir[4096] = "", h5[4200] = "";
  int external = strncmp(lib, "EXTERNAL", 8) == 0;
  if (external) {
    mt_scratch_dir(dir, sizeof dir);
    snprintf(h5, sizeof h5, "%s/parts.h5", dir);
    char name[32];
    snprintf(name, sizeof name, "partvec%04d", mt_size());
    write_partvec(h5, name, &m, mt_size() + (strcmp(lib, "EXTERNAL-BAD") == 0));
  }
  run ref = {0};
  if (ratio > 0) ref = partition_and_run(argc, argv, &m, "PTSCOTCH", "KWAY", NULL);
  run r = partition_and_run(argc, argv, &m, lib, routine, external ? h5 : NULL);
  if (external) mt_scratch_remove(dir);
  if (mt_rank() == 0 && mt_size() > 1 && strcmp(lib, "EXTERNAL-BAD") != 0) {
    printf("%s %s on %d ranks: edge cut %ld, imbalance %.3f (PT-Scotch: %ld)\n", lib,
           routine ? routine : "", mt_size(), r.cut, r.imbalance, ref.cut);
    const char *report = strstr(r.said, "partition of 'nodes'");
    CHECK(report != NULL);
    const char *at = strstr(report, "edge cut ");
    CHECK(at != NULL);
    CHECK(atol(at + strlen("edge cut ")) == r.cut); /* the report counts what is cut */
    at = strstr(report, "imbalance ");
    CHECK(at != NULL && fabs(atof(at + strlen("imbalance ")) - r.imbalance) < 0.0015);
    CHECK(r.imbalance <= max_imbalance);
    if (ratio > 0) CHECK(r.cut <= ratio * ref.cut);
    if (argc == 6) CHECK_CONTAINS(r.said, argv[5]);
  }
  free(m.num), free(m.x), free(m.edges), free(m.cells), free(m.w), free(m.layer);
  MPI_Finalize();
  return 0;
}
