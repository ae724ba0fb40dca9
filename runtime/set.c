/* SPDX-License-Identifier: BSD-3-Clause */
/* Sets: named element counts. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/alloc.h"
#include "runtime/mpi_state.h"
#include "runtime/mesh.h"
#include "runtime/distributed.h"
#include "runtime/chain.h"

static op_set declare_set(int size, const char *name) {
  op2_context *ctx = op2_ctx();
  if (op2_require_init("op_decl_set") != OP2_OK) return NULL;
  const char *label = name ? name : "(unnamed)";
  if (size < 0) {
    op2_error(OP2_ERR_ARG, "op_decl_set '%s': size %d is negative", label, size);
    return NULL;
  }
  op_set set = calloc(1, sizeof *set);
  if (!set || !(set->name = strdup(label))) {
    free(set);
    op2_error(OP2_ERR_MEM, "op_decl_set '%s': out of memory", label);
    return NULL;
  }
  set->size = set->core_size = set->decl_count = size;
  set->global_size = size;
  if (ctx->mpi.size > 1 && ctx->mpi_prepared && ctx->mpi_replicated) {
    /* the whole mesh on every rank, and the blocks already settled: keep this rank's block */
    long first = op2_block_begin(size, ctx->mpi.rank, ctx->mpi.size);
    set->decl_first = op2_gid_base(ctx) + first;
    set->size = set->core_size = set->decl_count =
        (int)(op2_block_begin(size, ctx->mpi.rank + 1, ctx->mpi.size) - first);
  } else if (ctx->mpi.size > 1) { /* collective, as in OP2: each rank declares its block */
    long local = size;
    /* the ranks agree first: one whose declaration failed never reaches the raw collective */
    if (op2_mpi_agree(ctx, OP2_OK, "op_decl_set") != OP2_OK ||
        op2_mpi_block_of(ctx, local, &set->global_size, &set->decl_first) != OP2_OK) {
      free(set->name);
      free(set);
      return NULL;
    }
    set->decl_first += op2_gid_base(ctx); /* global ids: from the base (0 but in tests) */
  }
  set->index = ctx->sets.count;
  if (op2_list_push(&ctx->sets, set) != OP2_OK) {
    free(set->name);
    free(set);
    return NULL;
  }
  return set;
}

int op_get_size(op_set set) {
  if (!set) {
    op2_error(OP2_ERR_ARG, "op_get_size: set is NULL");
    return 0;
  }
  op2_context *ctx = op2_ctx();
  /* Collective under MPI until the declaration mode is settled, as OP2's op_get_size is. */
  if (ctx->mpi.size > 1 && op2_mpi_prepare(ctx) != OP2_OK) return 0;
  if (set->global_size > INT_MAX) {
    op2_error(OP2_ERR_ARG, "op_get_size: set '%s' has %ld elements, more than its int holds",
              set->name, set->global_size);
    return 0;
  }
  return (int)set->global_size;
}

/* Collective under MPI: a rank whose declaration failed makes it fail on every rank (the others
 * drop the set they made), so the ranks' lists of sets stay alike. */
op_set op_decl_set(int size, const char *name) {
  op2_context *ctx = op2_ctx();
  if (op2_require_init("op_decl_set") != OP2_OK) return NULL;
  op2_chain_flush(ctx, "op_decl_set"); /* lazy execution: queued loops first */
  op2_mpi_decl_begin(ctx, "op_decl_set", name);
  op_set set = declare_set(size, name);
  if (op2_mpi_decl_end(ctx, set ? OP2_OK : OP2_ERR_ARG) != OP2_OK && set) {
    ctx->sets.count--;
    free(set->name), free(set);
    set = NULL;
  }
  return set;
}

const int *op2_set_idx_table(op_set set, const char *loop, int *failed) {
  *failed = 0;
  if (!set->orig || set->orig_int) return set->orig_int;
  size_t n = op2_set_local_count(set);
  int *table = malloc(sizeof(int) * (n + 1));
  if (!table) {
    *failed = 1;
    op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory for set '%s''s indices", loop,
              set->name);
    return NULL;
  }
  idx_g_t base = op2_gid_base(op2_ctx()); /* the kernel sees the user's index */
  for (size_t e = 0; e < n; e++) {
    if (set->orig[e] - base < 0 || set->orig[e] - base > INT_MAX) {
      *failed = 1;
      free(table);
      op2_error(OP2_ERR_ARG,
                "op_par_loop '%s': op_arg_idx on set '%s': global index %lld does not fit the "
                "kernel's int",
                loop, set->name, (long long)(set->orig[e] - base));
      return NULL;
    }
    table[e] = (int)(set->orig[e] - base);
  }
  return set->orig_int = table;
}
