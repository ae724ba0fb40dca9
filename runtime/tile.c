/* SPDX-License-Identifier: BSD-3-Clause */
/* The inspector of sparse tiling (tile.h): from a chain's sets, maps and item_access modes to the
 * elements of each loop in each tile, and the tiles' levels for threads. Every data item (one
 * element of one dat) remembers the latest tile that wrote it and the latest that read it in the
 * loops seen so far; a loop's element takes the latest tile it depends on. Tilings are cached by
 * the chain's signature (sets, dats, maps, columns, item_access modes, tile size) and the mesh. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/tile.h"
#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/mesh.h"
#include "runtime/options.h"

/* One dat's items: the latest tile (or level) that wrote and that read each element. */
typedef struct track {
  op_dat dat;
  int *w, *r;
  int *loop_w; /* the latest tile of the current loop that wrote each element */
} track;

/* One argument's items of an element: count entries from column first of map (NULL: direct). */
typedef struct item_access {
  int track;
  const int *map;
  int dim, first, count;
  bool writes;
} item_access;

typedef struct inspection {
  int n, ntracks;
  track *tracks;
  item_access *acc; /* per loop nacc[j] accesses from acc + acc_off[j] */
  int *acc_off;
} inspection;

static inline int item(const item_access *a, int i, int k) {
  return a->map ? a->map[(size_t)i * (size_t)a->dim + (size_t)(a->first + k)] : i;
}

static inline int max2(int a, int b) {
  return a > b ? a : b;
}

static bool is_data(const op_arg *a) {
  return a->kind == OP2_ARG_DAT && a->opt && a->dat;
}

/* A global sum: its terms come in element order only when the loop's elements do, on one
 * thread (on threads each tile sums into a partial of its own: tile_run.c). */
static bool sums_globally(const op2_tile_loop *l) {
  for (int i = 0; i < l->nargs; i++)
    if (l->args[i].kind == OP2_ARG_GBL && l->args[i].opt && l->args[i].acc == OP_INC) return true;
  return false;
}

static bool non_decreasing(const int *tile, int nelems) {
  for (int i = 1; i < nelems; i++)
    if (tile[i] < tile[i - 1]) return false;
  return true;
}

static void inspection_free(inspection *in) {
  for (int d = 0; d < in->ntracks; d++) {
    free(in->tracks[d].w);
    free(in->tracks[d].r);
    free(in->tracks[d].loop_w);
  }
  free(in->tracks);
  free(in->acc);
  free(in->acc_off);
}

static void tracks_reset(inspection *in) {
  for (int d = 0; d < in->ntracks; d++) {
    size_t bytes = op2_set_local_count(in->tracks[d].dat->set) * sizeof(int);
    memset(in->tracks[d].w, 0xff, bytes); /* -1: no tile yet */
    memset(in->tracks[d].r, 0xff, bytes);
  }
}

/* The chain's accesses, one track per distinct dat; false when out of memory. */
static bool inspection_make(inspection *in, const op2_tile_loop *loops, int n) {
  int total = 0;
  for (int j = 0; j < n; j++) total += loops[j].nargs;
  memset(in, 0, sizeof *in);
  in->n = n;
  in->tracks = calloc((size_t)total + 1, sizeof *in->tracks);
  in->acc = calloc((size_t)total + 1, sizeof *in->acc);
  in->acc_off = calloc((size_t)n + 1, sizeof *in->acc_off);
  if (!in->tracks || !in->acc || !in->acc_off) return false;
  int na = 0;
  for (int j = 0; j < n; j++) {
    in->acc_off[j] = na;
    for (int i = 0; i < loops[j].nargs; i++) {
      const op_arg *a = &loops[j].args[i];
      if (!is_data(a)) continue;
      int d = 0;
      while (d < in->ntracks && in->tracks[d].dat != a->dat) d++;
      if (d == in->ntracks) {
        size_t size = op2_set_local_count(a->dat->set) + 1; /* halos included (MPI) */
        track *t = &in->tracks[in->ntracks++];
        t->dat = a->dat;
        t->w = malloc(size * sizeof(int));
        t->r = malloc(size * sizeof(int));
        t->loop_w = malloc(size * sizeof(int));
        if (!t->w || !t->r || !t->loop_w) return false;
      }
      item_access *x = &in->acc[na++];
      x->track = d;
      x->writes = a->acc != OP_READ;
      x->map = a->map ? a->map->values : NULL;
      x->dim = a->map ? a->map->dim : 1;
      x->first = a->idx >= 0 ? a->idx : 0;
      x->count = !a->map || a->idx >= 0 ? 1 : -a->idx;
    }
  }
  in->acc_off[n] = na;
  tracks_reset(in);
  return true;
}

