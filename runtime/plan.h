/* SPDX-License-Identifier: BSD-3-Clause */
/* Execution plans (plan.c, colour.c, ownership.c): a loop's element range in blocks of
 * part_size elements, coloured so that blocks of one colour write no element in common, or laid
 * out in thread-owned runs. Backends read them (backend.h); the loop keeps one per phase. */
#ifndef OP2_RUNTIME_PLAN_H
#define OP2_RUNTIME_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "op2.h"
#include "runtime/error.h"

typedef struct op2_context op2_context;
typedef struct op2_loop op2_loop;

typedef struct op2_plan {
  op_set set;
  int begin, end; /* the element range planned: the whole set, or one MPI phase of it */
  int part_size;
  int layout_threads; /* the thread count its layout was tried for (1: coloured only) */
  int nblocks;        /* block b covers [begin + b*part_size, min(begin + (b+1)*part_size, end)) */
  int ncolours;
  int *colour_offset; /* ncolours+1 offsets into blocks_by_colour */
  int *blocks_by_colour;
  int *block_colour; /* per block */
  int nwrites;       /* indirect written (map, idx) pairs that keyed the plan */
  op_map *write_maps;
  int *write_idx; /* -k for a vector argument */
  /* Thread-owned layout (ownership.c), used by the OpenMP backend when owner_threads matches its
   * thread count: thread t runs runs[2k..2k+1] for k in [thread_run_offset[t],
   * thread_run_offset[t+1]), then one thread runs the nshared_runs shared runs that follow. */
  int owner_threads; /* 0 when not built (one thread, or too many shared elements) */
  int *thread_run_offset;
  int *runs; /* [begin, end) pairs */
  int nshared_runs;
  long nshared;
  double build_seconds;
} op2_plan;

int op2_plan_get(op2_context *ctx, const op2_loop *loop, int begin, int end, op2_plan **out);
/* The same with a part size and a thread count for the layout (1: block colouring only). */
int op2_plan_get_for(op2_context *ctx, const op2_loop *loop, int begin, int end, int part,
                     int nthreads, op2_plan **out);
/* nthreads > 1: try a thread-owned layout first; when it succeeds the blocks are not coloured. */
int op2_plan_build(op_set set, int begin, int end, int part_size, int nwrites, const op_map *maps,
                   const int *idx, int nthreads, op2_plan **out);
void op2_plan_free(op2_plan *plan);
/* The plan's layout in words (records, profiles): "thread-owned", "coloured, part size N", or
 * "default" for no plan. */
void op2_plan_describe(const op2_plan *plan, char *out, size_t len);
/* Block colouring (colour.c): fills colour[b] for every block; returns the number of colours, or
 * -1 when out of memory. */
int op2_colour_blocks(int begin, int end, int part_size, int nwrites, const op_map *maps,
                      const int *idx, int nblocks, int *colour);
int op2_plan_build_ownership(op2_plan *p, int nthreads, double max_shared_fraction);
/* Whether the plan keeps its promises (plan_check.c): its blocks cover its range; coloured, each
 * block is listed once under its colour and no two blocks of one colour write one element;
 * thread-owned, its runs cover its range once and no two threads' private runs write one
 * element. OP2_OK, or OP2_ERR_STATE with the first broken promise in *why. The sanitizer build
 * checks every plan it builds (OP2_ASSERT). */
int op2_plan_check(const op2_plan *p, op2_jit_error *why);

#endif /* OP2_RUNTIME_PLAN_H */
