/* SPDX-License-Identifier: BSD-3-Clause */
/* OP2's headers and the calls OP2's programs take from them, as an installed program sees them
 * (op2.h without the library's structs): op_lib_mpi.h brings <mpi.h> and OP2's MPI_ROOT (0, the
 * root every OP2 *_mpi.cpp scatters its mesh from), op_profile.h, op_hdf5.h, op_util.h; OP2's
 * allocation calls, idx_g_t and op_decl_map_long, op_decl_dat_temp_char, op_arg_info,
 * op_halo_create; and the fields OP2 code reads (set->size, map->dim...), read-only but for the
 * two OP2 programs write (dat->name, map->map's values).
 * Run on one process and under mpirun with 2 ranks. */
#include "op_lib_mpi.h"
#include "op_hdf5.h"
#include "op_profile.h"
#include "op_util.h"

#include <type_traits>

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static_assert(MPI_ROOT == 0, "OP2's MPI_ROOT is rank 0");
static_assert(sizeof(idx_g_t) == 8, "OP2's global indices are 64-bit");
/* The program reads these fields and cannot write them... */
static_assert(std::is_const<decltype(op_set_core::size)>::value, "set->size is read-only");
static_assert(std::is_const<decltype(op_dat_core::dim)>::value, "dat->dim is read-only");
static_assert(std::is_const<decltype(op_dat_core::type)>::value, "dat->type is read-only");
static_assert(std::is_const<decltype(op_map_core::dim)>::value, "map->dim is read-only");
static_assert(std::is_const<decltype(op_map_core::name)>::value, "map->name is read-only");
/* ...but for the two that OP2 programs write: a dat's name, and a map's values (in place, or an
 * array of the program's). */
static_assert(std::is_same<decltype(op_dat_core::name), const char *>::value, "dat->name = ...");
static_assert(std::is_same<decltype(op_map_core::map), int *>::value, "map->map = ...");

static const char *mark_src =
    "void mark(const double *x, double *top, int *idx, int *at) {\n"
    "  if (*x > *top) { *top = *x; *at = *idx; }\n"
    "}\n";
static const char *gather_src = "void gather(const double *x, double *s) { s[0] += x[0]; }\n";

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  /* OP2's converters: each rank's block of a global count, scattered from MPI_ROOT. */
  const int G = 11;
  int mine = compute_local_size(G, nranks, rank), total = 0;
  MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(total == G);
  CHECK(compute_local_size(11, 3, 0) == 4 && compute_local_size(11, 3, 2) == 3);
  int *counts = (int *)op_malloc(sizeof(int) * (size_t)nranks);
  int *displs = (int *)op_calloc((size_t)nranks, sizeof(int));
  CHECK(counts && displs && (size_t)counts % 64 == 0 && displs[0] == 0);
  for (int r = 0; r < nranks; r++) {
    counts[r] = compute_local_size(G, nranks, r);
    displs[r] = r ? displs[r - 1] + counts[r - 1] : 0;
  }
  double all[G], block[G];
  for (int i = 0; i < G; i++) all[i] = 10.0 * i;
  CHECK(MPI_Scatterv(all, counts, displs, MPI_DOUBLE, block, mine, MPI_DOUBLE, MPI_ROOT,
                     MPI_COMM_WORLD) == MPI_SUCCESS);
  counts = (int *)op_realloc(counts, sizeof(int) * 1000);
  CHECK(counts != NULL);
  op_free(counts);
  op_free(displs);
  void *x = xmalloc(16), *y = xcalloc(2, 8);
  x = xrealloc(x, 32);
  CHECK(x && y && !file_exist("/nonexistent/op2") && file_exist("/"));
  free(x), free(y);

  /* Declarations: 64-bit map values, a temporary from OP2's char form, and what code reads. */
  op_set nodes = op_decl_set(mine, "nodes");
  op_set edges = op_decl_set(mine, "edges");
  idx_g_t *ends = (idx_g_t *)malloc(sizeof(idx_g_t) * 2 * (size_t)(mine + 1));
  int first = 0;
  for (int r = 0; r < rank; r++) first += compute_local_size(G, nranks, r);
  for (int e = 0; e < mine; e++) {
    ends[2 * e] = first + e;
    ends[2 * e + 1] = (first + e + 1) % G;
  }
  op_map pedge = op_decl_map_long(edges, nodes, 2, ends, "pedge");
  op_dat p_x = op_decl_dat(nodes, 1, "double", block, "p_x");
  op_dat p_s = op_decl_dat_temp_char(edges, 1, "double", (int)sizeof(double), "p_s");
  CHECK(pedge && p_x && p_s);
  CHECK(nodes->size == mine && strcmp(nodes->name, "nodes") == 0 && nodes->index == 0);
  CHECK(strcmp(p_x->name, "p_x") == 0 && p_x->dim == 1 && p_x->set == nodes);
  CHECK(p_x->size == (int)sizeof(double) && strcmp(p_x->type, "double") == 0);
  CHECK(pedge->dim == 2 && pedge->from == edges && pedge->to == nodes);
  CHECK(strcmp(pedge->name, "pedge") == 0 && strcmp(p_s->name, "p_s") == 0);
  op_halo_create();

  op_par_loop(gather_src, "gather", edges, op_arg_dat(p_x, 0, pedge, 1, "double", OP_READ),
              op_arg_dat(p_s, -1, OP_ID, 1, "double", OP_INC));
  double sum[G];
  op_fetch_data(p_s, sum);
  for (int e = 0; e < mine; e++) CHECK(sum[e] == 10.0 * (first + e));

  /* op_arg_info beside an OP_MAX: the element where the maximum is. */
  double top = -1;
  int at = -1;
  op_par_loop(mark_src, "mark", nodes, op_arg_dat(p_x, -1, OP_ID, 1, "double", OP_READ),
              op_arg_gbl(&top, 1, "double", OP_MAX), op_arg_idx(-1, OP_ID),
              op_arg_info(&at, 1, "int", 1));
  CHECK(top == 10.0 * (G - 1));
  if (nranks == 1) CHECK(at == G - 1);
  CHECK(op_free_dat_temp(p_s) == 0);
  free(ends);
  op_exit();
  return 0;
}
