/* SPDX-License-Identifier: BSD-3-Clause */
/* The backend API: what a backend (seq, openmp, cuda, cuda-emu) implements -- an op2_backend
 * table whose run gets an op2_exec -- and what it may call: plans as it sees them, the host copy
 * of a dat made current (op2_dat_sync_host), reductions, halo hooks. The list of backends is
 * runtime/backends.c. */
#ifndef OP2_BACKEND_H
#define OP2_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include "op2.h"
#include "base/base.h"
#include "jit/jit.h"
#include "runtime/context.h"
#include "runtime/loop.h"
#include "runtime/mesh.h"
#include "runtime/plan.h"

/* ---- backends ---- */
typedef struct op2_exec {
  const op2_loop *loop;
  int begin, end;       /* the element range of this run */
  const op2_plan *plan; /* its plan, or NULL (direct loop) */
  void **arg_ptrs;      /* per argument: dat base, gbl data, NULL */
  const int **map_ptrs; /* per argument: map values or NULL */
  bool async;           /* the run may return before its work is done (backend->complete) */
} op2_exec;

typedef struct op2_backend {
  const char *name;
  const char *description; /* one line: what runs where (OP2_DIAGS=1 at op_init) */
  /* The jit/ target its loops' kernels are generated and compiled for (the cache entry's
   * target in manifests): the backend says it, the core assumes none. */
  op2_target_id target;
  /* What the core may do with its loops (the core asks this, never the backend's name): true
   * when they run the core's C kernel (op2_loop_kernel, built for `target`) on host memory,
   * each run finished when it returns and holding nothing of a loop, so chains may fuse them and
   * a superseded loop's kernel may be freed. false: the backend builds its own kernels
   * (prepare) and may keep a loop in flight. */
  bool host_kernels;
  /* The backend's own options (OP2_CUDA_*, ...), parsed and checked at op_init with the core's
   * whatever the backend (options.c), their values in a block of the backend's type; NULL: none.
   * Backends may share one table (cuda, cuda-emu): it is read once. */
  const op2_option_table *options;
  int (*init)(op2_context *ctx);
  int (*run)(op2_context *ctx, const op2_exec *exec);
  void (*finalize)(op2_context *ctx);
  /* Threads a run uses: plans' thread-owned layouts, per-thread reduction partials, tuning
   * records and profiles follow it. NULL: one. */
  int (*threads)(const op2_context *ctx);
  /* The calling thread is about to do long serial work (a new loop's kernel and plans): idle
   * worker threads that would spin beside it, taking a core it needs, are released. NULL: no
   * worker threads. */
  void (*before_serial_work)(op2_context *ctx);
  /* Accelerators: make the host copy of a dat current before the host reads it (fetch, print,
   * dump, halo exchange). NULL for CPU backends. */
  int (*sync_host)(op2_context *ctx, op_dat dat);
  /* op_free_dat_temp: releases what the backend holds of `dat` (its device copy), once no work
   * queued on the device can still read or write it; an error leaves the dat as it was. NULL:
   * the backend holds nothing of a dat. */
  int (*free_dat)(op2_context *ctx, op_dat dat);
  /* A loop shape about to be freed (a dat it uses was: loop.c's op2_loops_forget_dat): drops
   * what the backend keeps for it (plans, buffers, per-run state found by the loop's address,
   * which a later loop may reuse). NULL: the backend keeps nothing of a loop. */
  void (*forget_loop)(op2_context *ctx, const op2_loop *loop);
  /* Backends with their own code generator: builds the kernel of a new loop shape. Called once
   * per shape on every rank, together under MPI, before anything runs. NULL for CPU backends. */
  int (*prepare)(op2_context *ctx, op2_loop *loop);
  /* Accelerators under MPI; NULL for CPU backends, whose runs finish before they return and
   * whose dats live in host memory. */
  int (*complete)(op2_context *ctx); /* waits for async runs and finishes their reductions */
  /* Packs rows[0..n) of the device copy of `dat` into host memory `out` (a gather on the
   * device, then one copy), for sending to neighbours. `loop` names the loop in messages. */
  int (*halo_pack)(op2_context *ctx, const char *loop, op_dat dat, const int *rows, int n,
                   void *out);
  /* Copies the import halo rows of the host copy of `dat`, just received, to its device copy. */
  int (*halo_unpack)(op2_context *ctx, const char *loop, op_dat dat);
  /* Host memory the device copies to and from directly (page-locked: no staging copy by the
   * driver), for halo messages, which exchange.c keeps per dat until op_exit. `loop` names the
   * loop in messages. NULL for CPU backends: malloc and free. */
  int (*host_alloc)(op2_context *ctx, const char *loop, size_t bytes, void **out);
  void (*host_free)(op2_context *ctx, void *p);
  /* OP2_TUNE (tune.c), for a loop tune.c found tunable (not under MPI, large enough, no write
   * through a map): writes its candidates other than the default (the zero set) into out[0..max)
   * and returns how many; NULL or 0: nothing of this backend applies. */
  int (*tune_candidates)(const op2_context *ctx, const op2_loop *loop, op2_tune_params *out,
                         int max);
  /* Puts loop->params, just set to a candidate, in use (the plan it names). NULL: nothing to do
   * beyond loop->params, which the backend reads at run time. */
  int (*tune_apply)(op2_context *ctx, op2_loop *loop);
  /* The loop's parameters in use, in words, for records and profiles. NULL: "default". */
  void (*tune_describe)(const op2_context *ctx, const op2_loop *loop, char *out, size_t len);
} op2_backend;

