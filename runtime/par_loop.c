/* SPDX-License-Identifier: BSD-3-Clause */
/* op_par_loop: find (or build) the loop shape, bind this call's data and run it: in one range
 * without MPI; under MPI in phases around a halo exchange, with global reductions summed over
 * ranks and written dats marked dirty. op2_par_loop reads as its steps: find_loop, bind_data,
 * ready_code, run_call, record_call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/options.h"
#include "runtime/mpi_state.h"
#include "runtime/fault.h"
#include "runtime/mesh.h"
#include "runtime/renumber_auto.h"
#include "runtime/loop.h"
#include "runtime/tune.h"
#include "runtime/jit_use.h"
#include "runtime/backend.h"
#include "runtime/checkpoint.h"
#include "jit/jit.h"
#include "runtime/distributed.h"
#include "runtime/chain.h"

int op2_run_phase(op2_context *ctx, op2_exec *exec, int ph) {
  const op2_loop *loop = exec->loop;
  exec->begin = loop->phase_begin[ph];
  exec->end = loop->phase_end[ph];
  exec->plan = loop->plans[ph];
  if (exec->end <= exec->begin) return OP2_OK;
  ctx->fault.running = exec;
  int rc = ctx->backend->run(ctx, exec);
  ctx->fault.running = NULL;
  return rc;
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

/* Bytes of one private partial of a reduction, 8-byte aligned. */
static size_t partial_bytes(const op2_arg_desc *d) {
  return ((size_t)d->dim * op2_type_size(d->type) + 7) / 8 * 8;
}

int op2_loop_mpi_scratch(op2_loop *loop) {
  size_t total = ((size_t)loop->nargs * sizeof(op_dat) + 7) / 8 * 8; /* the dats first */
  loop->mpi_red_off = calloc((size_t)loop->nargs + 1, sizeof(size_t));
  if (!loop->mpi_red_off)
    return op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory", loop->name);
  for (int i = 0; i < loop->nargs; i++) {
    loop->mpi_red_off[i] = total;
    if (op2_is_reduction(&loop->desc[i])) total += 3 * partial_bytes(&loop->desc[i]);
  }
  loop->mpi_scratch = malloc(total + 1);
  if (!loop->mpi_scratch)
    return op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory", loop->name);
  return OP2_OK;
}

/* Reduction `ref` and the op_arg_info arguments that travel with it, over ranks. */
static int reduce_with_info(op2_context *ctx, const op2_loop *loop, const op_arg *args, int ref) {
  void **ptrs = malloc(2 * sizeof *ptrs * (size_t)loop->nargs);
  for (int j = 0; ptrs && j < loop->nargs; j++) {
    ptrs[j] = args[j].data;
    ptrs[loop->nargs + j] = loop->mpi_scratch + loop->mpi_red_off[j];
  }
  /* (out of memory: NULL, which op2_mpi_reduce_info reports in its agreement) */
  int rc = op2_mpi_reduce_info(ctx, loop->desc, loop->nargs, ref, ptrs,
                               ptrs ? ptrs + loop->nargs : NULL);
  free(ptrs);
  return rc;
}

