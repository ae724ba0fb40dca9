/* SPDX-License-Identifier: BSD-3-Clause */
/* A map's values as OP2 programs treat them: writable in place (map->map[i] = ...), or replaced
 * by an array of the program's (map->map = reordered), as OP2 lets a program reorder a map
 * before the loops use it. The library keeps a hash of the values it last
 * checked (the seal). Whatever is about to build something from them (a loop's first call, a
 * plan, the distribution, renumbering, a checkpoint's mesh) checks them first: values the
 * program changed before anything was built from them are range-checked and taken as they are;
 * a change after that is an error, since plans, halos, renumbering and device copies made from
 * the old values would go on being used without a word. op_exit looks once more and warns. */
#include <stdint.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/mesh.h"
#include "runtime/loop.h"

/* The entries the values array holds now: the declared rows until the mesh is distributed, then
 * the owned and exec-halo rows (what indirect-write loops run). */
static size_t held_entries(op_map m) {
  size_t rows = (size_t)m->from->size + (m->from->halo ? (size_t)m->from->exec_size : 0);
  return rows * (size_t)m->dim;
}

/* Values lie in [0, bound): the target set's size (under MPI before the distribution, its global
 * size: the user's indices), then its local elements with halos. */
static long value_bound(op_map m) {
  return m->to->halo ? (long)op2_set_local_count(m->to) : m->to->global_size;
}

static uint64_t values_hash(op_map m) {
  return XXH3_64bits(m->values, held_entries(m) * sizeof(int));
}

void op2_map_seal(op_map m) {
  m->sealed = m->values != NULL; /* a 64-bit map under MPI has no int values until its halos */
  m->sealed_values = m->values;
  if (m->sealed) m->seal = values_hash(m);
}

void op2_maps_seal_all(op2_context *ctx) {
  for (int i = 0; i < ctx->maps.count; i++) op2_map_seal(ctx->maps.items[i]);
}

int op2_map_check(op_map m, const char *use, bool build) {
  /* 64-bit values under MPI, global until the halo build: map->map is NULL */
  if (m->gvalues && m->values)
    return op2_error(OP2_ERR_ARG,
                     "%s: map '%s' holds 64-bit global indices until the mesh is distributed: its "
                     "map->map is NULL and cannot be given values",
                     use, m->name);
  if (m->gvalues || (!m->values && !m->sealed_values)) return OP2_OK;
  /* map->map pointed at an array of the program's: taken as it is (nothing built yet), as the
   * rows the map has now; the library frees it with the map, as OP2 frees map->map at op_exit */
  bool moved = m->values != m->sealed_values;
  if (!moved && m->sealed && values_hash(m) == m->seal) {
    m->built |= build;
    return OP2_OK;
  }
  if (m->built)
    return op2_error(
        OP2_ERR_STATE,
        "%s: %s map '%s' (map->map) %s after op2jit built plans, halos or copies from "
        "them; write a map's values before its first use (the first loop that names it, "
        "op_partition, op_renumber)",
        use, moved ? "the program pointed" : "the values of", m->name,
        moved ? "at another array" : "changed");
  if (!m->values && held_entries(m) != 0)
    return op2_error(OP2_ERR_ARG, "%s: map '%s': map->map is NULL", use, m->name);
  size_t n = held_entries(m);
  long bound = value_bound(m);
  for (size_t k = 0; k < n; k++)
    if (!(m->values[k] >= 0 && m->values[k] < bound))
      return op2_error(
          OP2_ERR_ARG,
          "%s: map '%s' (written by the program since its declaration): value %d at row "
          "%zu, column %zu is outside set '%s' (size %ld)",
          use, m->name, m->values[k], k / (size_t)m->dim, k % (size_t)m->dim, m->to->name, bound);
  op2_diag(2, "map '%s': values %s by the program since its declaration, taken at %s", m->name,
           moved ? "given in an array of its own" : "written", use);
  op2_map_seal(m);
  m->built |= build;
  return OP2_OK;
}

int op2_maps_check_all(op2_context *ctx, const char *use, bool build) {
  for (int i = 0; i < ctx->maps.count; i++) OP2_CALL(op2_map_check(ctx->maps.items[i], use, build));
  return OP2_OK;
}

int op2_loop_maps_check(int nargs, const op_arg *args, const char *use, bool unbuilt_only) {
  for (int i = 0; i < nargs; i++) {
    op_map m = args[i].map;
    if (args[i].kind == OP2_ARG_GBL || !m || (args[i].kind == OP2_ARG_DAT && !args[i].opt) ||
        (unbuilt_only && m->built))
      continue;
    bool seen = false; /* each map once, however many arguments go through it */
    for (int j = 0; j < i && !seen; j++) seen = args[j].map == m && args[j].kind != OP2_ARG_GBL;
    if (!seen) OP2_CALL(op2_map_check(m, use, true));
  }
  return OP2_OK;
}

void op2_maps_check_at_exit(op2_context *ctx) {
  if (ctx->mpi_lost) return; /* a distribution failed half way: the rows are neither (reported) */
  for (int i = 0; i < ctx->maps.count; i++) {
    op_map m = ctx->maps.items[i];
    if (m->built && m->sealed &&
        (m->values != m->sealed_values || (m->values && values_hash(m) != m->seal)))
      op2_diag(0,
               "warning: the values of map '%s' (map->map) changed after op2jit built plans, "
               "halos or copies from them: loops after the change may have run with those made "
               "for the old values (write a map's values before its first use)",
               m->name);
  }
}
