/* SPDX-License-Identifier: BSD-3-Clause */
/* OP2's Fortran op_par_loop_N(kernel, set, args...): the kernel is a procedure the program
 * compiled, given by its address. Each procedure gets a record (its symbol, names, and the loop
 * text the runtime keys its loops by: OP2_COMPILED_PREFIX, the record's number, its identity),
 * and the call goes through op_par_loop's steps like a C loop: lazy queue, lookup, plans, MPI
 * halos, reductions. When the loop's kernel is made, the request names the Fortran target with
 * the first tier's closure (runtime/compiled_kernel.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/compiled_kernel.h"
#include "runtime/fortran/fortran.h"
#include "runtime/fortran/entry_points.h"
#include "runtime/backend.h"
#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/loop.h"
#include "runtime/options.h"
#include "base/fortran_unit.h"

op2_fortran *op2_fortran_state(op2_context *ctx) {
  if (!ctx->fortran && !(ctx->fortran = calloc(1, sizeof *ctx->fortran)))
    op2_error(OP2_ERR_MEM, "Fortran API: out of memory");
  return ctx->fortran;
}

static void kernel_free(op2_fortran_kernel *k) {
  if (!k) return;
  op2_fortran_unit_free(k->unit);
  free(k->text), free(k->name), free(k->identity), free(k->no_unit_why);
  free(k);
}

void op2_compiled_free(op2_context *ctx) {
  op2_fortran *f = ctx->fortran;
  if (!f) return;
  for (int i = 0; i < f->nkernels; i++) kernel_free(f->kernels[i]);
  free(f->kernels);
  for (int i = 0; i < f->nconsts; i++) free(f->consts[i].value);
  free(f->consts);
  free(f);
  ctx->fortran = NULL;
}

/* asprintf, NULL when out of memory. */
static char *format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *format(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = NULL;
  if (vasprintf(&s, fmt, ap) < 0) s = NULL;
  va_end(ap);
  return s;
}

/* A new record for the procedure at `address`: what the symbol table says of it. */
static op2_fortran_kernel *kernel_new(op2_fortran *f, void (*address)(void)) {
  op2_fortran_kernel *k = calloc(1, sizeof *k);
  if (!k) return NULL;
  k->address = address;
  op2_procedure_find((void *)address, &k->where);
  op2_procedure_names(k->where.symbol, k->module, sizeof k->module, k->procedure,
                      sizeof k->procedure, &k->kind);
  char file[300] = "";
  if (k->where.file[0]) snprintf(file, sizeof file, " (%s)", k->where.file);
  if (k->kind == 'm')
    k->identity = format("%s::%s", k->module, k->procedure);
  else if (k->where.symbol[0])
    k->identity = format("%s%s%s", k->procedure, k->kind == 'i' ? ", internal" : "", file);
  else /* no symbol (a stripped program): its place in its object, the same on every rank */
    k->identity = format("procedure at %#lx in %s",
                         (unsigned long)((uintptr_t)k->where.code - k->where.object_base),
                         k->where.object_is_program ? "the program" : k->where.object);
  k->name = k->procedure[0] ? strdup(k->procedure) : format("fortran_kernel_%d", f->nkernels);
  /* An internal procedure reached through a trampoline runs with its host's frame: the loop is
   * this trampoline's (another host frame is another loop). */
  char tramp[64] = "";
  if (k->where.trampoline) snprintf(tramp, sizeof tramp, " @%p", (void *)address);
  if (k->identity && k->name)
    k->text = format("%s%d %s%s", OP2_COMPILED_PREFIX, f->nkernels, k->identity, tramp);
  if (!k->identity || !k->name || !k->text) {
    kernel_free(k);
    return NULL;
  }
  return k;
}

static op2_fortran_kernel *kernel_of(op2_context *ctx, void (*address)(void)) {
  op2_fortran *f = op2_fortran_state(ctx);
  if (!f) return NULL;
  for (int i = 0; i < f->nkernels; i++)
    if (f->kernels[i]->address == address) return f->kernels[i];
  if (f->nkernels == f->cap) {
    int cap = f->cap ? 2 * f->cap : 16;
    op2_fortran_kernel **more = realloc(f->kernels, sizeof *more * (size_t)cap);
    if (!more) return op2_error(OP2_ERR_MEM, "op_par_loop: out of memory"), NULL;
    f->kernels = more, f->cap = cap;
  }
  op2_fortran_kernel *k = kernel_new(f, address);
  if (!k) return op2_error(OP2_ERR_MEM, "op_par_loop: out of memory"), NULL;
  f->kernels[f->nkernels++] = k;
  return k;
}

/* op_par_loop_N's C side: the arguments as op_arg_* built them (include/fortran). */
void op2_fortran_par_loop(void (*kernel)(void), op_set set, int nargs, const op_arg *args) {
  op2_context *ctx = op2_ctx();
  if (op2_require_init("op_par_loop") != OP2_OK) return;
  if (!kernel) {
    op2_error(OP2_ERR_ARG, "op_par_loop: no kernel procedure");
    return;
  }
  op2_fortran_kernel *k = kernel_of(ctx, kernel);
  if (!k) return;
  if (nargs > OP2_FORTRAN_MAX_ARGS) {
    op2_error(OP2_ERR_ARG, "op_par_loop '%s': %d arguments, at most %d", k->name, nargs,
              OP2_FORTRAN_MAX_ARGS);
    return;
  }
  op2_par_loop(ctx, &(op2_loop_call){.kernel = k->text,
                                     .kernel_kept = true,
                                     .name = k->name,
                                     .set = set,
                                     .nargs = nargs,
                                     .args = args,
                                     .site = (const void *)kernel});
}

