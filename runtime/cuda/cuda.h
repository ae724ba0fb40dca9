/* SPDX-License-Identifier: BSD-3-Clause */
/* The CUDA backends (cuda, cuda-emu): shared declarations. The launch code runs against a table
 * of driver entry points: the real driver (libcuda.so.1, loaded with dlopen at first use), the
 * emulator (the generated .cu compiled as C, threads as fibers), or a test's fake. Everything up
 * to that table is the same for all three. */
#ifndef OP2_CUDA_H
#define OP2_CUDA_H

#include <cuda.h>

#include "runtime/context.h"
#include "runtime/mesh.h"
#include "runtime/loop.h"
#include "runtime/backend.h"
#include "runtime/cuda/cuda_options.h"
#include "base/cuda_layout.h"
#include "jit/jit.h"
#include "templates/cuda/params.h"
#include "templates/cuda/emu_env.h"

/* ---- the driver entry points the backend uses (same signatures as libcuda's) ---- */
typedef struct op2_cu_api {
  const char *name;
  CUresult (*cuInit)(unsigned int flags);
  CUresult (*cuDeviceGetCount)(int *count);
  CUresult (*cuDeviceGet)(CUdevice *dev, int ordinal);
  CUresult (*cuDeviceGetAttribute)(int *value, CUdevice_attribute attrib, CUdevice dev);
  CUresult (*cuDeviceGetName)(char *name, int len, CUdevice dev);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice dev);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice dev);
  CUresult (*cuCtxSetCurrent)(CUcontext ctx);
  CUresult (*cuCtxSynchronize)(void);
  CUresult (*cuModuleLoadData)(CUmodule *mod, const void *image);
  CUresult (*cuModuleUnload)(CUmodule mod);
  CUresult (*cuModuleGetFunction)(CUfunction *fn, CUmodule mod, const char *name);
  CUresult (*cuFuncSetAttribute)(CUfunction fn, CUfunction_attribute attrib, int value);
  CUresult (*cuMemAlloc)(CUdeviceptr *ptr, size_t bytes);
  CUresult (*cuMemFree)(CUdeviceptr ptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr dst, const void *src, size_t bytes);
  CUresult (*cuMemcpyDtoH)(void *dst, CUdeviceptr src, size_t bytes);
  CUresult (*cuLaunchKernel)(CUfunction fn, unsigned int gx, unsigned int gy, unsigned int gz,
                             unsigned int bx, unsigned int by, unsigned int bz,
                             unsigned int shared_bytes, CUstream stream, void **params,
                             void **extra);
  CUresult (*cuGetErrorString)(CUresult err, const char **text);
  CUresult (*cuFuncGetAttribute)(int *value, CUfunction_attribute attrib, CUfunction fn);
  /* page-locked host memory (halo messages): DMA reaches it without a staging copy */
  CUresult (*cuMemHostAlloc)(void **p, size_t bytes, unsigned int flags);
  CUresult (*cuMemFreeHost)(void *p);
  /* a module's __constant__ variable (live constants), its address and size */
  CUresult (*cuModuleGetGlobal)(CUdeviceptr *ptr, size_t *bytes, CUmodule mod, const char *name);
} op2_cu_api;

/* Fills `api` from the driver library `path` (dlopen). OP2_OK, or a code with the reason in *why.
 */
int op2_cu_driver_load(const char *path, op2_cu_api *api, void **handle, op2_jit_error *why);

/* Tests: the next op_init with a CUDA backend uses this table instead of libcuda or the
 * emulator's (kept in the context until op_exit, which forgets it). The table must stay valid
 * until op_exit. */
void op2_cuda_use_driver(const op2_cu_api *api);

/* How a loop runs on the GPU (strategies, layouts): base/cuda_layout.h. */

/* Kernels (generated, compiled by NVRTC or as C for the emulator, cached) are asked of
 * op2_jit_kernel (jit/jit.h) with the CUDA targets; jit/jit_cuda.h is jit's own. */

/* ---- plans for the GPU (plan_cuda.c) ---- */
typedef struct op2_cuda_plan {
  op2_cuda_strategy strategy;
  int begin, end;
  /* global colouring */
  int ncolours;
  int *col_offset; /* ncolours + 1 */
  int *col_elems;  /* elements by colour, ascending within a colour */
  /* hierarchical */
  int part_size, nblocks, npos, nblock_colours;
  int *block_col_offset; /* nblock_colours + 1 offsets into blkmap */
  int *blkmap;
  int *thr_elem;         /* NULL when there is no thread colouring */
  unsigned char *thrcol; /* NULL likewise */
  int *nthrcol;
  int *ind_offs, *ind_sizes, *ind_map;
  long ind_map_len;
  unsigned short *loc_map;
  int goff[OP2_CUDA_MAX_ARGS];
  int stage_bytes; /* shared memory of the staging areas */
  int max_thread_colours;
  double build_seconds;
} op2_cuda_plan;
int op2_cuda_plan_build(op2_context *ctx, const op2_loop *loop, const op2_cuda_layout *lay,
                        int begin, int end, op2_cuda_plan **out);
