/* SPDX-License-Identifier: BSD-3-Clause */
/* The jit layer's public face: what runtime/ asks of it. An engine (op2_jit) made from a config;
 * a loop's kernel from op2_jit_kernel(request) -> result; a kernel is opaque, read through its
 * accessors; its optimised build polled, cancelled, waited for. How kernels are built (tiers,
 * compilers, the cache, the background tier) is private to jit/ (jit_internal.h). */
#ifndef OP2_JIT_H
#define OP2_JIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "desc.h"
#include "file_io.h"

/* ---- compiled kernels (opaque) ---- */
typedef void (*op2_kernel_fn)(void *const *args, const int *const *maps, int begin, int end);
typedef enum { OP2_FROM_COMPILE, OP2_FROM_DISK } op2_kernel_origin;
/* Which compiler made a kernel's code: TinyCC, the optimising C compiler, or the C++ compiler
 * (kernels a C compiler rejects). */
typedef enum { OP2_TIER_TCC = 0, OP2_TIER_CC = 1, OP2_TIER_CXX = 2 } op2_tier_id;
enum { OP2_NTIERS = 3 };

typedef struct op2_kernel op2_kernel;
op2_kernel_fn op2_kernel_entry(const op2_kernel *k); /* the code calls run now */
const char *op2_kernel_name(const op2_kernel *k);
op2_tier_id op2_kernel_tier(const op2_kernel *k);
op2_kernel_origin op2_kernel_origin_of(const op2_kernel *k);
/* The generated source in the cache (or where a failed one was kept), or NULL. */
const char *op2_kernel_source_path(const op2_kernel *k);
/* The hash of its generated source (one kernel per source). */
void op2_kernel_key(const op2_kernel *k, uint64_t key[2]);
double op2_kernel_upgrade_ms(const op2_kernel *k);    /* first call -> optimised code, or 0 */
double op2_kernel_cc_compile_ms(const op2_kernel *k); /* its optimising compile, or 0 */
/* An optimised build of this process is queued or running (op2_jit_poll collects it). */
bool op2_kernel_queued(const op2_kernel *k);
/* Its optimised code is still to come: queued here, or awaited from the machine's builder. */
bool op2_kernel_upgrading(const op2_kernel *k);
bool op2_kernel_awaiting_peer(const op2_kernel *k);
void op2_kernel_free(op2_kernel *k);
/* The CUDA targets' kernels. CUDA: its CUBIN (*len bytes) and its PTX, NUL-terminated, which the
 * driver compiles where the CUBIN does not run (NULL for cuda-emu). cuda-emu: op2_kernel_entry is
 * the emulated module's entry and op2_kernel_symbol finds its variables (with their size where
 * the object says, else 0). */
const void *op2_kernel_image(const op2_kernel *k, size_t *len);
const char *op2_kernel_ptx(const op2_kernel *k);
void *op2_kernel_symbol(const op2_kernel *k, const char *symbol, size_t *bytes);
/* The declared constants its kernel text uses, in declaration order (a loop's CUDA kernel). */
int op2_kernel_constants(const op2_kernel *k, op2_const *const **out);

/* ---- the engine ---- */
typedef enum { OP2_CACHE_OFF, OP2_CACHE_READONLY, OP2_CACHE_ON } op2_cache_mode;
typedef enum { OP2_JIT_TCC, OP2_JIT_CC, OP2_JIT_TIERED } op2_jit_mode;

/* How kernel objects are loaded (OP2_LOADER): every object is checked by the direct loader
 * first; then dlopen for the first OP2_DIRECT_AFTER objects and the direct loader after them
 * (auto), the direct loader (direct), or dlopen (dlopen). dlopen is always used for an object
 * that needs glibc's loader. */
typedef enum { OP2_LOADER_AUTO, OP2_LOADER_DIRECT, OP2_LOADER_DLOPEN } op2_loader_mode;
/* dlopen's cost per load grows with the objects loaded before; past this many the direct
 * loader's constant cost is the smaller (docs/CACHE.md, "Loading"). */