/* Seed block p's place in the tile order: in order on one thread; for threads the even blocks
 * first, then the odd ones, so each tile of a half is apart from the others of its half (and
 * tiles of one half tend to share a level). */
static int seed_rank(int p, int ntiles, bool threads) {
  if (!threads) return p;
  return p % 2 == 0 ? p / 2 : (ntiles + 1) / 2 + p / 2;
}

/* Loop j's tile of element i: the latest tile it depends on, else by locality. */
static int element_tile(const inspection *in, int j, int i, int nelems, int ntiles, bool threads) {
  int dep = -1, near = -1;
  for (int x = in->acc_off[j]; x < in->acc_off[j + 1]; x++) {
    const item_access *a = &in->acc[x];
    const track *t = &in->tracks[a->track];
    for (int k = 0; k < a->count; k++) {
      int e = item(a, i, k);
      dep = max2(dep, t->w[e]); /* read or written after a write */
      if (a->writes)
        dep = max2(dep, t->r[e]); /* written after a read */
      else
        near = max2(near, t->r[e]);
    }
  }
  if (dep >= 0) return dep;
  if (near >= 0) return near;
  long p = (long)i * ntiles / nelems;
  return seed_rank((int)(p < ntiles ? p : ntiles - 1), ntiles, threads);
}

/* One thread: an element may run in any tile from the latest it depends on (nothing of an
 * earlier loop depends on it), so each element takes the latest tile of the elements up to it;
 * then each tile's share of the loop is one range. Elements of a loop like Airfoil's res_calc,
 * whose edges alternate between neighbouring tiles, otherwise come in runs of 1.5 edges on
 * average (985641 runs for 1438600 edges at 720k), each a kernel call too short for its groups
 * of lanes. Kept only while no tile gets more than four times its even share (a loop whose
 * first elements depend on the last tile would otherwise run untiled, at the end). */
static void monotone_tiles(int *tile, int nelems, int ntiles) {
  enum { MAX_SHARE = 4 };
  long limit = MAX_SHARE * ((long)nelems / ntiles + 1), share = 0;
  for (int i = 0, latest = -1; i < nelems; i++) {
    if (tile[i] > latest) latest = tile[i], share = 0;
    if (++share > limit) return; /* uneven: the dependence tiles stay */
  }
  for (int i = 1; i < nelems; i++) tile[i] = max2(tile[i], tile[i - 1]);
}

/* Threads: tiles are not numbered in the order of their place in the set (seed_rank), so the
 * prefix maximum above would move most elements into the odd blocks' tiles. Instead an element
 * takes the latest tile whose elements of this loop come both before and after it (the latest
 * tile whose span covers it): where two neighbouring tiles' elements alternate, all go to the
 * later one, and each tile's share becomes one range when spans only overlap their neighbours'.
 * Kept only when that makes fewer runs and no tile gets more than four times its even share (a
 * far-away element stretches a span over many tiles). */
static int next_unpainted(int *next, int i) {
  int root = i;
  while (next[root] != root) root = next[root];
  while (next[i] != root) { /* path compression */
    int up = next[i];
    next[i] = root, i = up;
  }
  return root;
}

static void spanned_tiles(int *tile, int nelems, int ntiles) {
  enum { MAX_SHARE = 4 };
  int *first = malloc((size_t)ntiles * sizeof(int)), *last = malloc((size_t)ntiles * sizeof(int));
  int *out = malloc((size_t)nelems * sizeof(int)),
      *next = malloc(((size_t)nelems + 1) * sizeof(int));
  long *share = calloc((size_t)ntiles, sizeof(long)), runs = 0, newruns = 0;
  long limit = MAX_SHARE * ((long)nelems / ntiles + 1);
  bool ok = first && last && out && next && share;
  for (int b = 0; ok && b < ntiles; b++) first[b] = nelems, last[b] = -1;
  for (int i = 0; ok && i < nelems; i++) {
    int b = tile[i];
    if (first[b] == nelems) first[b] = i;
    last[b] = i;
    runs += i == 0 || tile[i] != tile[i - 1];
  }
  ok = ok && runs > ntiles; /* else already one range a tile */
  /* the latest tiles first, each painting the elements of its span no later tile painted */
  for (int i = 0; ok && i <= nelems; i++) next[i] = i;
  for (int b = ntiles - 1; ok && b >= 0; b--)
    for (int i = last[b] < 0 ? nelems : next_unpainted(next, first[b]); i <= last[b];
         i = next_unpainted(next, i + 1)) {
      out[i] = b, next[i] = i + 1;
      if (++share[b] > limit) ok = false; /* uneven: the dependence tiles stay */
    }
  for (int i = 0; ok && i < nelems; i++) newruns += i == 0 || out[i] != out[i - 1];
  if (ok && newruns < runs) memcpy(tile, out, (size_t)nelems * sizeof *tile);
  free(first), free(last), free(out), free(next), free(share);
}

