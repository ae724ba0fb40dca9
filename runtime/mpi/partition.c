/* SPDX-License-Identifier: BSD-3-Clause */
/* op_partition: OP2's explicit request to distribute the mesh. Without it the first loop keeps
 * the declared blocks (BLOCK). Partitioner names OP2 knows but this library does not have fall
 * back as OP2 falls back when it was built without them: graph partitioners to PT-Scotch k-way on
 * the same map (the same goal), the others to BLOCK; OP2_DIAGS=1 says so. */
#include <string.h>

#include "op2_mpi.h"
#include "../chain.h"

/* OP2's graph partitioners: partitioning the graph of the primary map is what they do. */
static int is_graph_partitioner(const char *lib, const char *routine) {
  if (strcmp(lib, "KAHIP") == 0) return 1;
  return strcmp(lib, "PARMETIS") == 0 &&
         !(routine && strcmp(routine, "GEOM") == 0); /* GEOM partitions coordinates only */
}

/* With no primary map given, the graph comes from the map of arity 2 or more whose from-set is
 * largest (the first declared on a tie): in OP2's meshes that is the edge-to-node or edge-to-cell
 * map, whose graph links neighbouring elements of its to-set. NULL when there is none. */
static op_map pick_primary_map(const op2_context *ctx, op_set prime_set) {
  op_map best = NULL;
  for (int m = 0; m < ctx->maps.count; m++) {
    op_map map = ctx->maps.items[m];
    if (map->dim < 2 || (prime_set && map->to != prime_set && map->from != prime_set)) continue;
    if (!best || map->from->global_size > best->from->global_size) best = map;
  }
  return best;
}

void op_partition(const char *lib, const char *routine, op_set prime_set, op_map prime_map,
                  op_dat coords) {
  op2_context *ctx = op2_ctx();
  (void)coords; /* PT-Scotch partitions the graph; coordinates are never needed */
  if (op2_require_init("op_partition") != OP2_OK) return;
  op2_chain_flush(ctx, "op_partition"); /* lazy execution: queued loops first */
  const char *use = NULL;
  if (lib && strcmp(lib, "PTSCOTCH") == 0) {
    use = "PTSCOTCH";
  } else if (lib && strcmp(lib, "BLOCK") != 0) {
    use = is_graph_partitioner(lib, routine) ? "PTSCOTCH" : NULL;
    op2_diag(1, "op_partition: partitioner '%s'%s%s is not available here; using %s instead", lib,
             routine ? " " : "", routine ? routine : "", use ? "PTSCOTCH" : "BLOCK");
  }
  if (use && prime_map && prime_set && prime_map->from != prime_set && prime_map->to != prime_set) {
    op2_error(OP2_ERR_ARG,
              "op_partition %s: prime_map '%s' (4th argument) goes from set '%s' to set '%s', "
              "neither of which is prime_set '%s' (3rd argument)",
              lib, prime_map->name, prime_map->from->name, prime_map->to->name, prime_set->name);
    return;
  }
  if (use && !prime_map) {
    prime_map = pick_primary_map(ctx, prime_set);
    if (!prime_map) use = NULL;
    op2_diag(1, "op_partition %s: no prime_map given; %s%s", lib,
             prime_map ? "partitioning with map " : "no map of arity 2 or more, using BLOCK",
             prime_map ? prime_map->name : "");
  }
  if (use && !prime_set) prime_set = prime_map->to; /* the graph of a map lives on its to-set */
  if (use && prime_map->dim < 2 && prime_map->to != prime_set) {
    op2_error(OP2_ERR_ARG,
              "op_partition %s: prime_map '%s' (4th argument) has arity 1, so it links no "
              "elements of prime_set '%s' (3rd argument)",
              lib, prime_map->name, prime_set->name);
    return;
  }
  if (ctx->mpi_distributed) {
    op2_error(OP2_ERR_STATE,
              "op_partition: the mesh is already distributed (call it once, "
              "before the first loop)");
    return;
  }
  if (ctx->mpi.size <= 1) return; /* one process: nothing to distribute */
  op2_mpi_distribute(ctx, use, prime_set, prime_map);
}