static int run_distributed(op2_context *ctx, op2_exec *exec, const op_arg *args) {
  const op2_loop *loop = exec->loop;
  int nargs = loop->nargs;
  op_dat *dats = (op_dat *)loop->mpi_scratch;
  for (int i = 0; i < nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (!op2_is_reduction(d)) continue;
    char *own = loop->mpi_scratch + loop->mpi_red_off[i], *halo = own + partial_bytes(d);
    op2_reduction_start(d, own, exec->arg_ptrs[i]);
    op2_reduction_start(d, halo, exec->arg_ptrs[i]);
    exec->arg_ptrs[i] = own;
  }
  int ndats = dats_to_exchange(loop, args, dats);
  /* An accelerator queues the phases and returns: the core elements compute while this rank
   * waits for its halo messages, and one wait at the end covers all phases. */
  exec->async = ctx->backend->complete != NULL;
  int rc = op2_exchange_begin(ctx, loop->name, dats, ndats, &loop->stats->halo_bytes,
                              &loop->stats->halo_messages);
  if (rc == OP2_OK) rc = op2_run_phase(ctx, exec, 0); /* core: needs no halo data */
  int rc_end = op2_exchange_end(ctx, loop->name, dats, ndats);
  if (rc == OP2_OK) rc = rc_end;
  if (rc == OP2_OK) rc = op2_run_phase(ctx, exec, 1);
  if (rc == OP2_OK && loop->nphases > 2) {
    for (int i = 0; i < nargs; i++)
      if (op2_is_reduction(&loop->desc[i]))
        exec->arg_ptrs[i] =
            loop->mpi_scratch + loop->mpi_red_off[i] + partial_bytes(&loop->desc[i]);
    rc =
        op2_run_phase(ctx, exec, 2); /* redundant work on the exec halo: contributes no reduction */
  }
  if (exec->async) { /* always: nothing queued may outlive this call's buffers */
    int rc_wait = ctx->backend->complete(ctx);
    if (rc == OP2_OK) rc = rc_wait;
  }
  for (int i = 0; i < nargs; i++) { /* written dats: their halo copies are stale now */
    const op2_arg_desc *d = &loop->desc[i];
    if (d->kind == OP2_ARG_DAT && !d->opt_off && d->acc != OP_READ) args[i].dat->halo_dirty = true;
  }
  /* The call's step ends here, before the reductions' collectives: every rank has sent its
   * messages whatever happened, and now learns whether every rank succeeded. */
  rc = op2_mpi_step_end(ctx, rc);
  for (int i = 0; rc == OP2_OK && i < nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    char *own = loop->mpi_scratch + loop->mpi_red_off[i];
    if (!op2_is_reduction(d) || (int)d->acc == OP2_ACC_INFO) continue; /* infos: with their ref */
    if (op2_has_info(loop->desc, nargs, i))
      rc = reduce_with_info(ctx, loop, args, i);
    else
      rc = op2_mpi_reduce_arg(ctx, d, args[i].data, own, own + 2 * partial_bytes(d));
  }
  return rc;
}

/* The backend's own kernel for the loop, at its first call (after the ranks agreed on the loop:
 * the build may be collective). Under MPI every rank learns whether every rank has it. */
static int prepare(op2_context *ctx, op2_loop *loop) {
  double t0 = op2_wall_seconds();
  int rc = ctx->backend->prepare ? ctx->backend->prepare(ctx, loop) : OP2_OK;
  if (ctx->mpi.size > 1) rc = op2_mpi_agree(ctx, rc, "op_par_loop");
  if (rc != OP2_OK) return rc;
  loop->prepared = true;
  loop->stats->jit_ms += 1e3 * (op2_wall_seconds() - t0);
  return OP2_OK;
}

/* A call's own pointers to its data and maps, bound to its loop. */
typedef struct call_data {
  void **ptrs;
  const int **maps;
  void *small_ptrs[32];
  const int *small_maps[32];
} call_data;

/* Under MPI the call's step, named once per loop (the loop's own name) or, for a call site not
 * seen before, here. */
static void begin_step(op2_context *ctx, const op2_loop *loop, const char *name) {
  if (loop) {
    op2_mpi_step_named(ctx, loop->step);
    return;
  }
  op2_mpi_step_name step;
  op2_mpi_step_name_make(&step, "op_par_loop", name);
  op2_mpi_step_named(ctx, &step);
}

/* A call site not seen before: once the mesh is distributed (MPI) or renumbered (OP2_RENUMBER),
 * the loop is looked up by its text (or built) and remembered for the site: a queued call's
 * under the program's pointers, not those of the chain's copy, so that the site's next call
 * finds it when it is queued. */
static int search_loop(op2_context *ctx, const op2_loop_call *call, op2_loop **loop) {
  if (ctx->mpi.size > 1 && !ctx->mpi_distributed)
    OP2_CALL(op2_mpi_distribute(ctx, NULL, NULL, NULL));
  OP2_CALL(op2_renumber_once(ctx));
  OP2_CALL(op2_loop_lookup(ctx, call, loop));
  op2_loop_call site = *call;
  const op2_call_origin *origin = call->origin;
  if (origin)
    site.kernel = origin->kernel, site.kernel_kept = origin->kernel_kept, site.name = origin->name;
  op2_loop_site_remember(ctx, &site, *loop);
  return OP2_OK;
}