/* After loop j: its tiles recorded on the items it touched. False when two updates of one item
 * by this loop now come in another order than the elements'. */
static bool record_loop(inspection *in, int j, const int *tile, int nelems) {
  bool in_order = true;
  for (int x = in->acc_off[j]; x < in->acc_off[j + 1]; x++) {
    const item_access *a = &in->acc[x];
    if (a->writes)
      memset(in->tracks[a->track].loop_w, 0xff,
             op2_set_local_count(in->tracks[a->track].dat->set) * sizeof(int));
  }
  for (int i = 0; i < nelems; i++)
    for (int x = in->acc_off[j]; x < in->acc_off[j + 1]; x++) {
      const item_access *a = &in->acc[x];
      track *t = &in->tracks[a->track];
      for (int k = 0; k < a->count; k++) {
        int e = item(a, i, k);
        if (!a->writes) {
          t->r[e] = max2(t->r[e], tile[i]);
          continue;
        }
        t->w[e] = max2(t->w[e], tile[i]);
        if (t->loop_w[e] > tile[i]) in_order = false;
        t->loop_w[e] = max2(t->loop_w[e], tile[i]);
      }
    }
  return in_order;
}

/* Loop j's elements by tile as [begin, end) runs; false when out of memory. */
static bool make_runs(op2_tiling *t, int j, const int *tile, int nelems) {
  int K = t->ntiles;
  int *count = calloc((size_t)K + 1, sizeof(int)), *last = malloc((size_t)K * sizeof(int));
  if (!count || !last) {
    free(count), free(last);
    return false;
  }
  /* A run starts where an element's tile differs from the previous element's. */
  for (int i = 0; i < nelems; i++)
    if (i == 0 || tile[i] != tile[i - 1]) count[tile[i] + 1]++;
  for (int b = 0; b < K; b++) count[b + 1] += count[b];
  t->run_offset[j] = count;
  t->runs[j] = malloc(2 * (size_t)(count[K] ? count[K] : 1) * sizeof(int));
  if (!t->runs[j]) {
    free(last);
    return false;
  }
  for (int b = 0; b < K; b++) last[b] = count[b];
  for (int i = 0; i < nelems; i++) {
    if (i > 0 && tile[i] == tile[i - 1]) {
      t->runs[j][2 * (last[tile[i]] - 1) + 1] = i + 1;
      continue;
    }
    int r = last[tile[i]]++;
    t->runs[j][2 * r] = i, t->runs[j][2 * r + 1] = i + 1;
  }
  free(last);
  return true;
}

/* Tile b's level: above every earlier tile it shares an item with where either writes. */
static void level_tiles(op2_tiling *t, inspection *in, int *level) {
  tracks_reset(in); /* w: the highest level writing an item; r: the highest touching it */
  for (int pass = 0; pass < 2 * t->ntiles; pass++) {
    int b = pass / 2, lv = -1;
    bool update = pass % 2;
    for (int j = 0; j < t->nloops; j++)
      for (int q = t->run_offset[j][b]; q < t->run_offset[j][b + 1]; q++)
        for (int i = t->runs[j][2 * q]; i < t->runs[j][2 * q + 1]; i++)
          for (int x = in->acc_off[j]; x < in->acc_off[j + 1]; x++) {
            const item_access *a = &in->acc[x];
            track *tr = &in->tracks[a->track];
            for (int k = 0; k < a->count; k++) {
              int e = item(a, i, k);
              if (update) {
                tr->r[e] = max2(tr->r[e], level[b]);
                if (a->writes) tr->w[e] = max2(tr->w[e], level[b]);
              } else {
                lv = max2(lv, a->writes ? max2(tr->w[e], tr->r[e]) : tr->w[e]);
              }
            }
          }
    if (!update) level[b] = lv + 1;
  }
}

