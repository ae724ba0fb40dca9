/* SPDX-License-Identifier: BSD-3-Clause */
/* The Fortran target: a kernel the program compiled itself (a Fortran procedure). Its first tier
 * needs no compiler at all: the kernel gets the runtime's generic element loop (first_tier) and a
 * copy of the loop's description (its closure), and calls the program's procedure by address.
 * When the runtime found the procedure's source (rq->fortran.unit), the optimised tier is the
 * loop generated in Fortran around that source (fortran_codegen.c), built by gfortran
 * (fortran_tier.c) from the cache or in the background, and swapped in between two calls like
 * the C target's optimised build. */
#include <stdlib.h>
#include <string.h>

#include "jit_internal.h"
#include "fortran_codegen.h"

/* Without the procedure's source the kernel is its identity and the loop's signature: one
 * kernel per procedure and loop shape, the same on every rank (no address in it). */
static int describe(op2_jit *jit, const op2_jit_request *rq, op2_generated *out) {
  memset(out, 0, sizeof *out);
  OP2_CALL(op2_signature_describe(jit, rq->loop, "fortran", &out->signature));
  op2_buf_printf(&out->source, "! the program's compiled procedure %s, called by its address\n",
                 rq->fortran.identity ? rq->fortran.identity : "(unknown)");
  op2_buf_append(&out->source, out->signature.data, out->signature.len);
  if (out->source.failed)
    return op2_jit_fail(jit, OP2_ERR_MEM, "op_par_loop '%s': out of memory", rq->loop->name);
  return OP2_OK;
}

int op2_fortran_target_codegen(op2_jit *jit, const op2_jit_request *rq, op2_generated *out) {
  if (!rq->loop || !rq->fortran.first_tier || !rq->fortran.closure)
    return op2_jit_fail(jit, OP2_ERR_ARG, "op_par_loop '%s': a Fortran kernel needs its procedure",
                        op2_jit_request_name(rq));
  if (rq->fortran.unit)
    return op2_codegen_fortran(jit, rq->loop, rq->fortran.unit, rq->fortran.map_base, out);
  return describe(jit, rq, out);
}

static int copy_host_bindings(op2_kernel *k, const op2_jit_request *rq) {
  int n = rq->fortran.nhost;
  if (n <= 0) return OP2_OK;
  k->host_names = calloc((size_t)n, sizeof *k->host_names);
  k->host_addrs = calloc((size_t)n, sizeof *k->host_addrs);
  if (!k->host_names || !k->host_addrs) return OP2_ERR_MEM;
  for (int i = 0; i < n; i++) {
    k->host_addrs[i] = rq->fortran.host_addrs[i];
    if (!(k->host_names[i] = strdup(rq->fortran.host_names[i]))) return OP2_ERR_MEM;
    k->nhost = i + 1;
  }
  return OP2_OK;
}

int op2_fortran_target_obtain(op2_jit *jit, const op2_jit_request *rq, op2_jit_counters *cnt,
                              op2_kernel *k, const op2_generated *gen) {
  k->closure = malloc(rq->fortran.closure_size ? rq->fortran.closure_size : 1);
  if (!k->closure || copy_host_bindings(k, rq) != OP2_OK)
    return op2_jit_fail(jit, OP2_ERR_MEM, "op_par_loop '%s': out of memory", k->name);
  memcpy(k->closure, rq->fortran.closure, rq->fortran.closure_size);
  k->closure_fn = rq->fortran.first_tier;
  k->fn = NULL;
  k->tier = OP2_TIER_TCC; /* the first tier: the program's own code */
  k->origin = OP2_FROM_COMPILE;
  if (rq->fortran.unit) op2_fortran_upgrade(jit, rq, cnt, k, gen);
  const char *then = !k->fn ? (k->job ? ": its optimised build is queued" : "")
                     : k->origin == OP2_FROM_DISK
                         ? ": its optimised build was loaded from the cache"
                         : ": its optimised build was made now (OP2_JIT=cc)";
  if (k->fn)
    op2_jit_diag(jit, 2, "kernel '%s': the program's procedure %s%s", k->name,
                 rq->fortran.identity ? rq->fortran.identity : "", then);
  else
    op2_jit_diag(jit, 2, "kernel '%s': the program's procedure %s runs by its address%s", k->name,
                 rq->fortran.identity ? rq->fortran.identity : "", then);
  return OP2_OK;
}
