/* SPDX-License-Identifier: BSD-3-Clause */
/* OP2_RENUMBER=auto, the default (runtime/renumber_auto.c): a loop incrementing nodes from edges
 * on a box of grid nodes and edges, with no OP2_RENUMBER given. Left in its order: a small box
 * numbered at random (its node dats, 0.7 MB, fit in cache) and a big one (14 MB) numbered along
 * the grid; renumbered: the big box numbered at random (both sets' original-index tables then a
 * permutation, not the identity), and with OP2_RENUMBER=off not. Results are the plain C ones to
 * 1e-12 in every case. Fails when auto always or never renumbers. */
#include "test.h"
#include "runtime/op2_impl.h"

/* Payload on the nodes: the data a loop reaches through the map, 24 doubles a node. */
enum { PAYLOAD = 24 };

typedef struct box {
  int nx, nn, ne, *en; /* edge e joins nodes en[2e], en[2e+1] */
} box;

static void shuffle(int *p, int n, unsigned *rng, int scrambled) {
  for (int i = 0; i < n; i++) p[i] = i;
  for (int i = n - 1; scrambled && i > 0; i--) {
    int j = (int)(test_rand(rng) % (unsigned)(i + 1)), t = p[i];
    p[i] = p[j], p[j] = t;
  }
}

/* A cube of nx^3 cells; nodes and edges numbered at random or along the grid. */
static box make_box(int nx, int scrambled) {
  box b = {.nx = nx, .nn = (nx + 1) * (nx + 1) * (nx + 1)};
  int n1 = nx + 1, *grid = malloc(sizeof(int) * 6 * (size_t)b.nn);
  for (int k = 0; k <= nx; k++)
    for (int j = 0; j <= nx; j++)
      for (int i = 0; i <= nx; i++) {
        int a = i + n1 * (j + n1 * k);
        if (i < nx) grid[2 * b.ne] = a, grid[2 * b.ne + 1] = a + 1, b.ne++;
        if (j < nx) grid[2 * b.ne] = a, grid[2 * b.ne + 1] = a + n1, b.ne++;
        if (k < nx) grid[2 * b.ne] = a, grid[2 * b.ne + 1] = a + n1 * n1, b.ne++;
      }
  unsigned rng = 12345;
  int *node_id = malloc(sizeof(int) * (size_t)b.nn), *edge_id = malloc(sizeof(int) * (size_t)b.ne);
  shuffle(node_id, b.nn, &rng, scrambled);
  shuffle(edge_id, b.ne, &rng, scrambled);
  b.en = malloc(sizeof(int) * 2 * (size_t)b.ne);
  for (int e = 0; e < b.ne; e++)
    for (int c = 0; c < 2; c++) b.en[2 * edge_id[e] + c] = node_id[grid[2 * e + c]];
  free(grid), free(node_id), free(edge_id);
  return b;
}

static const char flux_src[] =
    "static void flux(const double *w, const double *xa, const double *xb, double *ra, double "
    "*rb) {\n"
    "  double f = w[0] * (xb[0] - xa[0]) + w[0] * w[0] * xa[0] * xb[0];\n"
    "  ra[0] += f;\n"
    "  rb[0] -= 0.5 * f;\n"
    "}\n";

/* Runs the loop on `b` in a context of its own (`option`: an OP2_RENUMBER argument or NULL);
 * returns whether the nodes were renumbered, after checking the results and both sets' tables.
 * `partition`: the program calls op_partition first, and on one process the renumbering is done
 * there, before any loop (start-up, as under MPI), not by the first loop. */
