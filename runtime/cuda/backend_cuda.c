/* SPDX-License-Identifier: BSD-3-Clause */
/* The CUDA backend: generated kernels compiled by NVRTC to CUBIN for the device's architecture
 * and run through the CUDA driver API, loaded with dlopen("libcuda.so.1") at op_init. See
 * docs/CUDA.md; the host side is runtime/cuda/core.c. */

#include "runtime/backend.h"
#include "runtime/cuda/cuda.h"
#include "runtime/context.h"

static int init_cuda(op2_context *ctx) {
  return op2_cuda_init(ctx, NULL, NULL, 0);
}

const op2_backend op2_backend_cuda = {
    .name = "cuda",
    .target = "cuda",
    .kernel = OP2_KERNEL_CUDA,
    .init = init_cuda,
    .run = op2_cuda_run,
    .finalize = op2_cuda_finalize,
    .sync_host = op2_cuda_sync_host,
    .prepare = op2_cuda_prepare,
    .complete = op2_cuda_complete,
    .halo_pack = op2_cuda_halo_pack,
    .halo_unpack = op2_cuda_halo_unpack,
    .host_alloc = op2_cuda_host_alloc,
    .host_free = op2_cuda_host_free,
};
