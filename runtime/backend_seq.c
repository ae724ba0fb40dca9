/* SPDX-License-Identifier: BSD-3-Clause */
/* The sequential backend: one thread, plain element order, reductions straight into the
 * caller's data. It is the reference the other backends are compared with. */

#include "runtime/backend.h"
#include "runtime/context.h"
#include "runtime/fault.h"
#include "runtime/plan.h"

static int run_seq(op2_context *ctx, const op2_exec *exec) {
  /* A fatal signal in the kernel jumps back here, and the range is re-run one element at a time
   * to name the faulting element (fault.c). Armed once per run, never per element. */
  if (sigsetjmp(ctx->fault.recover, 0)) op2_fault_find_element(ctx, exec);
  op2_fault_arm(&ctx->fault, exec);
  const op2_kernel_call call = op2_kernel_callable(exec->loop->kernel);
  op2_kernel_call_range(&call, exec->arg_ptrs, exec->map_ptrs, exec->begin, exec->end);
  op2_fault_disarm(&ctx->fault);
  return OP2_OK;
}

/* Nothing is tuned (the bitwise reference); a loop's plan is still named in its profile. */
static void describe_plan(const op2_context *ctx, const op2_loop *loop, char *out, size_t len) {
  (void)ctx;
  op2_plan_describe(loop->plans[0], out, len);
}

const op2_backend op2_backend_seq = {
    .name = "seq",
    .description = "one thread, element order: the reference",
    .target = OP2_TARGET_C,
    .host_kernels = true,
    .init = 0,
    .run = run_seq,
    .finalize = 0,
    .tune_describe = describe_plan,
};