enum { OP2_DIRECT_AFTER = 256 };

/* What the engine is made from (runtime/ fills it from the user's options). */
typedef struct op2_jit_config {
  op2_jit_mode mode;
  char cc[1024];     /* optimising compiler */
  char cflags[1024]; /* its flags */
  char cxx[1024];    /* the C++ compiler for kernels that are not C, or "off" */
  int simd;          /* OP2_SIMD: 0 off, -1 auto, else lanes per group */
  int simd_width;    /* lanes the optimised tier uses: 0 scalar */
  op2_cache_mode cache_mode;
  char cache_dir[OP2_PATH_MAX];
  char
      template_dir[OP2_PATH_MAX]; /* read templates from here instead of the built-in ones, or "" */
  int diags;                      /* OP2_DIAGS: which diagnostics are worth formatting */
  int compiler_given;  /* OP2_CC or OP2_CFLAGS set by the user: their failure told at level 0 */
  int compile_timeout; /* OP2_COMPILE_TIMEOUT: seconds a child compiler may run (0: none) */
  int loader;          /* OP2_LOADER: an op2_loader_mode (cache_entry.h) */
  /* Prints one diagnostic of `level` (the caller decides who speaks, e.g. one rank): jit/ never
   * writes to stderr itself. */
  void (*diag)(int level, const char *msg);
} op2_jit_config;

typedef struct op2_jit op2_jit;
/* Finds the compilers, so a loop's first call pays only for its own kernel. OP2_ERR_MEM. */
int op2_jit_create(const op2_jit_config *cfg, op2_jit **out);
/* Stops the background tier and frees the engine; op2_jit_shutdown the kernels first. */
void op2_jit_destroy(op2_jit *jit);
/* The first failure since the last op2_jit_failure_clear (code OP2_OK when none). A jit call
 * that returns an error code has recorded it here (message, file, line); the caller reports it
 * once. */
const op2_jit_error *op2_jit_failure(const op2_jit *jit);
void op2_jit_failure_clear(op2_jit *jit);

/* ---- request -> result ---- */
/* What a kernel is made for: a row of jit/'s target table (targets.c), with its code generator,
 * its compile step and its cache entry's files. */
typedef enum {
  OP2_TARGET_C = 0,       /* C for the CPU: the tier ladder (TinyCC, optimising, C++) */
  OP2_TARGET_CUDA = 1,    /* a .cu for the GPU: NVRTC's CUBIN (and PTX) */
  OP2_TARGET_CUDA_EMU = 2 /* the same .cu compiled as C for the emulator */
} op2_target_id;
struct op2_cuda_layout;
typedef struct op2_jit_request {
  const op2_loop_desc *loop; /* NULL for the CUDA targets' halo gather kernel */
  const char *kernel_src;
  op2_target_id target;
  op2_kernel *const *loaded; /* the caller's kernels: a source already built is reused */
  int nloaded;
  /* or, when set, the caller's own search of its kernels by source hash: a walk of `loaded` for
   * each new loop costs O(kernels) (runtime/jit_use.c keeps a hash index) */
  op2_kernel *(*find_loaded)(void *arg, uint64_t key_hi, uint64_t key_lo);
  void *find_arg;
  /* the CUDA targets' */
  struct {
    const struct op2_cuda_layout *layout; /* how the loop runs (op2_cuda_layout_make, emit.h) */
    size_t gather_row_bytes;  /* instead of a loop: the halo gather kernel for rows this size */
    const char *arch;         /* "sm_XY" the code is for: part of the kernel's key */
    const char *ptxas;        /* "" or ptxas: resources into the manifest; cuda-emu: checks PTX */
    const char *verify_archs; /* cuda-emu: NVRTC builds for these proving the text is CUDA */
  } cuda;
} op2_jit_request;
typedef struct op2_jit_result {
  op2_kernel *kernel;      /* NULL on failure (op2_jit_failure says why) */
  bool fresh;              /* a new kernel: the caller keeps it and frees it (op2_kernel_free) */
  op2_jit_counters counts; /* compiles, disk hits and refused entries of this request */
} op2_jit_result;
/* Gives the loop its kernel for the request's target: one of `loaded`, the disk cache, or a
 * fresh compile (the kernel's origin and tier say which). */
