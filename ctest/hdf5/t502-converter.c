/* SPDX-License-Identifier: BSD-3-Clause */
/* The converter airfoil_to_hdf5: its output has exactly the datasets, datatypes, shapes,
 * attributes and values of the file OP2-Common's converter wrote (less OP2's group3 test
 * copies), and loads with the op_decl_*_hdf5 calls into the mesh the text file holds.
 * Usage: t502-converter airfoil_to_hdf5 new_grid_45k.dat.gz new_grid_45k.h5 */
#include <math.h>
#include <spawn.h>
#include <sys/wait.h>

#include "h5_test.h"
#include "runtime/op2_impl.h"
#include "samples/airfoil/mesh_io.h"

extern char **environ;

static int run(char *const argv[]) {
  pid_t pid;
  CHECK(posix_spawn(&pid, argv[0], NULL, NULL, argv, environ) == 0);
  int status;
  CHECK(waitpid(pid, &status, 0) == pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

typedef struct names {
  int n;
  char list[64][64];
} names;

static herr_t collect(hid_t loc, const char *name, const H5L_info_t *info, void *data) {
  (void)loc, (void)info;
  names *ns = data;
  CHECK(ns->n < 64);
  snprintf(ns->list[ns->n++], sizeof ns->list[0], "%s", name);
  return 0;
}

static void root_names(hid_t f, names *ns) {
  ns->n = 0;
  CHECK(H5Literate(f, H5_INDEX_NAME, H5_ITER_INC, NULL, collect, ns) >= 0);
}

/* Same datatype, dataspace, attribute set (each with equal datatype, dataspace and value) and
 * the same values: compared as raw bytes in the file's own datatype. */
static void same_dataset(hid_t a, hid_t b, const char *name) {
  hid_t da = H5Dopen2(a, name, H5P_DEFAULT), db = H5Dopen2(b, name, H5P_DEFAULT);
  CHECK(da >= 0 && db >= 0);
  hid_t ta = H5Dget_type(da), tb = H5Dget_type(db);
  hid_t sa = H5Dget_space(da), sb = H5Dget_space(db);
  CHECK(H5Tequal(ta, tb) > 0);
  CHECK(H5Sextent_equal(sa, sb) > 0);
  size_t bytes = H5Tget_size(ta) * (size_t)H5Sget_simple_extent_npoints(sa);
  char *va = malloc(bytes + 1), *vb = malloc(bytes + 1);
  CHECK(H5Dread(da, ta, H5S_ALL, H5S_ALL, H5P_DEFAULT, va) >= 0);
  CHECK(H5Dread(db, tb, H5S_ALL, H5S_ALL, H5P_DEFAULT, vb) >= 0);
  if (strcmp(name, "alpha") == 0) {
    /* OP2's converter computed alpha in float (C++'s atan(float)); ours is airfoil.c's double. */
    double x, y;
    memcpy(&x, va, sizeof x);
    memcpy(&y, vb, sizeof y);
    CHECK(x != y);
    CHECK_NEAR(x, y, 1e-7);
  } else if (memcmp(va, vb, bytes) != 0) {
    fprintf(stderr, "dataset %s: values differ\n", name);
    exit(1);
  }
  free(va);
  free(vb);
  int na = h5t_attr_count(a, name), nb = h5t_attr_count(b, name);
  CHECK_EQ_INT(na, nb);
  for (int i = 0; i < na; i++) {
    char an[64];
    CHECK(H5Aget_name_by_idx(da, ".", H5_INDEX_NAME, H5_ITER_INC, (hsize_t)i, an, sizeof an,
                             H5P_DEFAULT) > 0);
    hid_t xa = H5Aopen(da, an, H5P_DEFAULT), xb = H5Aopen(db, an, H5P_DEFAULT);
    CHECK(xa >= 0 && xb >= 0);
    hid_t ata = H5Aget_type(xa), atb = H5Aget_type(xb);
    hid_t asa = H5Aget_space(xa), asb = H5Aget_space(xb);
    if (H5Tequal(ata, atb) <= 0 || H5Sextent_equal(asa, asb) <= 0) {
      fprintf(stderr, "dataset %s, attribute %s: datatype or dataspace differs\n", name, an);
      exit(1);
    }
    char ra[64] = {0}, rb[64] = {0};
    CHECK(H5Tget_size(ata) < sizeof ra);
    CHECK(H5Aread(xa, ata, ra) >= 0 && H5Aread(xb, atb, rb) >= 0);
    /* Strings up to their terminator: OP2 leaves garbage after it in map type strings. */
    if (H5Tget_class(ata) == H5T_STRING)
      CHECK(strcmp(ra, rb) == 0);
    else
      CHECK(memcmp(ra, rb, H5Tget_size(ata)) == 0);
    H5Sclose(asa), H5Sclose(asb), H5Tclose(ata), H5Tclose(atb), H5Aclose(xa), H5Aclose(xb);
  }
  H5Sclose(sa), H5Sclose(sb), H5Tclose(ta), H5Tclose(tb), H5Dclose(da), H5Dclose(db);
}

static void same_map(op_map m, const int *want) {
  CHECK(memcmp(m->values, want, sizeof(int) * (size_t)m->from->size * (size_t)m->dim) == 0);
}

int main(int argc, char **argv) {
  CHECK(argc == 4);
  op_init(argc, argv, 0);
  test_catch_errors();
  char dir[512], out[600], names_buf[256];
  h5t_scratch(dir, sizeof dir, "h5-converter");
  snprintf(out, sizeof out, "%s/grid.h5", dir);
  CHECK_EQ_INT(run((char *[]){argv[1], argv[2], out, NULL}), 0);
  h5t_list_dir(dir, names_buf, sizeof names_buf);
  CHECK(strcmp(names_buf, "grid.h5 grid.h5.xdmf") == 0);
  /* Usage errors say so. */
  CHECK_EQ_INT(run((char *[]){argv[1], argv[2], NULL}), 2);
  char missing[600];
  snprintf(missing, sizeof missing, "%s/none.dat", dir);
  CHECK_EQ_INT(run((char *[]){argv[1], missing, out, NULL}), 1);

  /* Structure and values against OP2's own file. */
  hid_t ours = h5t_open(out), ref = h5t_open(argv[3]);
  names on, rn;
  root_names(ours, &on);
  root_names(ref, &rn);
  int k = 0;
  for (int i = 0; i < rn.n; i++) {
    if (strcmp(rn.list[i], "group3") == 0) continue; /* OP2's copies to test path names */
    CHECK(k < on.n);
    CHECK(strcmp(on.list[k], rn.list[i]) == 0);
    same_dataset(ours, ref, on.list[k++]);
  }
  CHECK_EQ_INT(k, on.n);
  CHECK_EQ_INT(k, 22);
  H5Fclose(ours);
  H5Fclose(ref);

  /* And it loads as the text mesh. */
  airfoil_mesh mesh;
  char err[512];
  CHECK(airfoil_mesh_read(argv[2], &mesh, err, sizeof err) == 0);
  op_set nodes = op_decl_set_hdf5(out, "nodes"), edges = op_decl_set_hdf5(out, "edges");
  op_set bedges = op_decl_set_hdf5(out, "bedges"), cells = op_decl_set_hdf5(out, "cells");
  CHECK(nodes && edges && bedges && cells);
  CHECK_EQ_INT(op_get_size(nodes), mesh.nnode);
  CHECK_EQ_INT(op_get_size(edges), mesh.nedge);
  CHECK_EQ_INT(op_get_size(bedges), mesh.nbedge);
  CHECK_EQ_INT(op_get_size(cells), mesh.ncell);
  same_map(op_decl_map_hdf5(edges, nodes, 2, out, "pedge"), mesh.edge);
  same_map(op_decl_map_hdf5(edges, cells, 2, out, "pecell"), mesh.ecell);
  same_map(op_decl_map_hdf5(bedges, nodes, 2, out, "pbedge"), mesh.bedge);
  same_map(op_decl_map_hdf5(bedges, cells, 1, out, "pbecell"), mesh.becell);
  same_map(op_decl_map_hdf5(cells, nodes, 4, out, "pcell"), mesh.cell);
  op_dat p_x = op_decl_dat_hdf5(nodes, 2, "double", out, "p_x");
  op_dat p_bound = op_decl_dat_hdf5(bedges, 1, "int", out, "p_bound");
  CHECK(p_x && p_bound);
  CHECK(memcmp(p_x->data, mesh.x, sizeof(double) * 2 * (size_t)mesh.nnode) == 0);
  CHECK(memcmp(p_bound->data, mesh.bound, sizeof(int) * (size_t)mesh.nbedge) == 0);
  double alpha = 0;
  op_get_const_hdf5("alpha", 1, "double", (char *)&alpha, out);
  CHECK(alpha == 3.0f * atan(1.0f) / 45.0f);
  airfoil_mesh_free(&mesh);
  h5t_remove_tree(dir);
  op_exit();
  return 0;
}
