/* SPDX-License-Identifier: BSD-3-Clause */
/* The emulator's state as the emulated kernels see it. The cuda-emu backend
 * (runtime/backend_cuda_emu.c) includes this very file, and the emulation source has it before
 * templates/cuda/emu.h, so both sides agree on the layout. */
#ifndef OP2_EMU_ENV_H
#define OP2_EMU_ENV_H

typedef struct op2_uint3 {
  unsigned int x, y, z;
} op2_uint3;

typedef struct op2_emu_env {
  op2_uint3 thread_idx, block_idx, block_dim, grid_dim;
  char *shared; /* the block's dynamic shared memory */
  int tracing; /* count global memory sectors or check for races: accesses call touch */
  void (*sync)(int line);
  void (*touch)(int site, int line, int kind, const void *p, unsigned bytes);
} op2_emu_env;

#endif
