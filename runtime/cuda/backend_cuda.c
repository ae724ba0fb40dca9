/* SPDX-License-Identifier: BSD-3-Clause */
/* The CUDA backend: generated kernels compiled by NVRTC to CUBIN for the device's architecture
 * and run through the CUDA driver API, loaded with dlopen("libcuda.so.1") at op_init. See
 * docs/CUDA.md; the host side is runtime/cuda/core.c. */

#include <stdio.h>

#include "runtime/backend.h"
#include "runtime/cuda/cuda.h"
#include "runtime/context.h"

static int init_cuda(op2_context *ctx) {
  return op2_cuda_init(ctx, NULL, NULL, 0);
}

/* Threads per block change only the block reduction tree; the strategy is not tuned (each is
 * another kernel, and atomics make increments differ from run to run). */
int op2_cuda_tune_candidates(const op2_context *ctx, const op2_loop *loop, op2_tune_params *out,
                             int max) {
  (void)loop;
  int n = 0;
  for (int bs = op2_cuda_options_of(ctx)->block_size / 2; bs >= 64 && bs % 32 == 0 && n < max;
       bs /= 2)
    out[n++] = (op2_tune_params){.block_size = bs};
  return n;
}

void op2_cuda_tune_describe(const op2_context *ctx, const op2_loop *loop, char *out, size_t len) {
  snprintf(
      out, len, "block size %d",
      loop->params.block_size ? loop->params.block_size : op2_cuda_options_of(ctx)->block_size);
}

const op2_backend op2_backend_cuda = {
    .name = "cuda",
    .description = "NVIDIA GPU: NVRTC's CUBIN through the CUDA driver",
    .target = OP2_TARGET_CUDA,
    .init = init_cuda,
    .run = op2_cuda_run,
    .finalize = op2_cuda_finalize,
    OP2_CUDA_BACKEND_SHARED_ENTRIES,
};