int op2_jit_kernel(op2_jit *jit, const op2_jit_request *rq, op2_jit_result *res);
/* Frees a fresh kernel the caller cannot keep, with its pending build. */
void op2_jit_discard(op2_jit *jit, op2_kernel *k);
/* The hash of the loop's generated C source (what op2_jit_kernel keys its kernel by), for
 * backends that build their own kernels: ranks compare it (runtime/mpi/ranks.c). */
int op2_jit_source_hash(op2_jit *jit, const op2_loop_desc *loop, const char *kernel_src,
                        uint64_t hash[2]);

/* ---- the optimised build: poll, cancel, wait ---- */
/* Swaps in a finished optimised build (between two loop calls); says what became of the kernel's
 * background build. Finished and failed optimised builds are counted in *cnt. */
enum { OP2_JIT_NO_BUILD, OP2_JIT_BUILDING, OP2_JIT_BUILT, OP2_JIT_BUILD_FAILED };
int op2_jit_poll(op2_jit *jit, op2_kernel *k, op2_jit_counters *cnt);
/* The kernel's loop shape was superseded (a constant changed): its optimised build is dropped if
 * it has not started and not stored if it is running; op2_jit_poll collects it. */
void op2_jit_cancel(op2_kernel *k);
/* Blocks until every queued optimised build of `kernels` has finished (tests and benchmarks). */
void op2_jit_wait(op2_jit *jit, op2_kernel *const *kernels, int n, op2_jit_counters *cnt);
/* Adopts finished builds of `kernels` (so their handles close) and drops pending ones. */
void op2_jit_shutdown(op2_jit *jit, op2_kernel *const *kernels, int n, op2_jit_counters *cnt);
/* Sharing a machine's optimised builds (runtime/mpi/node_build.c decides who builds): a follower
 * never runs the optimising compiler in tiered mode nor writes the cache; its kernels wait
 * (op2_kernel_awaiting_peer) until it is told the builder's outcome: `stored`, its entry is
 * loaded if it is there and sound (0 when loaded); otherwise, or when it is not usable, the
 * kernel stays on TinyCC code (-1). */
void op2_jit_follow_node(op2_jit *jit, int follower);
int op2_jit_load_node_build(op2_jit *jit, op2_kernel *k, int stored);

/* ---- live constants (jit_constants.c) ---- */
/* The generated code names a live constant's pointer (C) or its __constant__ variable (CUDA)
 * with this prefix and the constant's name. */
#define OP2_LIVE_CONST_PREFIX "op2_live_"
/* Whether k's current code reads the live constants through pointers set already. */
bool op2_kernel_constants_bound(const op2_kernel *k);
/* Points k's current code at the values of the live constants it reads; once per code object. */
void op2_jit_bind_constants(op2_kernel *k, op2_const *const *consts, int nconsts);
/* The address of `symbol` in a loaded code object (an op2_object) or NULL; *bytes (if not NULL)
 * its size where the object says, else 0. */
void *op2_jit_symbol(void *dl_handle, const char *symbol, size_t *bytes);

/* ---- what the options and the tuner share with jit/ ---- */
/* The cache root this run may use (created if needed), or NULL: cache off, or the directory is
 * unusable or unsafe (said once per call with OP2_DIAGS). */
const char *op2_jit_cache_root(op2_jit *jit);
/* A program as the compiler tiers find it: a path (with a '/') or a name searched on PATH; its
 * resolved path in `out` (PATH_MAX bytes). 0 when it is an executable regular file, else -1. */
int op2_find_program(const char *name, char *out, size_t len);
/* Writes a file atomically: temp file in the same directory, then rename. OP2_OK, else
 * OP2_ERR_IO with the reason in *err (NULL: not wanted). */
int op2_write_file_atomic(const char *path, const void *data, size_t len, op2_jit_error *err);

#endif /* OP2_JIT_H */