static void tiling_free(op2_tiling *t) {
  if (!t) return;
  for (int j = 0; j < t->nloops; j++) {
    if (t->run_offset) free(t->run_offset[j]);
    if (t->runs) free(t->runs[j]);
  }
  free(t->run_offset);
  free(t->runs);
  free(t->level_offset);
  free(t->tile_order);
  free(t);
}

/* The tile order by level (counting sort: tile order within a level). */
static bool order_by_level(op2_tiling *t, const int *level) {
  int K = t->ntiles, nlevels = 0;
  for (int b = 0; b < K; b++) nlevels = max2(nlevels, level[b] + 1);
  t->nlevels = nlevels;
  t->level_offset = calloc((size_t)nlevels + 2, sizeof(int));
  t->tile_order = malloc((size_t)K * sizeof(int));
  if (!t->level_offset || !t->tile_order) return false;
  for (int b = 0; b < K; b++) t->level_offset[level[b] + 2]++;
  for (int l = 0; l < nlevels; l++) t->level_offset[l + 2] += t->level_offset[l + 1];
  for (int b = 0; b < K; b++) t->tile_order[t->level_offset[level[b] + 1]++] = b;
  return true;
}

/* The elements loop j runs: elements[j], else its set's. */
static int elements_of(const op2_tile_loop *loops, const int *elements, int j) {
  return elements ? elements[j] : loops[j].set->size;
}

static op2_tiling *inspect(const op2_tile_loop *loops, const int *elements, int n, int size,
                           bool threads) {
  double t0 = op2_wall_seconds();
  inspection in;
  op2_tiling *t = calloc(1, sizeof *t);
  int maxn = 1;
  for (int j = 0; j < n; j++) maxn = max2(maxn, elements_of(loops, elements, j));
  int *tile = malloc((size_t)maxn * sizeof(int)), *level = NULL;
  bool ok = inspection_make(&in, loops, n) && t && tile;
  if (ok) {
    t->nloops = n;
    t->ntiles = (int)(((long)elements_of(loops, elements, 0) + size - 1) / size);
    t->updates_in_order = true;
    t->run_offset = calloc((size_t)n, sizeof *t->run_offset);
    t->runs = calloc((size_t)n, sizeof *t->runs);
    level = calloc((size_t)t->ntiles, sizeof(int));
    ok = t->run_offset && t->runs && level;
  }
  for (int j = 0; ok && j < n; j++) {
    int N = elements_of(loops, elements, j);
    for (int i = 0; i < N; i++)
      tile[i] = j == 0 ? seed_rank(i / size, t->ntiles, threads)
                       : element_tile(&in, j, i, N, t->ntiles, threads);
    if (!threads && j > 0) monotone_tiles(tile, N, t->ntiles);
    if (threads && j > 0) spanned_tiles(tile, N, t->ntiles);
    if (!record_loop(&in, j, tile, N)) t->updates_in_order = false;
    if (sums_globally(&loops[j]) && t->ntiles > 1 && (threads || !non_decreasing(tile, N)))
      t->updates_in_order = false;
    ok = make_runs(t, j, tile, N);
  }
  if (ok && threads) level_tiles(t, &in, level); /* one thread: every tile at level 0 */
  ok = ok && order_by_level(t, level);
  free(tile);
  free(level);
  inspection_free(&in);
  if (!ok) {
    tiling_free(t);
    return NULL;
  }
  t->inspect_seconds = op2_wall_seconds() - t0;
  return t;
}

/* ---- the cache ---- */

/* Every chain of a program's time step or multigrid cycle must fit: the entries are reused in
 * turn, so a cycle of more chains than entries evicts each tiling just before it is needed again
 * and inspects every chain on every call. A tiling is small (a run per tile and loop, mostly). */
enum { CACHE_MAX = 64 };

typedef struct cache_entry {
  uintptr_t *key;
  size_t nkey;
  op2_tiling *tiling; /* NULL when declined */
  bool declined;
} cache_entry;

struct op2_tile_cache {
  cache_entry entries[CACHE_MAX];
  int count, next; /* next: the entry replaced when full */
  op2_tile_counts counts;
};

/* The signature: the mesh (sets and maps declared, renumbering), tile size, threads, and each
 * loop's set and arguments (kind, dat and its set, map, column, item_access). NULL: out of memory.
 */