/* ---- the Fortran target's request (runtime/compiled_kernel.h) ---- */

struct op2_compiled_request {
  op2_fortran_closure *closure;
  size_t closure_size;
};

/* The optimised tier's inputs, looked for at the kernel's first loop (reading its source files:
 * no compiler runs); when there are none, why is said once, and the first tier goes on. */
static void find_unit(op2_context *ctx, op2_fortran_kernel *k) {
  if (k->source_looked || ctx->opt.jit_mode == OP2_JIT_TCC) return;
  k->source_looked = true;
  op2_jit_error failure = {.code = OP2_OK};
  if (op2_fortran_unit_make(ctx, k, &k->unit, &failure) == OP2_OK) {
    op2_diag(2, "Fortran kernel %s: its source is %s, line %d", k->identity, k->unit->file,
             k->unit->line);
    return;
  }
  k->no_unit_why = strdup(failure.msg);
  op2_diag(1,
           "Fortran kernel %s: no optimised build (%s); the program's procedure runs by its "
           "address",
           k->identity, failure.msg);
}

/* The record a loop text names (its number after the prefix). */
static op2_fortran_kernel *kernel_of_text(op2_context *ctx, const char *text) {
  op2_fortran *f = ctx->fortran;
  int n = atoi(text + sizeof OP2_COMPILED_PREFIX - 1);
  return f && n >= 0 && n < f->nkernels ? f->kernels[n] : NULL;
}

static int make_closure(const op2_fortran *f, const op2_fortran_kernel *k, const op2_loop *loop,
                        op2_compiled_request *r) {
  int nargs = loop->nargs;
  r->closure_size = sizeof *r->closure + (size_t)nargs * sizeof r->closure->args[0];
  r->closure = calloc(1, r->closure_size);
  if (!r->closure) return op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory", loop->name);
  op2_fortran_closure *c = r->closure;
  c->procedure = k->address;
  c->nargs = nargs;
  c->map_base = f->map_base;
  for (int i = 0; i < nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    op2_fortran_arg *a = &c->args[i];
    *a = (op2_fortran_arg){.kind = d->kind,
                           .acc = d->acc,
                           .type = d->type,
                           .idx = d->idx,
                           .arity = d->map_arity,
                           .row_bytes = d->dim * (int)op2_type_size(d->type),
                           .off = d->opt_off};
    if (d->kind == OP2_ARG_DAT && d->map_arity && d->idx < 0) {
      a->vec = -d->idx;
      c->vec_bytes += a->vec * a->row_bytes;
    }
  }
  if (!(c->vec_bytes <= OP2_FORTRAN_GATHER_BYTES))
    return op2_error(
        OP2_ERR_ARG,
        "op_par_loop '%s': its vector arguments gather %d bytes per element, at most %d",
        loop->name, c->vec_bytes, OP2_FORTRAN_GATHER_BYTES);
  return OP2_OK;
}

int op2_compiled_request_make(op2_context *ctx, const op2_loop *loop, const char *text,
                              op2_jit_request *rq, op2_compiled_request **out) {
  *out = NULL;
  op2_fortran_kernel *k = kernel_of_text(ctx, text);
  if (!k)
    return op2_error(OP2_ERR_STATE, "op_par_loop '%s': no record of its Fortran kernel",
                     loop->name);
  if (!ctx->backend->host_kernels)
    return op2_error(
        OP2_ERR_ARG,
        "op_par_loop '%s': a Fortran kernel runs on the seq and openmp backends, not on %s "
        "(CUDA Fortran is not supported)",
        loop->name, ctx->backend->name);
  if (!(loop->nargs <= OP2_FORTRAN_MAX_ARGS))
    return op2_error(OP2_ERR_ARG, "op_par_loop '%s': %d arguments, at most %d", loop->name,
                     loop->nargs, OP2_FORTRAN_MAX_ARGS);
  op2_compiled_request *r = calloc(1, sizeof *r);
  if (!r) return op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory", loop->name);
  int rc = make_closure(ctx->fortran, k, loop, r);
  if (rc != OP2_OK) {
    op2_compiled_request_free(r);
    return rc;
  }
  find_unit(ctx, k);
  rq->target = OP2_TARGET_FORTRAN;
  rq->fortran.unit = k->unit;
  rq->fortran.map_base = ctx->fortran->map_base;
  if (k->unit) {
    rq->fortran.nhost = k->unit->nhost;
    rq->fortran.host_names = (const char *const *)k->unit->host_names;
    rq->fortran.host_addrs = k->host_addrs;
  }
  rq->fortran.first_tier = op2_fortran_first_tier;
  rq->fortran.closure = r->closure;
  rq->fortran.closure_size = r->closure_size;
  rq->fortran.identity = k->identity;
  *out = r;
  return OP2_OK;
}

void op2_compiled_request_free(op2_compiled_request *r) {
  if (!r) return;
  free(r->closure);
  free(r);
}