/* The loop a queued call carries, while it is still the one its site would lead to: no loop
 * freed since it was queued (the sites' epoch) and the same constants (a new value runs the
 * chain first, so this holds but for a call an error handler makes). */
static op2_loop *carried_loop(const op2_context *ctx, const op2_call_origin *origin) {
  op2_loop *l = origin ? origin->loop : NULL;
  return l && origin->epoch == ctx->loop_sites.epoch && l->const_generation == ctx->const_generation
             ? l
             : NULL;
}

/* The call's loop: a call site seen before finds it without reading the kernel text, and a
 * queued call without even looking (the loop it carries). */
static int find_loop(op2_context *ctx, const op2_loop_call *call, op2_loop **loop) {
  int mpi = ctx->mpi.size > 1;
  if (mpi && !ctx->mpi_distributed)
    *loop = NULL;
  else if (!(*loop = carried_loop(ctx, call->origin)))
    *loop = op2_loop_site_find(ctx, call);
  if (mpi) begin_step(ctx, *loop, call->name);
  return *loop ? OP2_OK : search_loop(ctx, call, loop);
}

/* This call's data for the kernel: an idx argument gets the original-index table of the set it
 * indexes (NULL: identity). */
static int bind_data(call_data *cd, const op2_loop *loop, const op2_loop_call *call) {
  int nargs = loop->nargs;
  op_set set = call->set;
  const op_arg *args = call->args;
  cd->ptrs = nargs <= 32 ? cd->small_ptrs : malloc((size_t)nargs * sizeof *cd->ptrs);
  cd->maps = nargs <= 32 ? cd->small_maps : malloc((size_t)nargs * sizeof *cd->maps);
  if (!cd->ptrs || !cd->maps)
    return op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory", loop->name);
  for (int i = 0; i < nargs; i++) {
    const op_arg *a = &args[i];
    const op2_arg_desc *d = &loop->desc[i];
    cd->ptrs[i] = d->kind == OP2_ARG_GBL                  ? a->data
                  : d->kind == OP2_ARG_DAT && !d->opt_off ? (void *)a->dat->data
                                                          : NULL;
    if (d->kind == OP2_ARG_IDX) {
      int failed;
      cd->ptrs[i] = (void *)op2_set_idx_table(d->map_arity ? a->map->to : set, loop->name, &failed);
      if (failed) return OP2_ERR_ARG;
    }
    cd->maps[i] = d->map_arity ? a->map->values : NULL;
  }
  return OP2_OK;
}

static void release_data(call_data *cd) {
  if (cd->ptrs && cd->ptrs != cd->small_ptrs) free(cd->ptrs);
  if (cd->maps && cd->maps != cd->small_maps) free(cd->maps);
}

/* The code to run, ready: a finished optimised build swapped in (between calls only), live
 * constants bound, the ranks agreed on the loop (MPI: also after a failure, which every rank
 * learns there), the backend's own kernel prepared, tuning trials set up. */
static int ready_code(op2_context *ctx, op2_loop *loop, const op2_loop_call *call, int rc) {
  int mpi = ctx->mpi.size > 1;
  op2_kernel *k = rc == OP2_OK ? loop->kernel : NULL; /* NULL: the backend generates its code */
  if (mpi && rc == OP2_OK) rc = op2_mpi_node_progress(ctx);
  if (!mpi && k && op2_kernel_queued(k)) op2_jit_poll_kernel(ctx, k);
  /* Live constants: the code now in use reads them through pointers set once per code object. */
  if (rc == OP2_OK && k && !op2_kernel_constants_bound(k))
    op2_jit_bind_constants(k, (op2_const *const *)ctx->consts.items, ctx->consts.count);
  if (mpi) rc = op2_mpi_agree_loop(ctx, rc, loop, call->name);
  if (rc == OP2_OK && !loop->prepared) rc = prepare(ctx, loop);
  if (rc == OP2_OK && ctx->opt.tune != OP2_TUNE_OFF && !loop->tune_done)
    rc = op2_tune_before(ctx, loop, call->kernel, k);
  return rc;
}

