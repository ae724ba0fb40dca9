/* op_par_loop: find (or build) the loop shape, bind this call's data and let the backend run it. */
#include <stdlib.h>

#include "op2_impl.h"
#include "../jit/jit.h"

void op_par_loop_args(const char *kernel, const char *name, op_set set, int nargs,
                      const op_arg *args) {
  op2_context *ctx = op2_ctx();
  if (op2_require_init("op_par_loop") != OP2_OK) return;
  if (ctx->opt.renumber && !ctx->renumbered) {
    op_map base = op2_renumber_pick_base(ctx);
    ctx->renumbered = true; /* once, even when no map qualifies */
    if (base && op2_renumber(ctx, base) != OP2_OK) return;
  }
  op2_loop *loop;
  if (op2_loop_lookup(ctx, kernel, name, set, nargs, args, &loop) != OP2_OK) return;

  void *small_ptrs[32];
  const int *small_maps[32];
  void **ptrs = nargs <= 32 ? small_ptrs : malloc((size_t)nargs * sizeof *ptrs);
  const int **maps = nargs <= 32 ? small_maps : malloc((size_t)nargs * sizeof *maps);
  if (!ptrs || !maps) {
    if (ptrs != small_ptrs) free(ptrs);
    op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory", name);
    return;
  }
  for (int i = 0; i < nargs; i++) {
    const op_arg *a = &args[i];
    const op2_arg_desc *d = &loop->desc[i];
    /* An idx argument gets the original-index table of the set it indexes (NULL: identity). */
    ptrs[i] = d->kind == OP2_ARG_GBL                  ? a->data
              : d->kind == OP2_ARG_DAT && !d->opt_off ? (void *)a->dat->data
              : d->kind == OP2_ARG_IDX ? (void *)(d->map_arity ? a->map->to->orig : set->orig)
                                       : NULL;
    maps[i] = d->map_arity ? a->map->values : NULL;
  }
  op2_kernel *k = loop->kernel;
  if (k->job) op2_jit_poll(ctx, k); /* between calls: the only moment a kernel may change */
  op2_exec exec = {.loop = loop, .arg_ptrs = ptrs, .map_ptrs = maps};
  double t0 = op2_wall_seconds();
  int rc = set->size > 0 ? ctx->backend->run(ctx, &exec) : OP2_OK;
  if (rc == OP2_OK) {
    loop->stats->calls++;
    loop->stats->calls_by_tier[k->tier]++;
    loop->stats->seconds += op2_wall_seconds() - t0;
    loop->stats->bytes += loop->bytes_per_call;
  }
  if (ptrs != small_ptrs) free(ptrs);
  if (maps != small_maps) free(maps);
}
