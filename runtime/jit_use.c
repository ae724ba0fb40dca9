/* SPDX-License-Identifier: BSD-3-Clause */
/* The runtime's side of jit/: the engine is made from the user's options at op_init, a loop is
 * described to jit/ in its own terms, and what jit/ answers is turned into the runtime's state
 * here: kernels join the context's table, loop statistics and the context's counters are
 * updated, and a failure jit/ recorded is reported once, with op2_error_at at the file and line
 * where jit/ found it. */
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/alloc.h"
#include "runtime/options.h"
#include "runtime/loop.h"
#include "runtime/jit_use.h"
#include "runtime/backend.h"
#include "runtime/compiled_kernel.h"

static void diag_sink(int level, const char *msg) {
  op2_diag(level, "%s", msg);
}

/* The background tier's workers: one per core this process may use that its loops leave spare
 * (its cores, shared with the other ranks that may run on them, less the backend's threads), at
 * least one, so the optimised builds finish early in a cold run without taking the loops' cores. */
static int build_workers(const op2_context *ctx) {
  cpu_set_t set;
  int cores = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
  int sharers = ctx->mpi.core_sharers > 1 ? ctx->mpi.core_sharers : 1;
  int spare = cores / sharers - op2_backend_threads(ctx);
  return spare < 1 ? 1 : spare > 32 ? 32 : spare;
}

int op2_jit_init(op2_context *ctx) {
  const op2_options *o = &ctx->opt;
  op2_jit_config cfg = {.mode = o->jit_mode,
                        .simd = o->simd,
                        .simd_width = o->simd_width,
                        .cache_mode = o->cache_mode,
                        .diags = o->diags,
                        .compiler_given = o->compiler_given,

                        .compile_timeout = o->compile_timeout,
                        .loader = o->loader,
                        .build_workers = build_workers(ctx),
                        .diag = diag_sink};
  snprintf(cfg.cc, sizeof cfg.cc, "%s", o->cc);
  snprintf(cfg.cflags, sizeof cfg.cflags, "%s", o->cflags);
  snprintf(cfg.cxx, sizeof cfg.cxx, "%s", o->cxx);
  snprintf(cfg.fc, sizeof cfg.fc, "%s", o->fc);
  snprintf(cfg.fflags, sizeof cfg.fflags, "%s", o->fflags);
  snprintf(cfg.fortran_moddirs, sizeof cfg.fortran_moddirs, "%s", OP2_FORTRAN_MODDIRS);
  snprintf(cfg.cache_dir, sizeof cfg.cache_dir, "%s", o->cache_dir);
  snprintf(cfg.template_dir, sizeof cfg.template_dir, "%s", o->template_dir);
  if (op2_jit_create(&cfg, &ctx->jit_engine) != OP2_OK)
    return op2_error(OP2_ERR_MEM, "op_init: out of memory");
  return OP2_OK;
}

void op2_jit_fini(op2_context *ctx) {
  if (!ctx->jit_engine) return;
  op2_jit_shutdown(ctx->jit_engine, (op2_kernel *const *)ctx->kernels.items, ctx->kernels.count,
                   &ctx->jit);
  op2_jit_destroy(ctx->jit_engine);
  ctx->jit_engine = NULL;
}

int op2_jit_report(op2_context *ctx, int rc) {
  if (rc == OP2_OK || !ctx->jit_engine) return rc;
  const op2_jit_error *e = op2_jit_failure(ctx->jit_engine);
  if (e->code != OP2_OK) op2_error_record(e, "%s", e->msg);
  op2_jit_failure_clear(ctx->jit_engine);
  return rc;
}

void op2_loop_describe(const op2_context *ctx, const op2_loop *loop, op2_loop_desc *d) {
  *d = (op2_loop_desc){.name = loop->name,
                       .nargs = loop->nargs,
                       .desc = loop->desc,
                       .consts = (op2_const *const *)ctx->consts.items,
                       .nconsts = ctx->consts.count};
}

static void count(op2_jit_counters *to, const op2_jit_counters *add) {
  to->compiles += add->compiles, to->disk_hits += add->disk_hits;
  to->disk_rejects += add->disk_rejects, to->store_failures += add->store_failures;
  to->cc_compiles += add->cc_compiles, to->cc_failures += add->cc_failures;
  to->cc_failed_before += add->cc_failed_before, to->cc_dropped += add->cc_dropped;
}