static int run_with(const char *argv0, const char *option, const box *b, const char *what,
                    int partition) {
  char *args[] = {(char *)argv0, (char *)option, NULL};
  op_init(option ? 2 : 1, args, 0);
  int nn = b->nn, ne = b->ne;
  double *x = malloc(sizeof(double) * (size_t)nn), *r = calloc((size_t)nn, sizeof(double));
  double *want = calloc((size_t)nn, sizeof(double)), *w = malloc(sizeof(double) * (size_t)ne);
  unsigned rng = 99;
  for (int v = 0; v < nn; v++) x[v] = 1 + (double)(test_rand(&rng) % 1000) / 1000;
  for (int e = 0; e < ne; e++) w[e] = 0.5 + (double)(test_rand(&rng) % 1000) / 1000;
  for (int e = 0; e < ne; e++) {
    double xa = x[b->en[2 * e]], xb = x[b->en[2 * e + 1]];
    double f = w[e] * (xb - xa) + w[e] * w[e] * xa * xb;
    want[b->en[2 * e]] += f;
    want[b->en[2 * e + 1]] -= 0.5 * f;
  }
  op_set nodes = op_decl_set(nn, "nodes"), edges = op_decl_set(ne, "edges");
  op_map pedge = op_decl_map(edges, nodes, 2, b->en, "pedge");
  op_dat dx = op_decl_dat(nodes, 1, "double", x, "x");
  op_dat dr = op_decl_dat(nodes, 1, "double", r, "r");
  op_decl_dat(nodes, PAYLOAD, "double", NULL, "payload");
  op_dat dw = op_decl_dat(edges, 1, "double", w, "w");
  if (partition > 0) {
    op_partition("PTSCOTCH", "KWAY", edges, pedge, NULL);
    fprintf(stderr, "%s after op_partition: %s\n", what,
            nodes->orig ? "renumbered" : "in its order");
    partition = nodes->orig != NULL; /* compared with the outcome after the loop, below */
  }
  op_par_loop(flux_src, "flux", edges, op_arg_dat(dw, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(dx, 0, pedge, 1, "double", OP_READ),
              op_arg_dat(dx, 1, pedge, 1, "double", OP_READ),
              op_arg_dat(dr, 0, pedge, 1, "double", OP_INC),
              op_arg_dat(dr, 1, pedge, 1, "double", OP_INC));
  double *got = malloc(sizeof(double) * (size_t)nn);
  op_fetch_data(dr, got);
  for (int v = 0; v < nn; v++) CHECK_NEAR(got[v], want[v], 1e-12);
  int renumbered = nodes->orig != NULL;
  CHECK_EQ_INT(edges->orig != NULL, renumbered);           /* the edges follow the nodes */
  if (partition >= 0) CHECK_EQ_INT(partition, renumbered); /* decided at op_partition */
  op_set sets[2] = {nodes, edges};
  for (int s = 0; renumbered && s < 2; s++) {
    int n = sets[s]->size, moved = 0;
    char *seen = calloc((size_t)n, 1);
    for (int i = 0; i < n; i++) {
      long o = (long)sets[s]->orig[i];
      CHECK(o >= 0 && o < n && !seen[o]);
      seen[o] = 1, moved += o != i;
    }
    CHECK(moved > n / 2);
    free(seen);
  }
  fprintf(stderr, "%s (%d nodes, %d edges, %s): %s\n", what, nn, ne,
          option ? option : "OP2_RENUMBER not given",
          renumbered ? "renumbered" : "left in its order");
  free(x), free(r), free(want), free(w), free(got);
  op_exit();
  return renumbered;
}

static int run(const char *argv0, const char *option, const box *b, const char *what) {
  return run_with(argv0, option, b, what, -1);
}

int main(int argc, char **argv) {
  (void)argc;
  unsetenv("OP2_RENUMBER"); /* the default */
  box small = make_box(16, 1), ordered = make_box(40, 0), scrambled = make_box(40, 1);
  CHECK(!run(argv[0], NULL, &small, "small box numbered at random"));
  CHECK(!run(argv[0], NULL, &ordered, "big box numbered along the grid"));
  CHECK(run(argv[0], NULL, &scrambled, "big box numbered at random"));
  CHECK(run(argv[0], "OP2_RENUMBER=auto", &scrambled, "big box numbered at random"));
  CHECK(!run(argv[0], "OP2_RENUMBER=off", &scrambled, "big box numbered at random"));
  CHECK(run_with(argv[0], NULL, &scrambled, "big box numbered at random, op_partition", 1));
  CHECK(!run_with(argv[0], NULL, &small, "small box numbered at random, op_partition", 1));
  free(small.en), free(ordered.en), free(scrambled.en);
  puts("t121-renumber-auto: ok");
  return 0;
}
