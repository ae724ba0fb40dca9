/* SPDX-License-Identifier: BSD-3-Clause */
/* The user's options (options.c): one table, read once at op_init from the environment and
 * argv, checked there whatever the backend, never changed afterwards. */
#ifndef OP2_RUNTIME_OPTIONS_H
#define OP2_RUNTIME_OPTIONS_H

#include "jit/jit.h"
#include "jit/paths.h"

/* Under MPI: did each rank declare its block, or every rank the whole mesh? */
typedef enum { OP2_DECL_AUTO, OP2_DECL_LOCAL, OP2_DECL_REPLICATED } op2_decl_mode;
/* OP2_CUDA_STRATEGY as the user asked; the CUDA backend maps it to its op2_cuda_strategy. */
typedef enum {
  OP2_CUDA_ASK_AUTO,
  OP2_CUDA_ASK_ATOMICS,
  OP2_CUDA_ASK_GLOBAL,
  OP2_CUDA_ASK_HIERARCHICAL
} op2_cuda_ask;

/* OP2_TILE=auto: the tile size is chosen from the cache size (runtime/tile.c). */
enum { OP2_TILE_AUTO = -1 };

/* OP2_TUNE: persistent auto-tuning of per-loop parameters (tune.c). */
typedef enum { OP2_TUNE_OFF, OP2_TUNE_ON, OP2_TUNE_RESET } op2_tune_mode;

typedef struct op2_options {
  char backend[32];
  int part_size;
  int diags;
  op2_cache_mode cache_mode;
  op2_jit_mode jit_mode;
  int renumber; /* reorder sets for locality before the first loop */
  op2_decl_mode mpi_decl;
  char cc[1024];     /* optimising compiler */
  char cflags[1024]; /* its flags (with the SIMD flags when simd_width > 0) */
  char cxx[1024];    /* OP2_CXX: the C++ compiler for kernels TinyCC rejects, or "off" */
  int simd;          /* OP2_SIMD: 0 off, -1 auto, else lanes per group */
  int simd_width;    /* lanes the optimised tier uses: 0 scalar */
  char profile_json[OP2_PATH_MAX]; /* where op_exit writes per-loop statistics, or "" */
  char cache_dir[OP2_PATH_MAX];
  char template_dir[OP2_PATH_MAX]; /* developers: templates from here, not the built-in ones */
  char restart[OP2_PATH_MAX];      /* OP2_RESTART: the checkpoint this run restarts from, or "" */
  int ptscotch_check;              /* PT-Scotch checks its distributed graph (costly) */
  double partition_keep; /* op_partition keeps declared blocks this good (keep_blocks.c) */
  int huge_pages;        /* large arrays advised as transparent huge pages (util.c) */
  int maps_base_index;   /* OP2's argv entry OP_MAPS_BASE_INDEX=1: map values count from 1 */

  int compile_timeout; /* OP2_COMPILE_TIMEOUT: seconds a child compiler may run (0: none) */
  int loader_dlopen;   /* OP2_LOADER=dlopen: kernel objects through glibc only (gdb, perf) */
  /* CUDA backends */
  char cuda_driver[1024]; /* the driver library */
  int cuda_device;        /* ordinal, or -1: the rank on its node modulo the device count */
  char cuda_arch[16];     /* sm_XX, or "": the device's */
  int cuda_block_size;    /* threads per block of one-thread-per-element kernels */
  op2_cuda_ask cuda_strategy;
  char cuda_emu_verify[128];     /* emulator: also compile with NVRTC for these architectures */
  char cuda_ptxas[OP2_PATH_MAX]; /* emulator: and assemble the PTX with this ptxas, or "" */
  int cuda_emu_sectors;          /* emulator: count global-memory traffic */
  char kernel_path[8192];        /* OP2_KERNEL_PATH: where op_kernel_file looks, ':'-separated */
  char fault[64];         /* testing aid: "STEP:RANK" fails STEP on RANK (runtime/mpi/agree.c) */
  double mpi_timeout;     /* OP2_MPI_TIMEOUT: longest wait in an agreement, seconds; 0 none */
  long long test_id_base; /* testing aid, OP2_TEST_ID_BASE: under MPI global ids start here */
  int cuda_emu_check;     /* emulator: report data races and barrier divergence */
  int cuda_emu_order;     /* emulator: 0 ascending, 1 reverse, 2 shuffled (seed below) */
  unsigned cuda_emu_seed; /* emulator: the shuffle's seed */
  int tune;               /* op2_tune_mode */
  int compiler_given;     /* OP2_CC or OP2_CFLAGS set: their first failure is always told */
  int lazy;               /* OP2_LAZY: op_par_loop queues its call (runtime/chain.c) */
  int lazy_chain;         /* OP2_LAZY_CHAIN: the most calls queued before the chain runs */
  int fuse;               /* OP2_FUSE: consecutive direct loops on one set run fused */
  int tile; /* OP2_TILE: the lazy chain's tile size in elements, 0 off, OP2_TILE_AUTO */
} op2_options;

/* The user's options: defaults, then the environment, then argv entries OP2_NAME=value. The
 * values are never changed afterwards; a backend keeps its effective values in its own data. */
int op2_options_read(op2_options *opt, int argc, char **argv, int diags);
/* The option table, for tests that go over every option. */
int op2_option_count(void);
const char *op2_option_name(int i);
/* Warns (at any OP2_DIAGS) of OP2_* variables and argv entries OP2_NAME=value that are no
 * option, with the nearest option's name when one is close. */
void op2_options_warn_unknown(int argc, char **argv);

#endif /* OP2_RUNTIME_OPTIONS_H */
