/* SPDX-License-Identifier: BSD-3-Clause */
/* Compiling CUDA kernels (nvrtc.c, jit_cuda.c): NVRTC, the kernel cache for CUBINs, and the
 * emulator's C build of the same generated source: the compile steps of the target table's CUDA
 * rows (targets.c). Private to jit/ (ctest/layers checks it): the CUDA backends ask
 * op2_jit_kernel; nothing here needs the CUDA driver. */
#ifndef OP2_JIT_CUDA_H
#define OP2_JIT_CUDA_H

#include "emit.h"

/* Every build, disk hit and refused entry is counted in the caller's counters (`cnt`); failures
 * are recorded in the engine (op2_jit_failure). */
void op2_nvrtc_identity(char *out, size_t len); /* "nvrtc MAJOR.MINOR" */
/* NVRTC's options for `arch` (e.g. "sm_90"): the one list that the compile receives and that,
 * as `text`, goes into the cache key and the manifest. */
typedef struct op2_nvrtc_options {
  char arch_opt[64];
  const char *argv[8];
  int argc;
  char text[256];
} op2_nvrtc_options;
void op2_nvrtc_options_for(const char *arch, op2_nvrtc_options *o);
/* CUBIN and PTX. The compiler's messages go to *log (malloc'ed). */
int op2_nvrtc_compile(const char *source, size_t len, const char *name, const op2_nvrtc_options *o,
                      char **cubin, size_t *cubin_len, char **ptx, size_t *ptx_len, char **log);
/* Assembles PTX with the ptxas binary for `arch` (a run longer than timeout_s seconds is stopped;
 * 0: no limit); 0 when it succeeds. */
int op2_ptxas_check(const char *ptxas, const char *ptx, size_t len, const char *arch, int timeout_s,
                    char **log);
/* What op2_cuda_kernel uses, from op2_ptxas_check's log, as one line for the manifest. */
int op2_ptxas_resources(const char *log, const char *arch, char *out, size_t len);

typedef struct op2_cuda_binary {
  char *image; /* the CUBIN */
  size_t len;
  char *ptx; /* its PTX, when asked for */
  size_t ptx_len;
  int from_disk;
  double compile_ms;
  char *source_path; /* the .cu in the cache, or NULL */
} op2_cuda_binary;
/* The CUBIN of generated source for `arch`: the disk cache entry NAME-HASH16/{NAME.cu, NAME.cubin,
 * NAME.ptx, manifest.json} when sound, else NVRTC (stored there when the cache allows). `ptxas`
 * (or "") reads registers and spills into the manifest. */
int op2_cuda_obtain_cubin(op2_jit *jit, op2_jit_counters *cnt, const char *ptxas, const char *name,
                          const op2_generated *gen, const char *arch, int want_ptx,
                          op2_cuda_binary *out);
void op2_cuda_binary_clear(op2_cuda_binary *b);

/* The emulator's build of generated source: C (templates/c/prelude.h, cuda/emu_env.h, cuda/emu.h,
 * the .cu text, cuda/emu_entry.c) compiled by the system compiler (or TinyCC with
 * OP2_JIT=tcc) through the same cache. *entry is its op2_loop. */
typedef struct op2_cuda_emu_build {
  op2_kernel_fn entry;
  void *dl_handle;
  int tcc_memory; /* built by TinyCC into memory (no cache entry) */
  int from_disk;
  double compile_ms;
} op2_cuda_emu_build;
int op2_cuda_obtain_emu(op2_jit *jit, op2_jit_counters *cnt, const char *name,
                        const op2_generated *gen, int use_tcc, op2_cuda_emu_build *out);
void op2_cuda_emu_build_release(op2_cuda_emu_build *b);

/* The target table's compile steps (op2_target.obtain): CUDA, the CUBIN and PTX into the kernel
 * (op2_kernel_image, op2_kernel_ptx); cuda-emu, the NVRTC builds of rq->cuda.verify_archs checked
 * by ptxas, then the emulator's build as the kernel's code. Both record the constants the kernel
 * uses (op2_kernel_constants). */
int op2_cuda_target_obtain(op2_jit *jit, const op2_jit_request *rq, op2_jit_counters *cnt,
                           op2_kernel *k, const op2_generated *gen);
int op2_cuda_emu_target_obtain(op2_jit *jit, const op2_jit_request *rq, op2_jit_counters *cnt,
                               op2_kernel *k, const op2_generated *gen);

#endif /* OP2_JIT_CUDA_H */