/* A new kernel for a loop supersedes the kernels of its other shapes (a constant changed): their
 * optimised builds are not worth finishing, nor storing (docs/API.md, Constants). */
static void cancel_superseded_builds(op2_context *ctx, const op2_loop *loop, const op2_kernel *k) {
  size_t pos = 0; /* the loops of its name and set, not all loops */
  for (const op2_loop *l; (l = op2_index_next(&ctx->loops_by_name, loop->name_key, &pos));) {
    if (l != loop && l->kernel && l->kernel != k && op2_kernel_queued(l->kernel) &&
        l->set == loop->set && strcmp(l->name, loop->name) == 0)
      op2_jit_cancel(l->kernel);
  }
}

/* The context's kernel of this source, through ctx->kernels_by_key: kernels are added to it here
 * and removed from it where they leave the list (loop.c); rebuilt whenever its count differs. */
/* A kernel's source hash as one index key. */
static uint64_t kernel_key(const op2_kernel *k, uint64_t key[2]) {
  op2_kernel_key(k, key);
  return key[0] ^ key[1];
}

static op2_kernel *find_loaded(void *arg, uint64_t hi, uint64_t lo) {
  op2_context *ctx = arg;
  op2_index *ix = &ctx->kernels_by_key;
  uint64_t key[2];
  if (ix->count != (size_t)ctx->kernels.count) {
    op2_index_free(ix);
    for (int i = 0; i < ctx->kernels.count; i++) {
      op2_kernel *k = ctx->kernels.items[i];
      if (op2_index_add(ix, kernel_key(k, key), k) != 0) break;
    }
  }
  if (ix->count != (size_t)ctx->kernels.count) { /* memory is short: the list, walked */
    for (int i = 0; i < ctx->kernels.count; i++) {
      op2_kernel *k = ctx->kernels.items[i];
      kernel_key(k, key);
      if (key[0] == hi && key[1] == lo) return k;
    }
    return NULL;
  }
  size_t pos = 0;
  for (op2_kernel *k; (k = op2_index_next(ix, hi ^ lo, &pos));) {
    kernel_key(k, key);
    if (key[0] == hi && key[1] == lo) return k;
  }
  return NULL;
}

int op2_loop_kernel(op2_context *ctx, op2_loop *loop, const char *kernel_src) {
  op2_loop_desc d;
  op2_loop_describe(ctx, loop, &d);
  /* the backend's target (the CUDA backends ask for their own in runtime/cuda/core.c) */
  op2_jit_request rq = {.loop = &d,
                        .kernel_src = kernel_src,
                        .target = ctx->backend->target,
                        .loaded = (op2_kernel *const *)ctx->kernels.items,
                        .nloaded = ctx->kernels.count,
                        .find_loaded = find_loaded,
                        .find_arg = ctx};
  /* a procedure the program compiled (Fortran): the Fortran target, its first tier's closure */
  op2_compiled_request *compiled = NULL;
  if (op2_kernel_text_compiled(kernel_src))
    OP2_CALL(op2_compiled_request_make(ctx, loop, kernel_src, &rq, &compiled));
  op2_jit_result res;
  int rc = op2_jit_kernel(ctx->jit_engine, &rq, &res);
  op2_compiled_request_free(compiled);
  count(&ctx->jit, &res.counts);
  if (rc != OP2_OK) return op2_jit_report(ctx, rc);
  if (res.fresh) {
    rc = op2_list_push(&ctx->kernels, res.kernel);
    if (rc != OP2_OK) {
      op2_jit_discard(ctx->jit_engine, res.kernel);
      return rc;
    }
    uint64_t key[2];
    if (op2_index_add(&ctx->kernels_by_key, kernel_key(res.kernel, key), res.kernel))
      op2_index_free(&ctx->kernels_by_key); /* rebuilt by the next search */
    cancel_superseded_builds(ctx, loop, res.kernel);
    if (op2_kernel_origin_of(res.kernel) == OP2_FROM_DISK)
      loop->stats->kernels_from_disk++;
    else
      loop->stats->kernels_compiled++;
  }
  loop->kernel = res.kernel;
  return OP2_OK;
}

void op2_jit_poll_kernel(op2_context *ctx, op2_kernel *k) {
  op2_jit_poll(ctx->jit_engine, k, &ctx->jit);
}

void op2_jit_wait_all(op2_context *ctx) {
  op2_jit_wait(ctx->jit_engine, (op2_kernel *const *)ctx->kernels.items, ctx->kernels.count,
               &ctx->jit);
}