static uintptr_t *make_key(const op2_context *ctx, const op2_tile_loop *loops, const int *elements,
                           int n, int size, bool threads, size_t *len) {
  size_t nkey = 6;
  for (int j = 0; j < n; j++) nkey += 3 + 6 * (size_t)loops[j].nargs;
  uintptr_t *k = malloc(nkey * sizeof *k), *p = k;
  if (!k) return NULL;
  *p++ = (uintptr_t)ctx->sets.count, *p++ = (uintptr_t)ctx->maps.count;
  *p++ = (uintptr_t)ctx->renumbered, *p++ = (uintptr_t)size, *p++ = threads, *p++ = (uintptr_t)n;
  for (int j = 0; j < n; j++) {
    *p++ = (uintptr_t)loops[j].set, *p++ = (uintptr_t)loops[j].nargs;
    *p++ = (uintptr_t)elements_of(loops, elements, j);
    for (int i = 0; i < loops[j].nargs; i++) {
      const op_arg *a = &loops[j].args[i];
      bool data = is_data(a);
      *p++ = (uintptr_t)(data ? a->kind : 0), *p++ = (uintptr_t)(data ? a->dat : NULL);
      *p++ = (uintptr_t)(data ? a->dat->set : NULL), *p++ = (uintptr_t)(data ? a->map : NULL);
      *p++ = (uintptr_t)(data ? a->idx : 0), *p++ = (uintptr_t)(data ? a->acc : 0);
    }
  }
  *len = nkey;
  return k;
}

const op2_tiling *op2_tiling_get(op2_context *ctx, op2_tile_cache **cache,
                                 const op2_tile_loop *loops, int n, int size, bool threads) {
  return op2_tiling_get_ranges(ctx, cache, loops, NULL, n, size, threads);
}

const op2_tiling *op2_tiling_get_ranges(op2_context *ctx, op2_tile_cache **cache,
                                        const op2_tile_loop *loops, const int *elements, int n,
                                        int size, bool threads) {
  return op2_tiling_get_settled(ctx, cache, loops, elements, n, size, threads, 0, 0);
}

/* The cache's entry for this key, or NULL. */
static const cache_entry *cache_find(const op2_tile_cache *c, const uintptr_t *key, size_t nkey) {
  for (int e = 0; e < c->count; e++)
    if (c->entries[e].nkey == nkey && memcmp(c->entries[e].key, key, nkey * sizeof *key) == 0)
      return &c->entries[e];
  return NULL;
}

/* A new tiling, counted and described (OP2_DIAGS); NULL when out of memory. */
static op2_tiling *inspect_counted(op2_tile_cache *c, const op2_tile_loop *loops,
                                   const int *elements, int n, int size, bool threads) {
  op2_tiling *t = inspect(loops, elements, n, size, threads);
  if (!t) return NULL;
  c->counts.inspections++;
  for (int j = 0; j < n; j++) {
    int most = 0; /* the most elements of this loop in one tile: how far runs are from even */
    for (int b = 0; b < t->ntiles; b++) {
      int m = 0;
      for (int q = t->run_offset[j][b]; q < t->run_offset[j][b + 1]; q++)
        m += t->runs[j][2 * q + 1] - t->runs[j][2 * q];
      most = max2(most, m);
    }
    op2_diag(2, "OP2_TILE: loop '%s' (%d elements) in %d runs, at most %d elements a tile",
             loops[j].name, elements_of(loops, elements, j), t->run_offset[j][t->ntiles], most);
  }
  op2_diag(1,
           "OP2_TILE: chain of %d loops from '%s' (set '%s', %d elements) in %d tiles of %d, "
           "%d level%s%s, updates %s, inspected in %.2f ms",
           n, loops[0].name, loops[0].set->name, elements_of(loops, elements, 0), t->ntiles, size,
           t->nlevels, t->nlevels == 1 ? "" : "s", threads ? " for threads" : " (one thread)",
           t->updates_in_order ? "in element order" : "in another order than the elements'",
           1e3 * t->inspect_seconds);
  return t;
}

