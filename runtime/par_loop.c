/* op_par_loop: find (or build) the loop shape, bind this call's data and run it: in one range
 * without MPI; under MPI in phases around a halo exchange, with global reductions summed over
 * ranks and written dats marked dirty. */
#include <stdlib.h>
#include <string.h>

#include "op2_impl.h"
#include "../jit/jit.h"
#include "mpi/op2_mpi.h"

/* Bytes one private copy of a reduction takes, 8-byte aligned. */
static size_t reduction_step(const op2_arg_desc *d) {
  return ((size_t)d->dim * op2_type_size(d->type) + 7) / 8 * 8;
}

static int is_reduction(const op2_arg_desc *d) {
  return d->kind == OP2_ARG_GBL && (d->acc == OP_INC || d->acc == OP_MIN || d->acc == OP_MAX);
}

static int run_phase(op2_context *ctx, op2_exec *exec, int ph) {
  const op2_loop *loop = exec->loop;
  exec->begin = loop->phase_begin[ph];
  exec->end = loop->phase_end[ph];
  exec->plan = loop->plans[ph];
  if (exec->end <= exec->begin) return OP2_OK;
  return ctx->backend->run(ctx, exec);
}

/* Dats this call must refresh first: read through a map, or read at all when the exec halo runs,
 * and written since their last exchange. */
static int dats_to_exchange(const op2_loop *loop, const op_arg *args, op_dat *out) {
  int n = 0;
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (d->kind != OP2_ARG_DAT || d->opt_off || !(d->acc == OP_READ || d->acc == OP_RW)) continue;
    if (!d->map_arity && !loop->writes_indirectly) continue;
    op_dat dat = args[i].dat;
    if (!dat->halo_dirty) continue;
    int seen = 0;
    for (int k = 0; k < n; k++) seen |= out[k] == dat;
    if (!seen) out[n++] = dat;
  }
  return n;
}

#define COMBINE(T, MPITYPE)                                                 \
  do {                                                                      \
    T *user = (T *)user_ptr, *mine = (T *)local, *all = (T *)global;        \
    MPI_Allreduce(mine, all, d->dim, MPITYPE,                               \
                  d->acc == OP_INC   ? MPI_SUM                              \
                  : d->acc == OP_MIN ? MPI_MIN                              \
                                     : MPI_MAX,                             \
                  ctx->mpi.comm);                                           \
    for (int k = 0; k < d->dim; k++)                                        \
      user[k] = d->acc == OP_INC   ? user[k] + all[k]                       \
                : d->acc == OP_MIN ? (all[k] < user[k] ? all[k] : user[k])  \
                                   : (all[k] > user[k] ? all[k] : user[k]); \
  } while (0)

/* Under MPI a reduction accumulates into a private buffer (INC from zero, MIN/MAX from the
 * caller's value), which is then reduced over ranks (into `global`, as large) and folded into
 * the caller's data. */
static void reduce_over_ranks(op2_context *ctx, const op2_arg_desc *d, void *user_ptr, void *local,
                              void *global) {
  switch (d->type) {
    case OP2_TYPE_DOUBLE:
      COMBINE(double, MPI_DOUBLE);
      break;
    case OP2_TYPE_FLOAT:
      COMBINE(float, MPI_FLOAT);
      break;
    case OP2_TYPE_INT:
      COMBINE(int, MPI_INT);
      break;
    default:
      COMBINE(long long, MPI_LONG_LONG);
      break;
  }
}

