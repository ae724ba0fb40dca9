/* SPDX-License-Identifier: BSD-3-Clause */
/* op_partition keeps the declared blocks when they already make small halos, and partitions
 * otherwise. Usage: t415-keep-blocks local|replicated ordered|random|uneven kept|partitioned
 *
 *   ordered     a mesh numbered along its geometry (3 map entries in 1000 jump anywhere), split
 *               evenly: few map entries reach another rank's block;
 *   random      the same sizes, every map entry anywhere: about half cross;
 *   uneven      the ordered mesh in skewed blocks (local only): halos are small but the blocks
 *               are not balanced, so the partitioner must run.
 * Rank 0 checks what OP2_DIAGS=2 says op_partition chose (OP2_PARTITION_KEEP comes from the
 * environment). With blocks kept, every rank must own exactly its declared block of every set.
 * Either way, an incrementing loop through the map and a direct loop after it must give plain
 * C's values on the whole mesh. */
#include "mpi_test.h"
#include "runtime/op2_impl.h"

enum { NN = 4000, NE = 12000 };

KERNEL(
    spread, static void spread(const double *w, double *a, double *b) {
      a[0] += w[0];
      b[0] -= 0.5 * w[0];
    })

KERNEL(
    scale, static void scale(const int *g, double *x) { x[0] = 2.0 * x[0] + (double)(*g % 5); })

/* Kept blocks: this rank owns its declared block of the set, every element of it once. */
static void check_owns_block(const mt_set *s) {
  op_set set = s->set;
  if (set->size != s->b.count)
    fprintf(stderr, "rank %d: set '%s' owns %d elements, declared %d\n", mt_rank(), set->name,
            set->size, s->b.count);
  CHECK(set->size == s->b.count);
  char *seen = calloc((size_t)s->b.count + 1, 1);
  CHECK(seen != NULL);
  for (int e = 0; e < set->size; e++) {
    int g = set->orig[e] - s->b.first;
    CHECK(g >= 0 && g < s->b.count && !seen[g]);
    seen[g] = 1;
  }
  free(seen);
}

int main(int argc, char **argv) {
  CHECK(argc == 4);
  op_init(argc, argv, 0);
  test_catch_errors();
  mt_mode mode = mt_parse_mode(argv[1]);
  int uneven = strcmp(argv[2], "uneven") == 0, kept = strcmp(argv[3], "kept") == 0;
  CHECK(uneven || strcmp(argv[2], "ordered") == 0 || strcmp(argv[2], "random") == 0);
  CHECK(kept || strcmp(argv[3], "partitioned") == 0);
  int jumps = strcmp(argv[2], "random") == 0 ? RM_FULLY_RANDOM : RM_JUMPS;
  unsigned rng = rm_rng(415);
  int *en = rm_map_values(NE, 2, NN, jumps, &rng);
  double *w = rm_doubles(NE, -1, 1, &rng), *x = rm_alloc(sizeof(double) * NN);
  mt_split split = uneven ? MT_SPLIT_SKEWED : MT_SPLIT_EVEN;
  mt_set nodes = mt_decl_set(mode, split, NN, "nodes");
  mt_set edges = mt_decl_set(mode, split, NE, "edges");
  op_map pedge = mt_decl_map(&edges, &nodes, 2, en, "pedge");
  op_dat dw = mt_decl_dat(&edges, 1, "double", sizeof(double), w, "w");
  op_dat dx = mt_decl_dat(&nodes, 1, "double", sizeof(double), NULL, "x");

  const char *said = mt_partition_capturing("PTSCOTCH", "KWAY", nodes.set, pedge, NULL);
  if (mt_size() > 1 && mt_rank() == 0)
    CHECK_CONTAINS(said, kept ? "the declared blocks are kept, the partitioner is not run"
                              : "op_partition PTSCOTCH KWAY: partitioning:");
  if (mt_size() > 1 && kept && mode == MT_LOCAL) {
    check_owns_block(&nodes);
    check_owns_block(&edges);
  }

  op_par_loop(spread_src, "spread", edges.set, op_arg_dat(dw, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(dx, 0, pedge, 1, "double", OP_INC),
              op_arg_dat(dx, 1, pedge, 1, "double", OP_INC));
  op_par_loop(scale_src, "scale", nodes.set, op_arg_idx(-1, OP_ID),
              op_arg_dat(dx, -1, OP_ID, 1, "double", OP_RW));
  for (int e = 0; e < NE; e++) spread(w + e, x + en[2 * e], x + en[2 * e + 1]);
  for (int n = 0; n < NN; n++) scale(&n, x + n);
  double *got = mt_fetch_all(dx, NN, sizeof(double));
  mt_check_doubles(got, x, NN, 1e-12, "spread then scale");
  free(got), free(en), free(w), free(x);
  op_exit();
  return 0;
}
