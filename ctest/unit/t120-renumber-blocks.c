/* SPDX-License-Identifier: BSD-3-Clause */
/* Partition-based renumbering (OP2_RENUMBER=blocks, runtime/renumber_blocks.c) on a box of grid
 * nodes and edges numbered at random. The order itself: a permutation; each part's elements
 * consecutive, parts balanced and compact (few graph edges cut); edges numbered after their
 * first node, as the renumbering numbers them, so that each block of 256 edges (a plan's
 * mini-partition) is drawn from one or two parts. Through the library: a loop incrementing nodes
 * from edges gives the plain C results to 1e-12, with both sets really reordered (their
 * original-index tables permutations, not the identity). */
#include "test.h"
#include "runtime/op2_impl.h"
#include "runtime/renumber_blocks.h"

enum { NX = 14, NY = 14, NZ = 20, PART = 256 };
enum { NN = (NX + 1) * (NY + 1) * (NZ + 1) };

static int node_at(int i, int j, int k) {
  return i + (NX + 1) * (j + (NY + 1) * k);
}

static void shuffle(int *p, int n, unsigned *rng) {
  for (int i = 0; i < n; i++) p[i] = i;
  for (int i = n - 1; i > 0; i--) {
    int j = (int)(test_rand(rng) % (unsigned)(i + 1)), t = p[i];
    p[i] = p[j], p[j] = t;
  }
}

/* The box's edges, nodes and edges both numbered at random: edge e joins nodes en[2e], en[2e+1]. */
static int make_box(int *en) {
  unsigned rng = 12345;
  int node_id[NN], ne = 0;
  shuffle(node_id, NN, &rng);
  static int grid[2 * 3 * NN];
  for (int k = 0; k <= NZ; k++)
    for (int j = 0; j <= NY; j++)
      for (int i = 0; i <= NX; i++) {
        int a = node_at(i, j, k);
        if (i < NX) grid[2 * ne] = a, grid[2 * ne + 1] = node_at(i + 1, j, k), ne++;
        if (j < NY) grid[2 * ne] = a, grid[2 * ne + 1] = node_at(i, j + 1, k), ne++;
        if (k < NZ) grid[2 * ne] = a, grid[2 * ne + 1] = node_at(i, j, k + 1), ne++;
      }
  int *edge_id = malloc(sizeof(int) * (size_t)ne);
  shuffle(edge_id, ne, &rng);
  for (int e = 0; e < ne; e++)
    for (int c = 0; c < 2; c++) en[2 * edge_id[e] + c] = node_id[grid[2 * e + c]];
  free(edge_id);
  return ne;
}

static void check_permutation(const int *order, int n, const char *what) {
  char *seen = calloc((size_t)n, 1);
  for (int i = 0; i < n; i++) {
    if (order[i] < 0 || order[i] >= n || seen[order[i]]) {
      fprintf(stderr, "%s: position %d holds %d: not a permutation\n", what, i, order[i]);
      exit(1);
    }
    seen[order[i]] = 1;
  }
  free(seen);
}

static void check_order(const int *en, int ne) {
  /* the element graph of the nodes: grid neighbours (no duplicates, no self-loops) */
  op2_graph g = {
      .n = NN, .offset = calloc(NN + 1, sizeof(int)), .adj = malloc(sizeof(int) * 2 * (size_t)ne)};
  for (int e = 0; e < 2 * ne; e++) g.offset[en[e] + 1]++;
  for (int v = 0; v < NN; v++) g.offset[v + 1] += g.offset[v];
  int *fill = calloc(NN, sizeof(int));
  for (int e = 0; e < ne; e++)
    for (int c = 0; c < 2; c++)
      g.adj[g.offset[en[2 * e + c]] + fill[en[2 * e + c]]++] = en[2 * e + 1 - c];
  free(fill);

  int nparts = (ne + PART - 1) / PART, order[NN], part[NN], rank[NN];
  for (int v = 0; v < NN; v++) order[v] = v;
  CHECK_EQ_INT(op2_renumber_blocks(&g, nparts, order, part), OP2_OK);
  check_permutation(order, NN, "op2_renumber_blocks");
  for (int i = 0; i < NN; i++) rank[order[i]] = i;

  /* parts numbered along the order, each consecutive and within 50% of the mean size */
  int *size = calloc((size_t)nparts, sizeof(int));
  CHECK_EQ_INT(part[order[0]], 0);
  for (int i = 0; i < NN; i++) {
    if (i > 0 && part[order[i]] != part[order[i - 1]] && part[order[i]] != part[order[i - 1]] + 1) {
      fprintf(stderr, "position %d: part %d after part %d\n", i, part[order[i]],
              part[order[i - 1]]);
      exit(1);
    }
    CHECK(part[order[i]] < nparts);
    size[part[order[i]]]++;
  }
  double mean = (double)NN / nparts;
  for (int p = 0; p <= part[order[NN - 1]]; p++)
    CHECK(size[p] >= 0.5 * mean && size[p] <= 1.5 * mean);
  free(size);
  /* compact parts: a random cut of this box into parts of ~85 nodes cuts 99% of its edges, a
   * good one about 20% */
  int cut = 0;
  for (int e = 0; e < ne; e++) cut += part[en[2 * e]] != part[en[2 * e + 1]];
  fprintf(stderr, "%d nodes in %d parts, %d of %d edges cut\n", NN, nparts, cut, ne);
  CHECK(cut < 0.35 * ne);

  /* edges after their first node in the new order (stable: renumber.c's order_by_keys) */
  int *first = malloc(sizeof(int) * (size_t)ne), *by_first = malloc(sizeof(int) * (size_t)ne);
  int *start = calloc(NN + 1, sizeof(int));
  for (int e = 0; e < ne; e++) {
    int a = rank[en[2 * e]], b = rank[en[2 * e + 1]];
    first[e] = a < b ? a : b;
    start[first[e] + 1]++;
  }
  for (int v = 0; v < NN; v++) start[v + 1] += start[v];
  for (int e = 0; e < ne; e++) by_first[start[first[e]]++] = e;
  /* each block of PART edges drawn from at most 3 parts, 2 on average */
  int total = 0, blocks = 0, most = 0;
  for (int b = 0; b * PART < ne; b++, blocks++) {
    int lo = part[order[first[by_first[b * PART]]]];
    int last = b * PART + PART < ne ? b * PART + PART - 1 : ne - 1;
    int hi = part[order[first[by_first[last]]]], distinct = hi - lo + 1;
    total += distinct;
    if (distinct > most) most = distinct;
  }
  fprintf(stderr, "a block of %d edges is drawn from %.2f parts on average, %d at most\n", PART,
          (double)total / blocks, most);
  CHECK(most <= 3);
  CHECK((double)total / blocks <= 2.2);
  free(first), free(by_first), free(start), free(g.offset), free(g.adj);
}

