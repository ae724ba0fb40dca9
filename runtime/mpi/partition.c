/* SPDX-License-Identifier: BSD-3-Clause */
/* op_partition: OP2's explicit request to distribute the mesh, under OP2's names. Without it the
 * first loop keeps the declared blocks (BLOCK). What runs for each name (docs/MPI.md):
 *   PTSCOTCH (KWAY), PARMETIS KWAY                 PT-Scotch k-way on the graph of prime_map
 *   PARMETIS GEOMKWAY                              the same, the graph first moved to the ranks
 *                                                  of a bisection of coords (ParMETIS's way)
 *   PARMETIS GEOM, INERTIAL                        recursive coordinate bisection of coords
 *   EXTERNAL                                       the parts an int dat gives (e.g. OP2's
 *                                                  "partvecNNNN" read with op_decl_dat_hdf5)
 *   KAHIP                                          PT-Scotch k-way, with a warning saying so
 *   BLOCK, RANDOM, anything else                   the declared blocks (OP2_DIAGS=1 says so) */
#include <stdio.h>
#include <string.h>

#include "runtime/mpi/op2_mpi.h"
#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/mpi_state.h"
#include "runtime/mesh.h"
#include "runtime/chain.h"
#include "runtime/renumber_auto.h"

/* With no primary map given, the graph comes from the map of arity 2 or more from the largest
 * set touching prime_set (the first declared on a tie): in OP2's meshes that is the edge-to-node
 * or edge-to-cell map, whose graph links neighbouring elements of its to-set. NULL when there is
 * none. */
static op_map pick_primary_map(const op2_context *ctx, op_set prime_set) {
  op_map best = NULL;
  for (int m = 0; m < ctx->maps.count; m++) {
    op_map map = ctx->maps.items[m];
    if (map->dim < 2 || (prime_set && map->to != prime_set && map->from != prime_set)) continue;
    if (!best || map->from->global_size > best->from->global_size) best = map;
  }
  return best;
}

static int is(const char *s, const char *name) {
  return s && strcmp(s, name) == 0;
}

/* What runs for OP2's names; *kahip is set when KaHIP was asked for (it is not in Debian). */
static op2_part_method method_for(const char *lib, const char *routine, int *kahip) {
  *kahip = is(lib, "KAHIP");
  if (is(lib, "PTSCOTCH") || *kahip) return OP2_PART_PTSCOTCH;
  if (is(lib, "INERTIAL")) return OP2_PART_GEOMETRIC;
  if (is(lib, "EXTERNAL")) return OP2_PART_EXTERNAL;
  if (is(lib, "PARMETIS")) return is(routine, "GEOM") ? OP2_PART_GEOMETRIC : OP2_PART_PTSCOTCH;
  return OP2_PART_BLOCK;
}

/* The graph partitioner's set and map: checked, or picked when the program gave none. */
static int graph_arguments(op2_context *ctx, op2_partition_spec *spec) {
  op_set prime_set = spec->prime;
  op_map prime_map = spec->prime_map;
  if (prime_map && prime_set && prime_map->from != prime_set && prime_map->to != prime_set)
    return op2_error(OP2_ERR_ARG,
                     "op_partition %s: prime_map '%s' (4th argument) goes from set '%s' to set "
                     "'%s', neither of which is prime_set '%s' (3rd argument)",
                     spec->asked, prime_map->name, prime_map->from->name, prime_map->to->name,
                     prime_set->name);
  if (!prime_map) {
    prime_map = pick_primary_map(ctx, prime_set);
    op2_diag(1, "op_partition %s: no prime_map given; %s%s", spec->asked,
             prime_map ? "partitioning with map " : "no map of arity 2 or more, using BLOCK",
             prime_map ? prime_map->name : "");
    if (!prime_map) return spec->method = OP2_PART_BLOCK, OP2_OK;
  }
  if (!prime_set) prime_set = prime_map->to; /* the graph of a map lives on its to-set */
  if (prime_map->dim < 2 && prime_map->to != prime_set)
    return op2_error(OP2_ERR_ARG,
                     "op_partition %s: prime_map '%s' (4th argument) has arity 1, so it links no "
                     "elements of prime_set '%s' (3rd argument)",
                     spec->asked, prime_map->name, prime_set->name);
  spec->prime = prime_set, spec->prime_map = prime_map;
  return OP2_OK;
}

/* The coordinates (GEOMETRIC) or parts (EXTERNAL) dat: its set is the one partitioned. The map
 * whose cut edges OP2_DIAGS=2 reports is prime_map when it touches that set, else one picked. */
