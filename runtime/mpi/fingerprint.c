/* SPDX-License-Identifier: BSD-3-Clause */
/* A map's values as one hash under MPI, for a checkpoint's mesh fingerprint (checkpoint_mesh.c):
 * each rank hashes its uniform block of the map's rows in the user's global numbering (the block
 * gathered as HDF5 output gathers it), and every rank combines the ranks' hashes in rank order.
 * The result depends on the mesh and the rank count only, not on how the mesh is distributed
 * now: a run that wrote a checkpoint after partitioning and the restart that replays calls
 * without running them (not distributed yet) agree on the same mesh. Collective. */
#include <stdint.h>
#include <stdlib.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "runtime/context.h"
#include "runtime/distributed.h"
#include "runtime/error.h"
#include "runtime/mesh.h"
#include "runtime/mpi/op2_mpi.h"

int op2_mpi_map_fingerprint(op2_context *ctx, op_map map, uint64_t *out) {
  long first = 0, count = 0;
  int *values = NULL;
  uint64_t *all = malloc(sizeof *all * (size_t)ctx->mpi.size);
  int rc = all ? OP2_OK
               : op2_error(OP2_ERR_MEM, "checkpoint: out of memory hashing map '%s'", map->name);
  rc = op2_mpi_agree(ctx, rc, "checkpoint: the mesh's fingerprint");
  if (rc == OP2_OK) rc = op2_map_gather_block(map, &first, &count, &values);
  uint64_t mine =
      rc == OP2_OK ? XXH3_64bits(values, (size_t)count * (size_t)map->dim * sizeof(int)) : 0;
  free(values);
  rc = op2_mpi_agree(ctx, rc, "checkpoint: the mesh's fingerprint");
  if (rc == OP2_OK)
    rc = OP2_MPI(MPI_Allgather(&mine, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, op2_comm(ctx)));
  if (rc == OP2_OK) *out = XXH3_64bits(all, sizeof *all * (size_t)ctx->mpi.size);
  free(all);
  return rc;
}
