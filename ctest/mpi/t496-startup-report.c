/* SPDX-License-Identifier: BSD-3-Clause */
/* op_timing_output under MPI reports the start-up phases and each loop's halo messages and bytes
 * per rank per call. The mesh is a ring of 12 nodes per rank and its 12 edges (edge i joins
 * nodes i and i+1 mod N), declared in even blocks that the first loop keeps: every rank owns
 * the edges of its own nodes, so it needs exactly 2 other nodes, one from each neighbour (with 2
 * ranks, both from the other). An indirect read of a dat of 3 doubles on the nodes therefore
 * sends, per rank and per call, min(2, P-1) messages and 2 x 24 bytes: the expectation the
 * report is checked against, and the node set's halo sizes must agree with it. Usage:
 * t496-startup-report (2 or more ranks). */
#include "mpi_test.h"
#include "runtime/mesh.h"

KERNEL_TEXT(
    fill, static void fill(double *x, const int *i) {
      x[0] = i[0];
      x[1] = 2 * i[0];
      x[2] = 3 * i[0];
    })

KERNEL_TEXT(
    gather, static void gather(const double *a, const double *b, double *y) {
      y[0] = a[0] + b[1] + a[2] - b[2];
    })

enum { PER_RANK = 12, CALLS = 4, DIM = 3 };

/* The numbers of the row `name` in the table that starts at `header` in `text`. */
static int row_numbers(const char *text, const char *header, const char *name, double *v, int n) {
  const char *at = strstr(text, header);
  CHECK(at != NULL);
  char want[64];
  snprintf(want, sizeof want, "\n  %s ", name);
  at = strstr(at, want);
  if (!at) return 0;
  at += strlen(want);
  int got = 0;
  for (char *end; got < n; got++, at = end) {
    v[got] = strtod(at, &end);
    if (end == at) break;
  }
  return got;
}

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  const int rank = mt_rank(), p = mt_size();
  CHECK(p >= 2);
  const int n = PER_RANK * p;
  int *ring = rm_alloc(sizeof(int) * 2 * (size_t)n), *ids = rm_alloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; i++) ring[2 * i] = i, ring[2 * i + 1] = (i + 1) % n, ids[i] = i;
  mt_set nodes = mt_decl_set(MT_LOCAL, MT_SPLIT_EVEN, n, "nodes");
  mt_set edges = mt_decl_set(MT_LOCAL, MT_SPLIT_EVEN, n, "edges");
  op_map pedge = mt_decl_map(&edges, &nodes, 2, ring, "pedge");
  op_dat x = mt_decl_dat(&nodes, DIM, "double", sizeof(double), NULL, "x");
  op_dat id = mt_decl_dat(&nodes, 1, "int", sizeof(int), ids, "id");
  op_dat y = mt_decl_dat(&edges, 1, "double", sizeof(double), NULL, "y");
  for (int c = 0; c < CALLS; c++) {
    op_par_loop(fill_src, "fill", nodes.set, op_arg_dat(x, -1, OP_ID, DIM, "double", OP_WRITE),
                op_arg_dat(id, -1, OP_ID, 1, "int", OP_READ));
    op_par_loop(gather_src, "gather", edges.set, op_arg_dat(x, 0, pedge, DIM, "double", OP_READ),
                op_arg_dat(x, 1, pedge, DIM, "double", OP_READ),
                op_arg_dat(y, -1, OP_ID, 1, "double", OP_WRITE));
  }
  /* the results, so the traffic counted is the traffic that was needed */
  double *got = rm_alloc(sizeof(double) * ((size_t)edges.b.count + 1));
  op_fetch_data(y, got);
  for (int e = 0; e < edges.b.count; e++) {
    int a = edges.b.first + e, b = (a + 1) % n;
    CHECK(got[e] == a + 2.0 * b + 3.0 * a - 3.0 * b);
  }
  /* the halo the ring must give every rank: 2 node rows, no exec rows */
  CHECK(nodes.set->exec_size == 0);
  CHECK(nodes.set->nonexec_size == 2);

  char dir[4096], path[4200];
  mt_scratch_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/timing.txt", dir);
  op_timing_output_2_file(path);
  if (rank == 0) {
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    static char text[1 << 16];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = 0;
    fputs(text, stdout); /* in the test's log */
    double v[8];
    const char *phases[] = {"MPI start (MPI_Init)",
                            "declarations and reads",
                            "partition (ownership)",
                            "migration",
                            "halo build",
                            "kernel compile (jit)",
                            "first calls (less jit)",
                            "start-up total"};
    double total = 0;
    CHECK(row_numbers(text, "start-up phase", "start-up total", &total, 1) == 1);
    for (size_t k = 0; k < sizeof phases / sizeof *phases; k++) {
      CHECK(row_numbers(text, "start-up phase", phases[k], v, 2) == 2);
      CHECK(v[0] >= 0 && v[1] >= 0 && v[1] <= v[0] + 1e-9 && v[0] <= total + 1e-9);
    }
    CHECK(row_numbers(text, "start-up phase", "kernel compile (jit)", v, 1) == 1 && v[0] > 0);
    /* the optimised compiler runs once per machine: at most one build of each of the 2 kernels
     * summed over the ranks, however many ranks share this machine */
    const char *k = strstr(text, "kernels (sums over ranks): compiled ");
    CHECK(k != NULL);
    const char *opt = strstr(k, "optimised builds ");
    CHECK(opt != NULL && atoi(opt + strlen("optimised builds ")) <= 2);
    /* calls, messages mean, max, bytes mean, max */
    const double msgs = p == 2 ? 1 : 2, bytes = 2 * DIM * sizeof(double);
    CHECK(row_numbers(text, "halo per call", "gather", v, 5) == 5);
    printf(
        "t496: gather per rank per call: %.3f/%.3f messages, %.1f/%.1f bytes (expected %g, %g)\n",
        v[1], v[2], v[3], v[4], msgs, bytes);
    CHECK(v[0] == CALLS && v[1] == msgs && v[2] == msgs && v[3] == bytes && v[4] == bytes);
    CHECK(row_numbers(text, "halo per call", "fill", v, 5) == 5);
    CHECK(v[0] == CALLS && v[1] == 0 && v[2] == 0 && v[3] == 0 && v[4] == 0);
    CHECK(row_numbers(text, "halo per call", "all loops", v, 4) == 4);
    CHECK(v[0] == CALLS * msgs && v[2] == CALLS * bytes);
  }
  mt_scratch_remove(dir);
  free(ring), free(ids), free(got);
  op_exit();
  if (rank == 0) printf("t496 on %d ranks: start-up and halo traffic reported as expected\n", p);
  return 0;
}