void op2_cuda_plan_free(op2_cuda_plan *p);

/* ---- the backend (core.c) ---- */
typedef struct op2_cuda_state op2_cuda_state;
/* Sets up the backend with a driver table: real (api NULL: OP2_CUDA_DRIVER, or the table given
 * to op2_cuda_use_driver) or the emulator's, with its device as `driver_data`. On failure
 * nothing is left but `driver_data`, which stays the caller's. */
int op2_cuda_init(op2_context *ctx, const op2_cu_api *api, void *driver_data, int emulated);
/* The driver data given to op2_cuda_init, or NULL: how the emulator's entry points, which carry
 * no context (libcuda's signatures), reach its device. */
void *op2_cuda_driver_data(op2_context *ctx);
int op2_cuda_run(op2_context *ctx, const op2_exec *exec);
int op2_cuda_sync_host(op2_context *ctx, op_dat dat);
void op2_cuda_finalize(op2_context *ctx);
/* op2_backend's free_dat and forget_loop (op_free_dat_temp): the dat's device copy released
 * after the device has finished every launch queued before; the runs kept for a loop (plans on
 * the device, reduction and global buffers) released, so that a loop made later at the same
 * address starts afresh. */
int op2_cuda_free_dat(op2_context *ctx, op_dat dat);
void op2_cuda_forget_loop(op2_context *ctx, const op2_loop *loop);
/* Runs held for loops (one per loop and element range): tests check none outlives its loop. */
int op2_cuda_runs_held(void);
/* Under MPI (op2_backend's complete, halo_pack, halo_unpack): loop phases are queued and waited
 * for once; export rows are gathered on the device and copied to the host for MPI; received
 * import rows are copied back in one piece. */
int op2_cuda_complete(op2_context *ctx);
/* op2_backend's prepare: the loop's module, built once per machine under MPI. Collective. */
int op2_cuda_prepare(op2_context *ctx, op2_loop *loop);
int op2_cuda_halo_pack(op2_context *ctx, const char *loop, op_dat dat, const int *rows, int n,
                       void *out);
int op2_cuda_halo_unpack(op2_context *ctx, const char *loop, op_dat dat);
/* op2_backend's host_alloc and host_free: page-locked memory from the driver. */
int op2_cuda_host_alloc(op2_context *ctx, const char *loop, size_t bytes, void **out);
void op2_cuda_host_free(op2_context *ctx, void *p);
/* OP2_TUNE (op2_backend's tune_candidates, tune_describe; backend_cuda.c): threads per block,
 * half and quarter of OP2_CUDA_BLOCK_SIZE (the kernel's launch bound) down to 64. */
int op2_cuda_tune_candidates(const op2_context *ctx, const op2_loop *loop, op2_tune_params *out,
                             int max);
void op2_cuda_tune_describe(const op2_context *ctx, const op2_loop *loop, char *out, size_t len);

/* The op2_backend entries cuda and cuda-emu share: cuda-emu's table is cuda's with its own
 * name, description, target, init, run and finalize (backend_cuda.c, backend_cuda_emu.c). */
#define OP2_CUDA_BACKEND_SHARED_ENTRIES                                                        \
  .host_kernels = false, .options = &op2_cuda_option_table, .sync_host = op2_cuda_sync_host,   \
  .prepare = op2_cuda_prepare, .complete = op2_cuda_complete, .halo_pack = op2_cuda_halo_pack, \
  .halo_unpack = op2_cuda_halo_unpack, .host_alloc = op2_cuda_host_alloc,                      \
  .host_free = op2_cuda_host_free, .tune_candidates = op2_cuda_tune_candidates,                \
  .tune_describe = op2_cuda_tune_describe, .free_dat = op2_cuda_free_dat,                      \
  .forget_loop = op2_cuda_forget_loop

/* Strategy the loop runs with, or -1 if it has not run yet (tests and diagnostics). */
int op2_cuda_loop_strategy(const char *loop_name);

/* ---- the emulator (backend_cuda_emu.c) ---- */
/* What cuModuleLoadData receives in emulation: the loaded module's entry, and how to find its
 * global variables (cuModuleGetGlobal: the __constant__ variables of live constants), with
 * their size where known (else 0). */
typedef struct op2_emu_image {
  op2_kernel_fn entry;
  void *(*global)(const struct op2_emu_image *img, const char *name, size_t *bytes);
  const op2_kernel *kernel; /* jit/'s, for `global` (op2_kernel_symbol) */
} op2_emu_image;
const op2_cu_api *op2_cuda_emu_api(void);

typedef struct op2_cuda_sectors {
  long calls, launches;
  long elements; /* elements run, all calls */
  long load_sectors, store_sectors, atomic_sectors;
} op2_cuda_sectors;
/* Global-memory traffic counted for a loop name since op_init (OP2_CUDA_EMU_SECTORS=on); -1 if
 * the loop has not run or the backend is not cuda-emu (op_exit forgets the counts). */
int op2_cuda_emu_sectors(const char *loop_name, op2_cuda_sectors *out);

#endif