/* Runs the call: in one range, or under MPI in phases around the halo exchange, ending the step
 * (a failure before this point ends it here, so every rank learns of it). */
static int run_call(op2_context *ctx, op2_exec *exec, const op_arg *args, int rc) {
  int mpi = ctx->mpi.size > 1;
  if (rc == OP2_OK) return mpi ? run_distributed(ctx, exec, args) : op2_run_phase(ctx, exec, 0);
  if (mpi) op2_mpi_step_end(ctx, rc);
  return rc;
}

/* A call that ran: the loop's statistics, the checkpoint's log, tuning's measurement. */
static void record_call(op2_context *ctx, op2_loop *loop, double seconds,
                        const op2_loop_call *call) {
  op2_loop_stats *st = loop->stats;
  st->calls++;
  if (loop->kernel) {
    st->calls_by_tier[op2_kernel_tier(loop->kernel)]++;
    op2_kernel_ran(loop->kernel, seconds); /* weighs for its queued optimised build */
  }
  st->seconds += seconds;
  st->bytes += loop->bytes_per_call;
  op2_checkpoint_after_loop(ctx, call);
  if (loop->tune) (void)op2_tune_after(ctx, loop, seconds); /* a failure is reported there */
}

void op2_par_loop_record(op2_context *ctx, op2_loop *loop, double seconds,
                         const op2_loop_call *call) {
  record_call(ctx, loop, seconds, call);
}

/* Under MPI a call is one collective step: every rank checks the call and agrees that every
 * rank has the same loop before any message moves (op2_mpi_agree_loop), and every rank learns
 * at the end whether every rank succeeded (run_distributed), so a failure on one rank is an
 * error on every rank, never a wait. */
void op2_par_loop(op2_context *ctx, const op2_loop_call *call) {
  /* the renumbering before the first call is queued, so that the first chain runs on the mesh
   * the later ones see (a restart renumbers after the calls it replays, in find_loop) */
  if (!ctx->opt.restart[0] && op2_renumber_once(ctx) != OP2_OK) return;
  /* OP2_LAZY: queued (runtime/chain.c), run later through this function (a replay: its
   * origin); before the checkpoint hook, which counts the call when it runs */
  if (!call->origin && op2_chain_defer(ctx, call)) return;
  int replayed; /* restarting: the call is before the checkpoint and its results are logged */
  if (op2_checkpoint_before_loop(ctx, call, &replayed) != OP2_OK || replayed) return;
  op2_loop *loop;
  call_data data = {0};
  int rc = find_loop(ctx, call, &loop);
  if (rc == OP2_OK) rc = bind_data(&data, loop, call);
  rc = ready_code(ctx, loop, call, rc);
  op2_exec exec = {.loop = loop, .arg_ptrs = data.ptrs, .map_ptrs = data.maps};
  /* under MPI the chain keeps the call, bound and ready, and runs it with its exchanges planned
   * for the chain as a whole (chain_mpi.c) */
  if (rc == OP2_OK && op2_chain_capture(ctx, &exec)) {
    release_data(&data);
    return;
  }
  double t0 = op2_wall_seconds();
  rc = run_call(ctx, &exec, call->args, rc);
  if (rc == OP2_OK) {
    double seconds = op2_wall_seconds() - t0;
    record_call(ctx, loop, seconds, call);
    /* the start-up report's "first calls": the run alone (its plan included); the lookup, the
     * compile and any distribution the call triggered are phases of their own */
    if (loop->stats->calls == 1) loop->stats->first_call_seconds = seconds;
  }
  release_data(&data);
}

void op_par_loop_args(const char *kernel, const char *name, op_set set, int nargs,
                      const op_arg *args) {
  op2_context *ctx = op2_ctx();
  if (!ctx->initialised)
    (void)op2_require_init("op_par_loop");
  else
    op2_par_loop(ctx, &(op2_loop_call){.kernel = kernel,
                                       .name = name,
                                       .set = set,
                                       .nargs = nargs,
                                       .args = args,
                                       .site = __builtin_return_address(0)});
}
