/* SPDX-License-Identifier: BSD-3-Clause */
/* The sequential backend: one thread, plain element order, reductions straight into the
 * caller's data. It is the reference the other backends are compared with. */

#include "runtime/backend.h"
#include "runtime/context.h"
#include "runtime/fault.h"

static int run_seq(op2_context *ctx, const op2_exec *exec) {
  /* A fatal signal in the kernel jumps back here, and the range is re-run one element at a time
   * to name the faulting element (fault.c). Armed once per run, never per element. */
  if (sigsetjmp(ctx->fault.recover, 0)) op2_fault_find_element(ctx, exec);
  op2_fault_arm(&ctx->fault, exec);
  op2_kernel_entry(exec->loop->kernel)(exec->arg_ptrs, exec->map_ptrs, exec->begin, exec->end);
  op2_fault_disarm(&ctx->fault);
  return OP2_OK;
}

const op2_backend op2_backend_seq = {
    .name = "seq",
    .target = "c",
    .kernel = OP2_KERNEL_C,
    .init = 0,
    .run = run_seq,
    .finalize = 0,
};
