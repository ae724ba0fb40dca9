/* SPDX-License-Identifier: BSD-3-Clause */
/* The targets jit/ builds kernels for, one row each: how the source is generated, how it becomes
 * code (the C target's tier ladder, NVRTC, the emulator's C build), which files its cache entry
 * holds. op2_jit_kernel (jit.c) dispatches through this table; a new target is a new row. */
#include "jit_internal.h"
#ifdef OP2_HAVE_CUDA
#include "jit_cuda.h"
#endif

static const char halo_gather_name[] = "op2_halo_gather";

const char *op2_jit_request_name(const op2_jit_request *rq) {
  return rq->loop ? rq->loop->name : halo_gather_name;
}

static int c_codegen(op2_jit *jit, const op2_jit_request *rq, op2_generated *out) {
  return op2_codegen_c(jit, rq->loop, rq->kernel_src, out);
}

#ifdef OP2_HAVE_CUDA
static int cuda_codegen(op2_jit *jit, const op2_jit_request *rq, op2_generated *out) {
  if (!rq->loop) return op2_codegen_cuda_halo_gather(jit, rq->cuda.gather_row_bytes, out);
  return op2_codegen_cuda(jit, rq->loop, rq->kernel_src, rq->cuda.layout, out);
}
#endif

static const op2_target targets[] = {
    [OP2_TARGET_C] = {.name = "c",
                      .src_ext = "c",
                      .bin_ext = "so",
                      .codegen = c_codegen,
                      .obtain = op2_jit_obtain, /* the tier ladder (ladder.c) */
                      .finish = op2_jit_c_finish},
#ifdef OP2_HAVE_CUDA
    [OP2_TARGET_CUDA] = {.name = "cuda",
                         .src_ext = "cu",
                         .bin_ext = "cubin",
                         .extra_ext = "ptx",
                         .per_arch = true,
                         .codegen = cuda_codegen,
                         .obtain = op2_cuda_target_obtain},
    /* the .cu text as C (emulation header before, entry point after) in a C entry */
    [OP2_TARGET_CUDA_EMU] = {.name = "cuda-emu",
                             .src_ext = "c",
                             .bin_ext = "so",
                             .per_arch = true,
                             .codegen = cuda_codegen,
                             .obtain = op2_cuda_emu_target_obtain},
#endif
    /* a procedure the program compiled: run by address, then built by gfortran around its
     * source */
    [OP2_TARGET_FORTRAN] = {.name = "fortran",
                            .src_ext = "F90",
                            .bin_ext = "so",
                            .codegen = op2_fortran_target_codegen,
                            .obtain = op2_fortran_target_obtain},
};

const op2_target *op2_target_of(op2_target_id id) {
  if ((unsigned)id >= sizeof targets / sizeof targets[0] || !targets[id].codegen) return NULL;
  return &targets[id];
}
