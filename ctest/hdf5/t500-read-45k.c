/* SPDX-License-Identifier: BSD-3-Clause */
/* Reads the 45k Airfoil mesh written by OP2-Common's own converter and checks it against the
 * same mesh in text form: set sizes, every map row and dat value of this rank's block, the test
 * datasets nested in groups, and Airfoil's constants. Then runs a loop on the mesh read from the
 * file (all ranks together under MPI) and checks a sum over it.
 * Usage: t500-read-45k new_grid_45k.h5 new_grid_45k.dat.gz */
#include <math.h>

#include "h5_test.h"
#include "runtime/op2_impl.h"
#include "samples/airfoil/mesh_io.h"

static const char *file;

/* Map values as declared: before any loop, the library holds the rows the file gave it. */
static void check_map(op_map map, const int *expected, long first, long count, int dim) {
  CHECK_EQ_INT(map->dim, dim);
  CHECK_EQ_INT(map->from->size, count);
  for (long i = 0; i < count * dim; i++)
    if (map->values[i] != expected[first * dim + i]) {
      fprintf(stderr, "map %s: row %ld col %ld: %d, expected %d\n", map->name, first + i / dim,
              i % dim, map->values[i], expected[first * dim + i]);
      exit(1);
    }
}

static void check_dat_double(op_dat dat, const double *expected, long first, long count, int dim) {
  double *got = malloc(sizeof(double) * (size_t)(count * dim + 1));
  CHECK(got != NULL);
  op_fetch_data(dat, got);
  for (long i = 0; i < count * dim; i++)
    if (got[i] != expected[first * dim + i]) {
      fprintf(stderr, "dat %s: value %ld: %.17g, expected %.17g\n", dat->name, first * dim + i,
              got[i], expected[first * dim + i]);
      exit(1);
    }
  free(got);
}

static const char *sum_corners_src =
    "void sum_corners(const double *a, const double *b, const double *c, const double *d,\n"
    "                 double *sum) {\n"
    "  *sum += a[0] + b[0] + c[0] + d[0] + 2.0 * (a[1] + b[1] + c[1] + d[1]);\n"
    "}\n";