static const char flux_src[] =
    "static void flux(const double *w, const double *xa, const double *xb, double *ra, double "
    "*rb) {\n"
    "  double f = w[0] * (xb[0] - xa[0]) + w[0] * w[0] * xa[0] * xb[0];\n"
    "  ra[0] += f;\n"
    "  rb[0] -= 0.5 * f;\n"
    "}\n";

static void check_loop(const int *en, int ne) {
  double *x = malloc(sizeof(double) * NN), *r = calloc(NN, sizeof(double));
  double *want = calloc(NN, sizeof(double)), *w = malloc(sizeof(double) * (size_t)ne);
  unsigned rng = 99;
  for (int v = 0; v < NN; v++) x[v] = 1 + (double)(test_rand(&rng) % 1000) / 1000;
  for (int e = 0; e < ne; e++) w[e] = 0.5 + (double)(test_rand(&rng) % 1000) / 1000;
  for (int e = 0; e < ne; e++) {
    double xa = x[en[2 * e]], xb = x[en[2 * e + 1]];
    double f = w[e] * (xb - xa) + w[e] * w[e] * xa * xb;
    want[en[2 * e]] += f;
    want[en[2 * e + 1]] -= 0.5 * f;
  }
  op_set nodes = op_decl_set(NN, "nodes"), edges = op_decl_set(ne, "edges");
  op_map pedge = op_decl_map(edges, nodes, 2, (int *)en, "pedge");
  op_dat dx = op_decl_dat(nodes, 1, "double", x, "x");
  op_dat dr = op_decl_dat(nodes, 1, "double", r, "r");
  op_dat dw = op_decl_dat(edges, 1, "double", w, "w");
  op_par_loop(flux_src, "flux", edges, op_arg_dat(dw, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(dx, 0, pedge, 1, "double", OP_READ),
              op_arg_dat(dx, 1, pedge, 1, "double", OP_READ),
              op_arg_dat(dr, 0, pedge, 1, "double", OP_INC),
              op_arg_dat(dr, 1, pedge, 1, "double", OP_INC));
  CHECK(op2_ctx()->renumbered);
  op_set sets[2] = {nodes, edges};
  for (int s = 0; s < 2; s++) {
    int n = sets[s]->size, *orig = malloc(sizeof(int) * (size_t)n), moved = 0;
    CHECK(sets[s]->orig != NULL);
    for (int i = 0; i < n; i++) orig[i] = (int)sets[s]->orig[i], moved += orig[i] != i;
    check_permutation(orig, n, sets[s]->name);
    CHECK(moved > n / 2);
    free(orig);
  }
  double *got = malloc(sizeof(double) * NN);
  op_fetch_data(dr, got);
  for (int v = 0; v < NN; v++) CHECK_NEAR(got[v], want[v], 1e-12);
  free(x), free(r), free(want), free(w), free(got);
}

int main(int argc, char **argv) {
  (void)argc;
  char *args[] = {argv[0], "OP2_RENUMBER=blocks", NULL};
  op_init(2, args, 0);
  int *en = malloc(sizeof(int) * 2 * 3 * NN);
  int ne = make_box(en);
  check_order(en, ne);
  check_loop(en, ne);
  free(en);
  op_exit();
  puts("t120-renumber-blocks: ok");
  return 0;
}