const op2_tiling *op2_tiling_get_settled(op2_context *ctx, op2_tile_cache **cache,
                                         const op2_tile_loop *loops, const int *elements, int n,
                                         int size, bool threads, int max_levels, int doublings) {
  if (!*cache && !(*cache = calloc(1, sizeof **cache))) return NULL;
  op2_tile_cache *c = *cache;
  size_t nkey;
  uintptr_t *key = make_key(ctx, loops, elements, n, size, threads, &nkey);
  if (!key) return NULL;
  const cache_entry *hit = cache_find(c, key, nkey);
  if (hit) {
    free(key);
    if (hit->declined) c->counts.declined++;
    return hit->tiling;
  }
  /* The doublings happen once per chain: only the tiling they settle on is kept, under the key
   * of the size asked for (or that none was: declined). Kept each under its own size, a chain
   * that doubles four times took five entries, and mg3d's V-cycle (a dozen chains, 20 sizes)
   * cycled through more than the cache held, so every chain was inspected again, doublings
   * included, on every call, and tiled mg3d ran many times slower than untiled
   * (docs/PERFORMANCE.md, the mg3d section of "Sparse tiling with update in the chain").
   * A chain's levels about halve with each doubling (mg3d: 50, 25, 13, 7, 4), so the first
   * inspection says how many doublings to start with, and one at a time after that (on an
   * irregular mesh levels need not fall); beyond `doublings`, when no size would do, the chain
   * is declined: it runs untiled, and is not inspected again. */
  int seed_elements = elements_of(loops, elements, 0);
  op2_tiling *t = inspect_counted(c, loops, elements, n, size, threads);
  bool declined = false;
  if (t && max_levels > 0 && t->nlevels > max_levels) {
    int k = 1;
    while (k <= doublings && t->nlevels > max_levels << k) k++;
    for (; t && t->nlevels > max_levels && k <= doublings && size << (k - 1) < seed_elements; k++) {
      op2_tiling *wider = inspect_counted(c, loops, elements, n, size << k, threads);
      tiling_free(t);
      t = wider;
    }
    if (t && t->nlevels > max_levels) {
      op2_diag(1,
               "OP2_TILE: chain of %d loops from '%s' runs untiled: more than %d levels with "
               "tiles up to %d times %d elements",
               n, loops[0].name, max_levels, 1 << doublings, size);
      tiling_free(t);
      t = NULL, declined = true;
      c->counts.declined++;
    }
  }
  if (!t && !declined) {
    free(key);
    return NULL;
  }
  int e = c->count < CACHE_MAX ? c->count++ : c->next++ % CACHE_MAX;
  free(c->entries[e].key);
  tiling_free(c->entries[e].tiling);
  c->entries[e] = (cache_entry){key, nkey, t, declined};
  return t;
}

/* OP2_TILE=auto: tiles whose data fills half of the L2 cache (sysconf, else 1 MiB): the bytes
 * the chain touches per seed element (each loop's dat and map bytes per element, times its
 * elements per seed element), between 64 and 65536 elements. On threads the whole L2 (each
 * thread's core has its own): tiles of one level must be further apart than the chain's reach
 * through the mesh, and narrower ones chain into many levels (run_tiled then doubles the size,
 * inspecting again); Airfoil 720k, 2 threads: 243 levels at half the L2, 2 at all of it. */
int op2_tile_size(const op2_context *ctx, const op2_tile_loop *loops, int n, bool threads) {
  if (ctx->opt.tile == 0 || n < 2 || loops[0].set->size < 1) return 0;
  if (ctx->opt.tile > 0) return ctx->opt.tile;
  double bytes = 0;
  for (int j = 0; j < n; j++) {
    double per = 0;
    for (int i = 0; i < loops[j].nargs; i++) {
      const op_arg *a = &loops[j].args[i];
      if (!is_data(a)) continue;
      int count = !a->map || a->idx >= 0 ? 1 : -a->idx;
      per += count * ((double)a->dat->elem_size + (a->map ? 4.0 : 0.0));
    }
    bytes += per * loops[j].set->size / loops[0].set->size;
  }
  long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  double target = (l2 > 0 ? (double)l2 : 1048576.0) / (threads ? 1 : 2);
  double size = bytes > 0 ? target / bytes : 65536;
  return size < 64 ? 64 : size > 65536 ? 65536 : (int)size;
}

op2_tile_counts *op2_tile_counts_of(op2_tile_cache *cache) {
  return &cache->counts;
}

void op2_tile_cache_free(op2_tile_cache *c) {
  if (!c) return;
  for (int e = 0; e < c->count; e++) {
    free(c->entries[e].key);
    tiling_free(c->entries[e].tiling);
  }
  free(c);
}