static int run_distributed(op2_context *ctx, op2_exec *exec, const op_arg *args) {
  const op2_loop *loop = exec->loop;
  int nargs = loop->nargs;
  /* Per reduction argument, three private buffers of its size (8-byte aligned): the owned
   * phases' result, the exec halo's (thrown away), and the sum over ranks. */
  size_t *off = malloc(sizeof(size_t) * (size_t)nargs + 1), total = 0;
  for (int i = 0; off && i < nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    off[i] = total;
    if (is_reduction(d)) total += 3 * reduction_step(d);
  }
  char *buf = malloc(total + 1);
  op_dat *dats = malloc(sizeof(op_dat) * (size_t)nargs + 1);
  if (!off || !buf || !dats)
    return free(off), free(buf), free(dats),
           op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory", loop->name);
  for (int i = 0; i < nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (!is_reduction(d)) continue;
    size_t bytes = (size_t)d->dim * op2_type_size(d->type), step = reduction_step(d);
    for (int k = 0; k < 2; k++) {
      if (d->acc == OP_INC)
        memset(buf + off[i] + k * step, 0, bytes);
      else
        memcpy(buf + off[i] + k * step, exec->arg_ptrs[i], bytes);
    }
    exec->arg_ptrs[i] = buf + off[i];
  }
  int ndats = dats_to_exchange(loop, args, dats);
  op2_exchange *x = NULL;
  /* An accelerator queues the phases and returns: the core elements compute while this rank
   * waits for its halo messages, and one wait at the end covers all phases. */
  exec->async = ctx->backend->complete != NULL;
  int rc = op2_exchange_begin(ctx, loop->name, dats, ndats, &x, &loop->stats->halo_bytes,
                              &loop->stats->halo_messages);
  if (rc == OP2_OK) rc = run_phase(ctx, exec, 0); /* core: needs no halo data */
  int rc_end = op2_exchange_end(ctx, x);
  if (rc == OP2_OK) rc = rc_end;
  if (rc == OP2_OK) rc = run_phase(ctx, exec, 1);
  if (rc == OP2_OK && loop->nphases > 2) {
    for (int i = 0; i < nargs; i++) {
      const op2_arg_desc *d = &loop->desc[i];
      if (is_reduction(d)) exec->arg_ptrs[i] = buf + off[i] + reduction_step(d);
    }
    rc = run_phase(ctx, exec, 2); /* redundant work on the exec halo: contributes no reduction */
  }
  if (exec->async) { /* always: nothing queued may outlive this call's buffers */
    int rc_wait = ctx->backend->complete(ctx);
    if (rc == OP2_OK) rc = rc_wait;
  }
  for (int i = 0; rc == OP2_OK && i < nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (is_reduction(d))
      reduce_over_ranks(ctx, d, args[i].data, buf + off[i], buf + off[i] + 2 * reduction_step(d));
  }
  for (int i = 0; i < nargs; i++) { /* written dats: their halo copies are stale now */
    const op2_arg_desc *d = &loop->desc[i];
    if (d->kind == OP2_ARG_DAT && !d->opt_off && d->acc != OP_READ) args[i].dat->halo_dirty = true;
  }
  free(off), free(buf), free(dats);
  return rc;
}

void op_par_loop_args(const char *kernel, const char *name, op_set set, int nargs,
                      const op_arg *args) {
  op2_context *ctx = op2_ctx();
  if (op2_require_init("op_par_loop") != OP2_OK) return;
  if (ctx->mpi.size > 1 && !ctx->mpi_distributed &&
      op2_mpi_distribute(ctx, NULL, NULL, NULL) != OP2_OK)
    return;
  if (ctx->opt.renumber && !ctx->renumbered && ctx->mpi.size == 1) {
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
  op2_kernel *k = loop->kernel; /* NULL when the backend generates its own code */
  if (k && (k->job || k->awaiting_peer)) op2_jit_poll(ctx, k); /* between calls only */
  op2_exec exec = {.loop = loop, .arg_ptrs = ptrs, .map_ptrs = maps};
  double t0 = op2_wall_seconds();
  int rc = ctx->mpi.size > 1 ? run_distributed(ctx, &exec, args) : run_phase(ctx, &exec, 0);
  if (rc == OP2_OK) {
    loop->stats->calls++;
    if (k) loop->stats->calls_by_tier[k->tier]++;
    loop->stats->seconds += op2_wall_seconds() - t0;
    loop->stats->bytes += loop->bytes_per_call;
  }
  if (ptrs != small_ptrs) free(ptrs);
  if (maps != small_maps) free(maps);
}