const op2_backend *op2_backend_find(const char *name);
/* The backends built in, in the list's order: i in [0, op2_backend_count()). */
int op2_backend_count(void);
const op2_backend *op2_backend_at(int i);
/* Their names, "seq, openmp, ...", into out (truncated to len). */
void op2_backend_names(char *out, size_t len);

static inline int op2_backend_threads(const op2_context *ctx) {
  return ctx->backend && ctx->backend->threads ? ctx->backend->threads(ctx) : 1;
}

/* Called before the host reads a dat's data (checkpoint.c: refused while a restart has not
 * restored it yet). */
int op2_checkpoint_before_read(op2_context *ctx, op_dat dat);
static inline int op2_dat_sync_host(op2_context *ctx, op_dat dat) {
  if (ctx->checkpoint) OP2_CALL(op2_checkpoint_before_read(ctx, dat));
  return ctx->backend && ctx->backend->sync_host && dat->device_newer
             ? ctx->backend->sync_host(ctx, dat)
             : 0;
}

/* Global reductions (reduction.c). A partial starts from zero (INC) or the caller's value
 * (MIN, MAX, op_arg_info); folding adds it, or keeps the smaller or larger value. op2_is_reduction:
 * base/base.h. op2_reduction_fold folds one argument that no op_arg_info travels with (an info
 * argument alone is left as it is); op2_reduction_fold_part folds one part's partials of every
 * reduction (part[i], NULL where the part has none) into out[i], each info argument taking the
 * part's value, component by component, where the part's partial of its reduction is strictly
 * better than out's (a tie keeps the earlier part's, as OP2's threads and CUDA blocks do). */
void op2_reduction_start(const op2_arg_desc *d, void *partial, const void *caller);
void op2_reduction_fold(const op2_arg_desc *d, void *out, const void *partial);
void op2_reduction_fold_part(const op2_arg_desc *desc, int nargs, void *const *out,
                             void *const *part);
/* Per-thread partial buffers set up before and combined after a run. */
int op2_reduction_begin(op2_context *ctx, const op2_exec *exec, int nthreads,
                        void ***thread_arg_ptrs);
void op2_reduction_end(op2_context *ctx, const op2_exec *exec, int nthreads,
                       void **thread_arg_ptrs);

#endif /* OP2_BACKEND_H */
