/* SPDX-License-Identifier: BSD-3-Clause */
/* The jit layer's public face, the one jit/ header runtime/ includes (t900-layers): an engine
 * made from a config; a loop's kernel from op2_jit_kernel(request) -> result, opaque, read through
 * accessors; its optimised build polled, cancelled, waited for. How kernels are built is private
 * to jit/ (jit_internal.h); what both layers share is base/'s (base.h, file_io.h, ...). */
#ifndef OP2_JIT_H
#define OP2_JIT_H

#include "base/base.h" /* with <stdbool.h>, <stddef.h>, <stdint.h> */
#include "base/cuda_layout.h"
#include "base/kernel_call.h"

/* ---- compiled kernels (opaque) ---- */
typedef enum { OP2_FROM_COMPILE, OP2_FROM_DISK } op2_kernel_origin;
/* Which compiler made its code (a Fortran procedure by address: TCC; gfortran's build: CC). */
typedef enum { OP2_TIER_TCC = 0, OP2_TIER_CC = 1, OP2_TIER_CXX = 2 } op2_tier_id;
enum { OP2_NTIERS = 3 };
typedef struct op2_kernel op2_kernel;
op2_kernel_fn op2_kernel_entry(const op2_kernel *k);      /* the code calls run now, or NULL */
op2_kernel_call op2_kernel_callable(const op2_kernel *k); /* the same, as backends call it */
const char *op2_kernel_name(const op2_kernel *k);
op2_tier_id op2_kernel_tier(const op2_kernel *k);
op2_kernel_origin op2_kernel_origin_of(const op2_kernel *k);
const char *op2_kernel_source_path(const op2_kernel *k);   /* in the cache, or kept when failed */
void op2_kernel_key(const op2_kernel *k, uint64_t key[2]); /* its generated source's hash */
double op2_kernel_upgrade_ms(const op2_kernel *k);         /* first call -> optimised code, or 0 */
double op2_kernel_cc_compile_ms(const op2_kernel *k);      /* its optimising compile, or 0 */
bool op2_kernel_queued(const op2_kernel *k); /* an optimised build of this process is pending */
void op2_kernel_ran(op2_kernel *k, double seconds); /* on TinyCC: weighs for its queued build */
bool op2_kernel_upgrading(const op2_kernel *k);     /* queued here, or awaited from the builder */
bool op2_kernel_awaiting_peer(const op2_kernel *k);
void op2_kernel_free(op2_kernel *k);
/* CUDA: CUBIN (*len bytes), PTX (NULL for cuda-emu); a variable's address (*bytes: size or 0);
 * the declared constants its text uses, in declaration order. */
const void *op2_kernel_image(const op2_kernel *k, size_t *len);
const char *op2_kernel_ptx(const op2_kernel *k);
void *op2_kernel_symbol(const op2_kernel *k, const char *symbol, size_t *bytes);
int op2_kernel_constants(const op2_kernel *k, op2_const *const **out);

