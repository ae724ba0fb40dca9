/* SPDX-License-Identifier: BSD-3-Clause */
// OP2's reduction sample ported as docs/PORTING.md says: global sums over an indirect loop (over
// edges, incrementing cells through a map) and a direct loop (over cells) must count every
// element exactly once, also on several MPI ranks, where elements near a partition boundary are
// held by two ranks. Reads an Airfoil mesh from ./new_grid.dat (OP2's format, plain text).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "op_seq.h"

#include "res_calc.h"
#include "update.h"

// Reads `count` rows of `per_row` integers or doubles (fmt) from the mesh file.
static bool read_rows(FILE *fp, int count, int per_row, const char *fmt, void *out, size_t size) {
  for (int k = 0; k < count * per_row; k++)
    if (fscanf(fp, fmt, (char *)out + (size_t)k * size) != 1) return false;
  return true;
}

int main(int argc, char **argv) {
  op_init(argc, argv, 2);
  double cpu_t1, cpu_t2, wall_t1, wall_t2;

  op_printf("reading in data \n");
  FILE *fp = fopen("./new_grid.dat", "r");
  if (!fp) {
    op_printf("can't open file new_grid.dat\n");
    exit(-1);
  }
  int nnode, ncell, nedge, nbedge;
  if (fscanf(fp, "%d %d %d %d", &nnode, &ncell, &nedge, &nbedge) != 4) {
    op_printf("error reading from new_grid.dat\n");
    exit(-1);
  }
  // Node coordinates, cell corners, then per edge its two nodes and two cells; only the
  // edge-to-cell map is used, the rest is read past.
  double *x = (double *)malloc(2 * nnode * sizeof(double));
  int *cell = (int *)malloc(4 * ncell * sizeof(int));
  int *edge_rows = (int *)malloc(4 * nedge * sizeof(int));
  int *ecell = (int *)malloc(2 * nedge * sizeof(int));
  if (!read_rows(fp, nnode, 2, "%lf", x, sizeof(double)) ||
      !read_rows(fp, ncell, 4, "%d", cell, sizeof(int)) ||
      !read_rows(fp, nedge, 4, "%d", edge_rows, sizeof(int))) {
    op_printf("error reading from new_grid.dat\n");
    exit(-1);
  }
  fclose(fp);
  for (int n = 0; n < nedge; n++) {
    ecell[2 * n] = edge_rows[4 * n + 2];
    ecell[2 * n + 1] = edge_rows[4 * n + 3];
  }
  double *res = (double *)calloc(4 * ncell, sizeof(double));

  op_set edges = op_decl_set(nedge, "edges");
  op_set cells = op_decl_set(ncell, "cells");
  op_map pecell = op_decl_map(edges, cells, 2, ecell, "pecell");
  op_dat p_res = op_decl_dat(cells, 4, "double", res, "p_res");
  op_diagnostic_output();
  op_timers(&cpu_t1, &wall_t1);

  int count1 = 0;  // indirect loop: one per edge
  op_par_loop(res_calc, "res_calc", edges, op_arg_dat(p_res, 0, pecell, 4, "double", OP_INC),
              op_arg_gbl(&count1, 1, "int", OP_INC));
  op_printf("number of edges:: %d should be: %d \n", count1, nedge);
  op_printf(count1 == nedge ? "indirect reduction Passed\n" : "indirect reduction Failed\n");

  int count2 = 0;  // direct loop: one per cell
  op_par_loop(update, "update", cells, op_arg_dat(p_res, -1, OP_ID, 4, "double", OP_RW),
              op_arg_gbl(&count2, 1, "int", OP_INC));
  op_printf("number of cells: %d should be: %d \n", count2, ncell);
  op_printf(count2 == ncell ? "direct reduction Passed\n" : "direct reduction Failed\n");

  bool passed = count1 == nedge && count2 == ncell;
  op_printf(passed ? "Reduction application PASSED\n" : "Reduction application FAILED\n");
  op_timers(&cpu_t2, &wall_t2);
  op_timing_output();
  op_exit();
  free(x);
  free(cell);
  free(edge_rows);
  free(ecell);
  free(res);
  return passed ? 0 : 1;
}
