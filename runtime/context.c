/* SPDX-License-Identifier: BSD-3-Clause */
/* The library context: the only mutable state, created on first use and torn down by op_exit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/alloc.h"
#include "runtime/options.h"
#include "runtime/fault.h"
#include "runtime/mesh.h"
#include "runtime/loop.h"
#include "runtime/plan.h"
#include "runtime/tune.h"
#include "runtime/jit_use.h"
#include "runtime/output.h"
#include "runtime/backend.h"
#include "runtime/checkpoint.h"
#include "jit/jit.h"
#include "runtime/distributed.h"
#include "runtime/chain.h"
#include "runtime/compiled_kernel.h"

/* OP2's API has no context argument, so the one context is reached through this pointer. */
static op2_context *the_context;

op2_context *op2_ctx(void) {
  if (!the_context) {
    the_context = calloc(1, sizeof *the_context);
    if (!the_context) {
      op2_error_final("out of memory creating the library context");
      exit(1);
    }
  }
  return the_context;
}

int op2_require_init(const char *what) {
  if (op2_ctx()->initialised) return OP2_OK;
  return op2_error(OP2_ERR_STATE, "%s called before op_init", what);
}

/* The name in parentheses: op2.h makes op_init a macro that calls op_init_mpi. */
void(op_init)(int argc, char **argv, int diags) {
  op_init_mpi(argc, argv, diags, 0);
}

void op_init_mpi(int argc, char **argv, int diags, int program_uses_mpi) {
  op2_context *ctx = op2_ctx();
  if (ctx->initialised) {
    op2_error(OP2_ERR_STATE, "op_init called twice (call op_exit first)");
    return;
  }
  if (op2_options_read(&ctx->opt, &ctx->backend_opt, argc, argv, diags) != OP2_OK) return;
  if (op2_mpi_init(ctx, &argc, &argv, program_uses_mpi) != OP2_OK) return;
  op2_options_warn_unknown(argc, argv); /* once MPI is up: by rank 0 alone */
  ctx->backend = op2_backend_find(ctx->opt.backend);
  if (ctx->backend->init && ctx->backend->init(ctx) != OP2_OK) return;
  if (op2_jit_init(ctx) != OP2_OK) {
    /* op_exit finalises only an initialised library: the backend that started is undone here. */
    if (ctx->backend->finalize) ctx->backend->finalize(ctx);
    return;
  }
  op2_mpi_node_init(ctx);
  op2_tune_init(ctx);
  ctx->initialised = true;
  op2_fault_install(ctx);
  op2_diag(1, "backend %s (%s), part size %d, kernel cache %s (%s)", ctx->backend->name,
           ctx->backend->description, ctx->opt.part_size, ctx->opt.cache_dir,
           ctx->opt.cache_mode == OP2_CACHE_ON         ? "on"
           : ctx->opt.cache_mode == OP2_CACHE_READONLY ? "readonly"
                                                       : "off");
}

static void free_list(op2_ptr_list *l, void (*free_item)(void *)) {
  for (int i = 0; i < l->count; i++) free_item(l->items[i]);
  free(l->items);
  memset(l, 0, sizeof *l);
}

static void free_set(void *p) {
  op_set s = p;
  free(s->orig);
  free(s->orig_int);
  free(s->rank);
  op2_halo_free(s->halo);
  free(s->decl_firsts);
  free(s->name);
  free(s);
}

static void free_map(void *p) {
  op_map m = p;
  free(m->values);
  free(m->gvalues);
  free(m->name);
  free(m);
}

static void free_dat(void *p) {
  op_dat d = p;
  free(d->data);
  free(d->decl_name);
  free(d->type_name);
  free(d);
}

static void free_const(void *p) {
  op2_const *c = p;
  free(c->data);
  free(c->values);
  free(c->name);
  free(c);
}

static void free_loop(void *p) {
  op2_loop_free(p);
}

static void free_plan(void *p) {
  op2_plan_free(p);
}

static void free_stats(void *p) {
  op2_loop_stats *s = p;
  free(s->name);
  free(s);
}

static void free_kernel(void *p) {
  op2_kernel_free(p);
}

void op_exit(void) {
  op2_context *ctx = op2_ctx();
  op2_chain_flush(ctx, "op_exit"); /* lazy execution: queued loops run before anything ends */
  /* Under MPI every rank must be here: one that is elsewhere fails on every rank (reported) */
  if (ctx->initialised) (void)op2_mpi_agree_exit(ctx);
  op2_maps_check_at_exit(ctx);
  if (ctx->initialised && ctx->opt.profile_json[0]) op2_profile_write(ctx, ctx->opt.profile_json);
  /* halo message buffers first: the backend may own their memory (page-locked) */
  for (int i = 0; i < ctx->dats.count; i++) op2_exchange_release(ctx, ctx->dats.items[i]);
  if (ctx->initialised && ctx->backend->finalize) ctx->backend->finalize(ctx);
  op2_fault_remove(ctx);
  op2_jit_fini(ctx);
  op2_loop_sites_free(ctx);
  op2_loops_index_reset(ctx);
  free_list(&ctx->loops, free_loop);
  op2_index_free(&ctx->kernels_by_key);
  free_list(&ctx->kernels, free_kernel);
  free_list(&ctx->plans, free_plan);
  op2_index_free(&ctx->stats_by_name);
  free_list(&ctx->stats, free_stats);
  op2_profile_free(ctx);
  op2_compiled_free(ctx);
  free_list(&ctx->kernel_headers, free);
  free_list(&ctx->kernel_files, free);
  free_list(&ctx->consts, free_const);
  free_list(&ctx->dats, free_dat);
  free_list(&ctx->maps, free_map);
  free_list(&ctx->sets, free_set);
  free(ctx->reduction_scratch);
  op2_chain_free(ctx);
  op2_checkpoint_free(ctx);
  op2_mpi_finalize(ctx);
  op2_option_values_free(&ctx->backend_opt);
  /* The error handler and the last message outlive op_exit: a program may install its handler
   * once, before op_init, and still read why a later op_init failed. */
  op_error_handler handler = ctx->handler;
  void *handler_data = ctx->handler_data;
  char last_error[sizeof ctx->last_error];
  memcpy(last_error, ctx->last_error, sizeof last_error);
  memset(ctx, 0, sizeof *ctx);
  ctx->handler = handler;
  ctx->handler_data = handler_data;
  memcpy(ctx->last_error, last_error, sizeof last_error);
}
