/* op_partition: OP2's explicit request to distribute the mesh. Without it the first loop keeps
 * the declared blocks (BLOCK). */
#include <string.h>

#include "op2_mpi.h"

void op_partition(const char *lib, const char *routine, op_set prime_set, op_map prime_map,
                  op_dat coords) {
  op2_context *ctx = op2_ctx();
  (void)routine; /* OP2 names KWAY, GEOM, ...: PT-Scotch here is always k-way */
  (void)coords;
  if (op2_require_init("op_partition") != OP2_OK) return;
  const char *use = lib && strcmp(lib, "PTSCOTCH") == 0 ? "PTSCOTCH" : NULL;
  if (lib && strcmp(lib, "PTSCOTCH") != 0 && strcmp(lib, "BLOCK") != 0) {
    op2_error(OP2_ERR_ARG, "op_partition: unknown partitioner '%s' (use PTSCOTCH or BLOCK)", lib);
    return;
  }
  if (use &&
      (!prime_set || !prime_map || (prime_map->from != prime_set && prime_map->to != prime_set))) {
    op2_error(OP2_ERR_ARG,
              "op_partition PTSCOTCH: the primary map must start or end at the "
              "primary set");
    return;
  }
  if (use && prime_map->dim < 2 && prime_map->to != prime_set) {
    op2_error(OP2_ERR_ARG,
              "op_partition PTSCOTCH: map '%s' of arity 1 links no elements of "
              "set '%s'",
              prime_map->name, prime_set->name);
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
