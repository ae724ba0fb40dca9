/* SPDX-License-Identifier: BSD-3-Clause */
/* How a loop runs on the GPU: the strategy, the staging groups and index rows of the
 * hierarchical strategy, the reduction records (cuda_layout.c). A description both layers read:
 * jit/ generates the kernel from it (jit/emit_cuda.c, codegen.c) and runtime/cuda/ builds the plan
 * and launches under the same layout (core.c, plan_cuda.c), so it lives below both. */
#ifndef OP2_CUDA_LAYOUT_H
#define OP2_CUDA_LAYOUT_H

#include "base/base.h"
#include "templates/cuda/params.h"

typedef enum {
  OP2_CUDA_DIRECT = 0,  /* no indirect data: one thread per element */
  OP2_CUDA_ATOMICS = 1, /* one thread per element, indirect increments as atomic adds */
  OP2_CUDA_GLOBAL = 2,  /* elements coloured, one launch per colour */
  OP2_CUDA_HIER = 3     /* OP2's blocks, shared-memory staging, thread colours */
} op2_cuda_strategy;
const char *op2_cuda_strategy_name(op2_cuda_strategy s);

enum { OP2_STAGE_READ = 1, OP2_STAGE_INC = 2, OP2_STAGE_RW = 3 };

/* Hierarchical staging group: the data one dat reaches from a block, through all of its maps
 * (one staged copy of each element, however many maps reach it). */
typedef struct op2_cuda_group {
  int dat_group;
  int first_arg; /* an argument of the group: its dat, type and dim */
  int mode;      /* OP2_STAGE_READ, _INC or _RW */
  int index_of;  /* the group whose staged element list and loc_map rows this one uses: an
                    earlier group reached through the very same (map, column) pairs stages the
                    same elements in the same order, so their local indices are one row */
} op2_cuda_group;

/* A (group, map, map column) triple: one loc_map row of local indices (groups sharing their
 * index rows have no slots of their own: op2_cuda_find_slot answers with their index group's). */
typedef struct op2_cuda_slot {
  int group, map_group, col;
  int arg; /* an argument through this map: its op_map */
} op2_cuda_slot;

typedef struct op2_cuda_layout {
  op2_cuda_strategy strategy;
  int ngroups, nslots, nmap_groups;
  op2_cuda_group groups[OP2_CUDA_MAX_ARGS];
  op2_cuda_slot slots[2 * OP2_CUDA_MAX_ARGS];
  int in_colour;                  /* hierarchical: the kernel runs in its thread colour's turn */
  int indirect_writes;            /* some dat is written through a map */
  int nred;                       /* global reductions */
  int red_rec_bytes;              /* one block's partial record: every reduction, 8-byte aligned */
  int red_off[OP2_CUDA_MAX_ARGS]; /* per argument: offset in the record (-1: none) */
  int red_thread_bytes;           /* reduction scratch per thread in shared memory */
  char why[160];                  /* why the strategy differs from the one asked for, or "" */
  int max_threads; /* the largest block it is launched with (__launch_bounds__), 0: unbounded */
} op2_cuda_layout;

/* Chooses the strategy (`asked` < 0: the default) and lays out staging and reductions. OP2_OK,
 * or OP2_ERR_ARG (a loop the CUDA strategies cannot run) with the reason in *err. */
int op2_cuda_layout_make(const op2_loop_desc *loop, int asked, op2_cuda_layout *out,
                         op2_jit_error *err);
int op2_cuda_find_group(const op2_cuda_layout *lay, const op2_arg_desc *d);
int op2_cuda_find_slot(const op2_cuda_layout *lay, int group, int map_group, int col);

/* What a CUDA target's kernel request adds (jit.h's op2_jit_request.cuda). */
typedef struct op2_cuda_request {
  const struct op2_cuda_layout *layout; /* how the loop runs (base/cuda_layout.h) */
  size_t gather_row_bytes;  /* instead of a loop: the halo gather kernel for rows this size */
  const char *arch;         /* "sm_XY" the code is for: part of the kernel's key */
  const char *ptxas;        /* "" or ptxas: resources into the manifest; cuda-emu: checks PTX */
  const char *verify_archs; /* cuda-emu: NVRTC builds for these proving the text is CUDA */
} op2_cuda_request;

#endif /* OP2_CUDA_LAYOUT_H */
