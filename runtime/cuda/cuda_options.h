/* SPDX-License-Identifier: BSD-3-Clause */
/* The CUDA backends' own options (OP2_CUDA_*, cuda_options.c): rows of the option table that
 * cuda and cuda-emu share, parsed at op_init with the core's whatever the backend, their values
 * kept with the other backends' options in the context (op2_option_values), not in op2_options.
 * No <cuda.h> here: tests that check the values include it without the driver's headers. */
#ifndef OP2_CUDA_OPTIONS_H
#define OP2_CUDA_OPTIONS_H

#include "base/base.h"
#include "runtime/options.h"

typedef struct op2_context op2_context;

/* OP2_CUDA_STRATEGY as the user asked; the backend maps it to its op2_cuda_strategy. */
typedef enum {
  OP2_CUDA_ASK_AUTO,
  OP2_CUDA_ASK_ATOMICS,
  OP2_CUDA_ASK_GLOBAL,
  OP2_CUDA_ASK_HIERARCHICAL
} op2_cuda_ask;

typedef struct op2_cuda_options {
  char driver[1024]; /* the driver library */
  int device;        /* ordinal, or -1: the rank on its node modulo the device count */
  char arch[16];     /* sm_XX, or "": the device's */
  int block_size;    /* threads per block of one-thread-per-element kernels */
  op2_cuda_ask strategy;
  char emu_verify[128];     /* emulator: also compile with NVRTC for these architectures */
  char ptxas[OP2_PATH_MAX]; /* emulator: and assemble the PTX with this ptxas, or "" */
  int emu_sectors;          /* emulator: count global-memory traffic */
  int emu_check;            /* emulator: report data races and barrier divergence */
  int emu_order;            /* emulator: 0 ascending, 1 reverse, 2 shuffled (seed below) */
  unsigned emu_seed;        /* emulator: the shuffle's seed */
} op2_cuda_options;

extern const op2_option_table op2_cuda_option_table;
/* This op_init's values (the defaults until op_init has read them). */
const op2_cuda_options *op2_cuda_options_of(const op2_context *ctx);

#endif /* OP2_CUDA_OPTIONS_H */