static int data_arguments(op2_context *ctx, op2_partition_spec *spec, int geometric) {
  op_dat d = spec->data;
  if (!d)
    return op2_error(OP2_ERR_ARG, "op_partition %s: the 5th argument (%s) is NULL", spec->asked,
                     geometric ? "the coordinates dat" : "the dat of each element's part");
  if (geometric &&
      ((d->type != OP2_TYPE_DOUBLE && d->type != OP2_TYPE_FLOAT) || d->dim < 1 || d->dim > 3))
    return op2_error(OP2_ERR_ARG,
                     "op_partition %s: coordinates dat '%s' holds %d %s per element; recursive "
                     "coordinate bisection needs 1 to 3 doubles or floats",
                     spec->asked, d->name, d->dim, d->type_name);
  if (!geometric && (d->type != OP2_TYPE_INT || d->dim != 1))
    return op2_error(OP2_ERR_ARG,
                     "op_partition %s: dat '%s' holds %d %s per element; the parts must be one "
                     "int per element (OP2's partvecNNNN)",
                     spec->asked, d->name, d->dim, d->type_name);
  if (spec->prime && spec->prime != d->set)
    return op2_error(OP2_ERR_ARG,
                     "op_partition %s: prime_set '%s' (3rd argument) is not the set of dat '%s' "
                     "('%s', 5th argument), which is the set partitioned",
                     spec->asked, spec->prime->name, d->name, d->set->name);
  spec->prime = d->set;
  op_map m = spec->prime_map;
  if (spec->method != OP2_PART_PTSCOTCH && /* GEOMKWAY keeps its graph's map */
      (!m || m->dim < 2 || (m->from != d->set && m->to != d->set)))
    spec->prime_map = pick_primary_map(ctx, d->set);
  return OP2_OK;
}

void op_partition(const char *lib, const char *routine, op_set prime_set, op_map prime_map,
                  op_dat coords) {
  op2_context *ctx = op2_ctx();
  if (op2_require_init("op_partition") != OP2_OK) return;
  op2_chain_flush(ctx, "op_partition"); /* lazy execution: queued loops first */
  char asked[64];
  snprintf(asked, sizeof asked, "%s%s%s", lib ? lib : "BLOCK", routine ? " " : "",
           routine ? routine : "");
  int kahip = 0;
  op2_partition_spec spec = {.method = method_for(lib, routine, &kahip),
                             .asked = asked,
                             .prime = prime_set,
                             .prime_map = prime_map,
                             .data = coords};
  if (kahip)
    op2_diag(0,
             "warning: op_partition KAHIP: KaHIP is not available in this build; PTSCOTCH KWAY "
             "(PT-Scotch k-way on the same map) runs instead");
  else if (spec.method == OP2_PART_BLOCK && lib && !is(lib, "BLOCK"))
    op2_diag(1, "op_partition: partitioner '%s' is not available here; using BLOCK instead", asked);
  else if (is(lib, "PARMETIS") && spec.method == OP2_PART_PTSCOTCH)
    op2_diag(
        1,
        "op_partition %s: ParMETIS is not in this build; PT-Scotch k-way runs on the same "
        "map%s",
        asked,
        is(routine, "GEOMKWAY") ? ", the graph first moved to a bisection of the coordinates" : "");
  int rc = OP2_OK;
  if (spec.method == OP2_PART_PTSCOTCH) {
    rc = graph_arguments(ctx, &spec);
    /* GEOMKWAY: the graph moves to a bisection of the coordinates before PT-Scotch runs */
    spec.data = is(lib, "PARMETIS") && is(routine, "GEOMKWAY") ? coords : NULL;
    if (rc == OP2_OK && spec.data && spec.data->set != spec.prime) {
      op2_diag(1,
               "op_partition %s: coordinates '%s' are not on the partitioned set '%s': "
               "PT-Scotch k-way without them",
               asked, spec.data->name, spec.prime->name);
      spec.data = NULL;
    }
    if (rc == OP2_OK && spec.data) rc = data_arguments(ctx, &spec, 1);
  } else if (spec.method != OP2_PART_BLOCK) {
    rc = data_arguments(ctx, &spec, spec.method == OP2_PART_GEOMETRIC);
  }
  if (rc != OP2_OK) return;
  if (ctx->mpi_distributed) {
    op2_error(OP2_ERR_STATE,
              "op_partition: the mesh is already distributed (call it once, "
              "before the first loop)");
    return;
  }
  /* One process: nothing to distribute, but OP2_RENUMBER's renumbering happens here, where a
   * distributed run partitions and renumbers each rank's part, so that both count it as
   * start-up and not as the first loop's time (a restart renumbers after its replayed calls). */
  if (ctx->mpi.size <= 1) {
    if (!ctx->opt.restart[0]) op2_renumber_once(ctx);
    return;
  }
  op2_mpi_partition(ctx, &spec);
}