int main(int argc, char **argv) {
  CHECK(argc == 3);
  file = argv[1];
  op_init(argc, argv, 0);
  test_catch_errors();

  airfoil_mesh mesh;
  char err[512];
  CHECK(airfoil_mesh_read(argv[2], &mesh, err, sizeof err) == 0);
  CHECK_EQ_INT(mesh.nnode, 45451);
  CHECK_EQ_INT(mesh.ncell, 45000);

  op_set nodes = op_decl_set_hdf5(file, "nodes");
  op_set edges = op_decl_set_hdf5(file, "edges");
  op_set bedges = op_decl_set_hdf5(file, "bedges");
  op_set cells = op_decl_set_hdf5(file, "cells");
  CHECK(nodes && edges && bedges && cells);
  CHECK_EQ_INT(nodes->global_size, mesh.nnode);
  CHECK_EQ_INT(edges->global_size, mesh.nedge);
  CHECK_EQ_INT(bedges->global_size, mesh.nbedge);
  CHECK_EQ_INT(cells->global_size, mesh.ncell);
  long nf, nn, ef, en, bf, bn, cf, cn;
  h5t_block(mesh.nnode, &nf, &nn);
  h5t_block(mesh.nedge, &ef, &en);
  h5t_block(mesh.nbedge, &bf, &bn);
  h5t_block(mesh.ncell, &cf, &cn);
  CHECK_EQ_INT(nodes->size, nn); /* this rank's block */
  CHECK_EQ_INT(edges->size, en);
  CHECK_EQ_INT(bedges->size, bn);
  CHECK_EQ_INT(cells->size, cn);
  CHECK_EQ_INT(op_get_size(cells), mesh.ncell); /* op_get_size counts over all ranks */

  op_map pedge = op_decl_map_hdf5(edges, nodes, 2, file, "pedge");
  op_map pecell = op_decl_map_hdf5(edges, cells, 2, file, "pecell");
  op_map pbedge = op_decl_map_hdf5(bedges, nodes, 2, file, "pbedge");
  op_map pbecell = op_decl_map_hdf5(bedges, cells, 1, file, "pbecell");
  op_map pcell = op_decl_map_hdf5(cells, nodes, 4, file, "pcell");
  /* OP2's converter also wrote copies inside groups to test path names. */
  op_map pedge_test = op_decl_map_hdf5(edges, nodes, 2, file, "group3/pedge_test");
  CHECK(pedge && pecell && pbedge && pbecell && pcell && pedge_test);
  check_map(pedge, mesh.edge, ef, en, 2);
  check_map(pecell, mesh.ecell, ef, en, 2);
  check_map(pbedge, mesh.bedge, bf, bn, 2);
  check_map(pbecell, mesh.becell, bf, bn, 1);
  check_map(pcell, mesh.cell, cf, cn, 4);
  check_map(pedge_test, mesh.edge, ef, en, 2);

  op_dat p_bound = op_decl_dat_hdf5(bedges, 1, "int", file, "p_bound");
  op_dat p_x = op_decl_dat_hdf5(nodes, 2, "double", file, "p_x");
  op_dat p_x_test = op_decl_dat_hdf5(nodes, 2, "double", file, "/group3/group2/group1/p_x_test");
  op_dat p_q = op_decl_dat_hdf5(cells, 4, "double", file, "p_q");
  op_dat p_qold = op_decl_dat_hdf5(cells, 4, "double", file, "p_qold");
  op_dat p_adt = op_decl_dat_hdf5(cells, 1, "double", file, "p_adt");
  op_dat p_res = op_decl_dat_hdf5(cells, 4, "double", file, "p_res");
  CHECK(p_bound && p_x && p_x_test && p_q && p_qold && p_adt && p_res);
  CHECK(p_bound->type == OP2_TYPE_INT && p_x->type == OP2_TYPE_DOUBLE);
  int *bound = malloc(sizeof(int) * (size_t)(bn + 1));
  op_fetch_data(p_bound, bound);
  for (long i = 0; i < bn; i++) CHECK_EQ_INT(bound[i], mesh.bound[bf + i]);
  free(bound);
  check_dat_double(p_x, mesh.x, nf, nn, 2);
  check_dat_double(p_x_test, mesh.x, nf, nn, 2);

  /* Airfoil's constants, computed as airfoil.c does. */
  double gam = 1.4f, gm1 = gam - 1.0f, cfl = 0.9f, eps = 0.05f, mach = 0.4f;
  double alpha = 3.0f * atan(1.0f) / 45.0f, p = 1.0f, r = 1.0f;
  double u = sqrt(gam * p / r) * mach, e = p / (r * gm1) + 0.5f * u * u;
  double qinf[4] = {r, r * u, 0.0f, r * e};
  struct {
    const char *name;
    double want;
  } scalars[] = {{"gam", gam}, {"gm1", gm1}, {"cfl", cfl}, {"eps", eps}, {"mach", mach}};
  for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; i++) {
    double v = -1;
    op_get_const_hdf5(scalars[i].name, 1, "double", (char *)&v, file);
    if (v != scalars[i].want) {
      fprintf(stderr, "%s: %.17g, expected %.17g\n", scalars[i].name, v, scalars[i].want);
      exit(1);
    }
  }
  /* OP2's converter is C++, where atan(1.0f) is the float overload: its alpha is pi/60 rounded
   * to float, ours (C, as in airfoil.c) is the double. They agree to float precision. */
  double file_alpha = 0;
  op_get_const_hdf5("alpha", 1, "double", (char *)&file_alpha, file);
  CHECK(file_alpha != alpha);
  CHECK_NEAR(file_alpha, alpha, 1e-7);
  CHECK(file_alpha == (double)(3.0f * atanf(1.0f) / 45.0f));
  double file_qinf[4] = {0};
  op_get_const_hdf5("qinf", 4, "double", (char *)file_qinf, file);
  for (int i = 0; i < 4; i++) CHECK(file_qinf[i] == qinf[i]);
  /* The state dats: free stream and zeros, as OP2's converter writes them. */
  double *q = malloc(sizeof(double) * 4 * (size_t)mesh.ncell);
  double *zeros = calloc(4 * (size_t)mesh.ncell, sizeof(double));
  for (int n = 0; n < mesh.ncell; n++)
    for (int m = 0; m < 4; m++) q[4 * n + m] = qinf[m];
  check_dat_double(p_q, q, cf, cn, 4);
  check_dat_double(p_qold, zeros, cf, cn, 4);
  check_dat_double(p_adt, zeros, cf, cn, 1);
  check_dat_double(p_res, zeros, cf, cn, 4);
  free(q);
  free(zeros);

  /* A loop over the mesh as read (distributed under MPI): the cell-corner coordinate sum. */
  double sum = 0, want = 0;
  op_par_loop(
      sum_corners_src, "sum_corners", cells, op_arg_dat(p_x, 0, pcell, 2, "double", OP_READ),
      op_arg_dat(p_x, 1, pcell, 2, "double", OP_READ),
      op_arg_dat(p_x, 2, pcell, 2, "double", OP_READ),
      op_arg_dat(p_x, 3, pcell, 2, "double", OP_READ), op_arg_gbl(&sum, 1, "double", OP_INC));
  for (int c = 0; c < mesh.ncell; c++)
    for (int k = 0; k < 4; k++) {
      const double *x = mesh.x + 2 * mesh.cell[4 * c + k];
      want += x[0] + 2.0 * x[1];
    }
  CHECK_NEAR(sum, want, 1e-10);

  airfoil_mesh_free(&mesh);
  op_exit();
  return 0;
}