/* ---- the engine ---- */
typedef enum { OP2_CACHE_OFF, OP2_CACHE_READONLY, OP2_CACHE_ON } op2_cache_mode;
typedef enum { OP2_JIT_TCC, OP2_JIT_CC, OP2_JIT_TIERED } op2_jit_mode;
/* OP2_LOADER: objects checked first; dlopen up to OP2_DIRECT_AFTER, then direct (auto). */
typedef enum { OP2_LOADER_AUTO, OP2_LOADER_DIRECT, OP2_LOADER_DLOPEN } op2_loader_mode;
enum { OP2_DIRECT_AFTER = 256 }; /* where dlopen's growing cost passes the direct loader's */
typedef struct op2_jit_config {  /* runtime/ fills it from the user's options */
  op2_jit_mode mode;
  char cc[1024], cflags[1024], cxx[1024]; /* optimising compiler, its flags; C++ one, or "off" */
  int simd, simd_width; /* OP2_SIMD (0 off, -1 auto, else lanes); lanes used (0: scalar) */
  op2_cache_mode cache_mode;
  char cache_dir[OP2_PATH_MAX];
  char template_dir[OP2_PATH_MAX]; /* templates read from here, not the built-in ones, or "" */
  int diags;                       /* OP2_DIAGS: which diagnostics are worth formatting */
  int compiler_given;  /* OP2_CC or OP2_CFLAGS set by the user: their failure told at level 0 */
  int compile_timeout; /* OP2_COMPILE_TIMEOUT: seconds a child compiler may run (0: none) */
  int loader;          /* OP2_LOADER: an op2_loader_mode */
  int build_workers;   /* threads of the background tier: the cores the loops leave (>= 1) */
  char fc[1024], fflags[1024]; /* OP2_FC, OP2_FFLAGS: Fortran kernels' optimised builds */
  char fortran_moddirs[4096];  /* OP2's and MPI's Fortran modules (':'-separated) */
  void (*diag)(int level, const char *msg); /* the caller speaks: jit/ never writes to stderr */
} op2_jit_config;
typedef struct op2_jit op2_jit;
int op2_jit_create(const op2_jit_config *cfg, op2_jit **out); /* finds the compilers first */
void op2_jit_destroy(op2_jit *jit); /* stops the background tier; op2_jit_shutdown first */
/* A failed call's record (message, file, line; OP2_OK: none since the clear), reported once. */
const op2_jit_error *op2_jit_failure(const op2_jit *jit);
void op2_jit_failure_clear(op2_jit *jit);
const char *op2_jit_cache_root(op2_jit *jit); /* created if needed; NULL: said, none */
/* ---- request -> result ---- */
/* targets.c's rows: C (tier ladder), .cu (NVRTC), .cu as C (emulator), a program's procedure. */
typedef enum {
  OP2_TARGET_C,
  OP2_TARGET_CUDA,
  OP2_TARGET_CUDA_EMU,
  OP2_TARGET_FORTRAN
} op2_target_id;
typedef struct op2_jit_request {
  const op2_loop_desc *loop; /* NULL for the CUDA targets' halo gather kernel */
  const char *kernel_src;
  op2_target_id target;
  op2_kernel *const *loaded; /* the caller's kernels: a source already built is reused, */
  int nloaded;               /* or found by the caller's own index when find_loaded is set */
  op2_kernel *(*find_loaded)(void *arg, uint64_t key_hi, uint64_t key_lo);
  void *find_arg;
  op2_cuda_request cuda;          /* the CUDA targets' (base/cuda_layout.h) */
  op2_compiled_procedure fortran; /* OP2_TARGET_FORTRAN's (base/kernel_call.h) */
} op2_jit_request;
typedef struct op2_jit_result {
  op2_kernel *kernel;      /* NULL on failure (op2_jit_failure says why) */
  bool fresh;              /* a new kernel: the caller keeps it and frees it (op2_kernel_free) */
  op2_jit_counters counts; /* compiles, disk hits and refused entries of this request */
} op2_jit_result;
/* The loop's kernel for the target: one of `loaded`, the disk cache, or a fresh compile. */
int op2_jit_kernel(op2_jit *jit, const op2_jit_request *rq, op2_jit_result *res);
void op2_jit_discard(op2_jit *jit, op2_kernel *k); /* a fresh kernel the caller cannot keep */
/* The hash op2_jit_kernel keys a loop's C kernel by, which ranks compare (runtime/mpi/ranks.c). */
int op2_jit_source_hash(op2_jit *jit, const op2_loop_desc *loop, const char *kernel_src,
                        uint64_t hash[2]);
/* The kernel's parameters against the loop's arguments: OP2_ERR_ARG names loop, argument, both. */
int op2_kernel_params_check(op2_jit *jit, const char *source, const op2_loop_desc *loop);
/* The same, silent (no failure recorded): a call checked when it is queued (lazy execution). */
int op2_kernel_params_verify(op2_jit *jit, const char *source, const op2_loop_desc *loop);
bool op2_kernel_prints(op2_jit *jit, const char *text, const char *name); /* printf, cout... */
/* ---- the optimised build: poll, cancel, wait; live constants ---- */
/* op2_jit_poll swaps in a finished build (between two calls), counts it in *cnt, says which: */
enum { OP2_JIT_NO_BUILD, OP2_JIT_BUILDING, OP2_JIT_BUILT, OP2_JIT_BUILD_FAILED };
int op2_jit_poll(op2_jit *jit, op2_kernel *k, op2_jit_counters *cnt);
void op2_jit_cancel(op2_kernel *k); /* loop shape superseded: build dropped, or not stored */
/* Waits for queued builds (tests, benchmarks); shutdown adopts finished ones, drops the rest. */
void op2_jit_wait(op2_jit *jit, op2_kernel *const *kernels, int n, op2_jit_counters *cnt);
void op2_jit_shutdown(op2_jit *jit, op2_kernel *const *kernels, int n, op2_jit_counters *cnt);
/* Shared builds (mpi/node_build.c): a follower loads the builder's `stored` entry (0) or not. */
void op2_jit_follow_node(op2_jit *jit, int follower);
int op2_jit_load_node_build(op2_jit *jit, op2_kernel *k, int stored);
#define OP2_LIVE_CONST_PREFIX "op2_live_" /* a live constant's pointer (C), __constant__ (CUDA) */
#define OP2_HOST_VAR_PREFIX "op2_host_"   /* a program variable a Fortran kernel's loop reads */
bool op2_kernel_constants_bound(const op2_kernel *k); /* its pointers are set already */
void op2_jit_bind_constants(op2_kernel *k, op2_const *const *consts, int nconsts);

#endif /* OP2_JIT_H */
