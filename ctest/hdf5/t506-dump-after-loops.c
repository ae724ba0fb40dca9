/* SPDX-License-Identifier: BSD-3-Clause */
/* Dump after loops: with one process a renumbering reorders every set, under MPI the first loop
 * partitions the mesh; the loops change the data. The file must hold the loops' results in the
 * order the user declared, and read back equal. */
#include "roundtrip.h"

static const char *accumulate_src =
    "void accumulate(const double *a, const double *b, const double *c, double *rho) {\n"
    "  *rho += a[0] + b[0] + c[0];\n"
    "}\n";
static const char *shift_src = "void shift(double *x) { x[1] += 1.0; }\n";

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  test_catch_errors();
  make_mesh();
  char dir[512], path[600];
  h5t_scratch(dir, sizeof dir, "h5-loops");
  snprintf(path, sizeof path, "%s/b.h5", dir);
  mesh m = declare();
  if (h5t_size() == 1) op_renumber(m.cell_nodes);
  op_par_loop(accumulate_src, "accumulate", m.cells,
              op_arg_dat(m.x, 0, m.cell_nodes, 2, "double", OP_READ),
              op_arg_dat(m.x, 1, m.cell_nodes, 2, "double", OP_READ),
              op_arg_dat(m.x, 2, m.cell_nodes, 2, "double", OP_READ),
              op_arg_dat(m.rho, -1, OP_ID, 1, "double", OP_RW));
  op_par_loop(shift_src, "shift", m.nodes, op_arg_dat(m.x, -1, OP_ID, 2, "double", OP_RW));
  /* The renumbering must have happened, or this test would not test the reordering. */
  if (h5t_size() == 1) CHECK(m.nodes->orig != NULL && m.cells->orig != NULL);
  /* Summed as the kernel sums, so the comparison can be exact. */
  for (int c = 0; c < NC; c++)
    rho[c] +=
        x[2 * cell_nodes[3 * c]] + x[2 * cell_nodes[3 * c + 1]] + x[2 * cell_nodes[3 * c + 2]];
  for (int n = 0; n < NN; n++) x[2 * n + 1] += 1.0;

#if !defined(OP2_HAVE_GATHER_BLOCK)
  if (h5t_size() > 1) {
    /* Until the runtime gathers distributed data back into the user's order, a dump of a
     * partitioned mesh must refuse rather than write rows in the wrong places. */
    EXPECT_ERROR(op_dump_to_hdf5(path), "distributed gather");
    h5t_barrier();
    CHECK(!h5t_exists(path));
    h5t_remove_tree(dir);
    op_exit();
    return 0;
  }
#endif
  op_dump_to_hdf5(path);
  h5t_barrier();
  check_file(path);
  read_back(path);
  h5t_remove_tree(dir);
  op_exit();
  return 0;
}
