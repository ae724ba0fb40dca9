/* SPDX-License-Identifier: BSD-3-Clause */
/* Sparse tiling of a lazy chain (OP2_TILE; runtime/tile.c inspects, tile_run.c executes). The
 * chain's first loop (the seed) is cut into blocks of `size` consecutive elements, one tile
 * each; every later loop's element joins a tile chosen loop by loop through the maps so that
 * running the tiles in order, each tile its part of every loop in chain order, keeps every
 * dependence of the untiled run. The rule (docs/OPTIONS.md#op2_tile): an element of loop j goes
 * to the latest tile among those that, in loops before j, wrote a data item it reads or writes,
 * or read an item it writes; with no such tile, the latest tile that read an item it reads
 * (locality), else the tile of its relative position in its set; on one thread, then the latest
 * tile of the elements up to it (one range per tile and loop); on threads, the latest tile whose
 * elements of the loop come before and after it (one range where tiles overlap only their
 * neighbours). A loop with a global reduction may end the chain. Tiles, in that order, are then
 * levelled for threads: a tile's level is one more than the highest level of an earlier tile
 * sharing an item with it that either writes; tiles of one level run in parallel. */
#ifndef OP2_RUNTIME_TILE_H
#define OP2_RUNTIME_TILE_H

#include <stdbool.h>

#include "op2.h"

typedef struct op2_context op2_context;
typedef struct op2_exec op2_exec;

/* One queued call as the inspector sees it: its set and arguments (access modes, maps, dats). */
typedef struct op2_tile_loop {
  const char *name;
  op_set set;
  int nargs;
  const op_arg *args;
} op2_tile_loop;

typedef struct op2_tiling {
  int nloops, ntiles, nlevels;
  int *level_offset;     /* nlevels + 1 offsets into tile_order */
  int *tile_order;       /* tiles by level; within a level in tile order */
  int **run_offset;      /* per loop: ntiles + 1 offsets into its runs */
  int **runs;            /* per loop: [begin, end) element ranges, by tile, increasing within one */
  bool updates_in_order; /* each item's updates by one loop come in element order, as untiled */
  double inspect_seconds;
} op2_tiling;

/* Counts since op_init, for tests and statistics. */
typedef struct op2_tile_counts {
  unsigned long chains;       /* chains run tiled */
  unsigned long inspections;  /* tilings built (the others came from the cache) */
  unsigned long tiles;        /* tiles run */
  unsigned long out_of_order; /* tiled chains whose updates of an item may come in another order */
  unsigned long reductions;   /* tiled chains ending with a loop with a global reduction */
  unsigned long declined;     /* chains run untiled: too many levels (op2_tiling_get_settled) */
} op2_tile_counts;

typedef struct op2_tile_cache op2_tile_cache;

/* The tile size for the chain under OP2_TILE (0: run it untiled), for threads when `threads`. */
int op2_tile_size(const op2_context *ctx, const op2_tile_loop *loops, int n, bool threads);

/* The tiling of the chain for tile size `size`, levelled for threads when `threads`, from the
 * cache (*cache created on first use) or inspected now; NULL when it cannot be built (out of
 * memory: the chain then runs untiled). Valid until the cache is freed. */
const op2_tiling *op2_tiling_get(op2_context *ctx, op2_tile_cache **cache,
                                 const op2_tile_loop *loops, int n, int size, bool threads);

/* The same for loops that run elements[j] elements, [0, elements[j]) (under MPI a loop that
 * writes through a map runs its exec halo too: runtime/chain_mpi.c), not their sets' sizes; the
 * items they touch may be any the rank holds, halos included. */
const op2_tiling *op2_tiling_get_ranges(op2_context *ctx, op2_tile_cache **cache,
                                        const op2_tile_loop *loops, const int *elements, int n,
                                        int size, bool threads);

/* The same, but when max_levels > 0 and the tiling has more levels than that: inspected again
 * with tiles 2^k times as large, k <= doublings, guessed from the levels (they about halve with
 * each doubling); NULL (declined: the chain runs untiled, counted in `declined`) when it still
 * has more. The result, declined too, is cached under `size`: a chain is inspected once. */
const op2_tiling *op2_tiling_get_settled(op2_context *ctx, op2_tile_cache **cache,
                                         const op2_tile_loop *loops, const int *elements, int n,
                                         int size, bool threads, int max_levels, int doublings);

/* Runs the captured calls (execs[k] for loop k, their data bound and code ready) tile by tile,
 * a level's tiles on ctx->nthreads threads when the backend is threaded. */
void op2_tile_run(op2_context *ctx, const op2_tiling *t, const op2_exec *const *execs,
                  bool threads);

op2_tile_counts *op2_tile_counts_of(op2_tile_cache *cache);
void op2_tile_cache_free(op2_tile_cache *cache);

#endif /* OP2_RUNTIME_TILE_H */
