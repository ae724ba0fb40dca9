/* SPDX-License-Identifier: BSD-3-Clause */
/* Round trip: declare a small mesh with every type, dims 1 to 5, an empty set and a name inside
 * groups; dump it; check the file against OP2's layout; read it back with the op_decl_*_hdf5
 * calls and compare everything (each rank its block under MPI). */
#include "roundtrip.h"

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  test_catch_errors();
  make_mesh();
  char dir[512], path[600];
  h5t_scratch(dir, sizeof dir, "h5-roundtrip");
  declare();
  snprintf(path, sizeof path, "%s/a.h5", dir);
  op_dump_to_hdf5(path);
  h5t_barrier();
  check_file(path);
  if (h5t_rank() == 0) {
    char names[256];
    h5t_list_dir(dir, names, sizeof names);
    /* No temporary left behind; the triangle map over "x" gave an XDMF description. */
    CHECK(strcmp(names, "a.h5 a.h5.xdmf") == 0);
  }
  read_back(path);
  h5t_remove_tree(dir);
  op_exit();
  return 0;
}
