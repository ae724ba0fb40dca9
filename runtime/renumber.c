/* SPDX-License-Identifier: BSD-3-Clause */
/* Locality renumbering. Elements of a primary set are put in reverse Cuthill-McKee order of the
 * graph a map induces on it (two elements are neighbours when one element of the map's from-set
 * reaches both), or with OP2_RENUMBER=blocks cut into parts numbered together
 * (renumber_blocks.c); every other set connected by maps follows, each element placed by the
 * smallest new index it is linked to. Users never see the new order: declarations, fetches, prints
 * and op_arg_idx translate through each set's original-index table. */
#include <stdlib.h>
#include <string.h>

#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/alloc.h"
#include "runtime/mpi_state.h"
#include "runtime/mesh.h"
#include "runtime/loop.h"
#include "runtime/plan.h"
#include "runtime/chain.h"
#include "runtime/renumber_blocks.h"

typedef op2_graph graph;

/* Plan blocks per part with OP2_RENUMBER=blocks. Parts of one block leave every block reaching
 * about 10 parts, each through a few scattered boundary nodes; parts of 4 blocks moved the fewest
 * 32-byte sectors in cuda-emu's hierarchical strategy on mg3d (res_edge on 32^3: 2.365 sectors per
 * edge, against 2.525 with parts of 1 block, 2.377 with 16, 2.435 for reverse Cuthill-McKee). */
#define OP2_BLOCKS_PER_PART 4
#define RENUMBER_STR_(x) #x
#define RENUMBER_STR(x) RENUMBER_STR_(x)

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Neighbours in the to-set of `base`: targets that share a from-element. `tv` holds the map's
 * targets as local indices, -1 for one this process does not own (under MPI: left out). */
static int build_graph(op_map base, const int *tv, graph *g) {
  int n = base->to->size, d = base->dim;
  long nf = base->from->size;
  g->n = n;
  g->offset = calloc((size_t)n + 1, sizeof(int));
  if (!g->offset) return -1;
  for (long f = 0; f < nf; f++)
    for (int i = 0; i < d; i++)
      if (tv[f * d + i] >= 0) g->offset[tv[f * d + i] + 1] += d - 1;
  for (int v = 0; v < n; v++) g->offset[v + 1] += g->offset[v];
  g->adj = malloc((size_t)(g->offset[n] ? g->offset[n] : 1) * sizeof(int));
  int *fill = calloc((size_t)n + 1, sizeof(int));
  if (!g->adj || !fill) return free(fill), -1;
  for (long f = 0; f < nf; f++)
    for (int i = 0; i < d; i++) {
      int v = tv[f * d + i];
      if (v < 0) continue;
      for (int j = 0; j < d; j++)
        if (j != i && tv[f * d + j] >= 0) g->adj[g->offset[v] + fill[v]++] = tv[f * d + j];
    }
  /* sort and de-duplicate each list in place, then compact */
  int w = 0;
  for (int v = 0; v < n; v++) {
    int b = g->offset[v], e = g->offset[v] + fill[v];
    qsort(g->adj + b, (size_t)(e - b), sizeof(int), cmp_int);
    g->offset[v] = w;
    for (int k = b; k < e; k++)
      if ((k == b || g->adj[k] != g->adj[k - 1]) && g->adj[k] != v) g->adj[w++] = g->adj[k];
  }
  g->offset[n] = w;
  free(fill);
  return 0;
}

/* Reverse Cuthill-McKee: breadth-first from a low-degree element of each component, neighbours
 * by increasing degree; order[new] = old. */
static int rcm(const graph *g, int *order) {
  int n = g->n, head = 0, tail = 0;
  char *seen = calloc((size_t)n + 1, 1);
  int *by_degree = malloc(sizeof(int) * ((size_t)n + 1));
  if (!seen || !by_degree) return free(seen), free(by_degree), -1;
  /* counting sort of elements by degree gives the start candidates */
  int maxdeg = 0;
  for (int v = 0; v < n; v++) {
    int dg = g->offset[v + 1] - g->offset[v];
    if (dg > maxdeg) maxdeg = dg;
  }
  int *count = calloc((size_t)maxdeg + 2, sizeof(int));
  if (!count) return free(seen), free(by_degree), -1;
  for (int v = 0; v < n; v++) count[g->offset[v + 1] - g->offset[v] + 1]++;
  for (int k = 0; k <= maxdeg; k++) count[k + 1] += count[k];
  for (int v = 0; v < n; v++) by_degree[count[g->offset[v + 1] - g->offset[v]]++] = v;
  free(count);
  for (int s = 0; s < n; s++) {
    int start = by_degree[s];
    if (seen[start]) continue;
    seen[start] = 1;
    order[tail++] = start;
    while (head < tail) {
      int v = order[head++], first = tail;
      for (int k = g->offset[v]; k < g->offset[v + 1]; k++) {
        int u = g->adj[k];
        if (!seen[u]) seen[u] = 1, order[tail++] = u;
      }
      /* insertion sort of the new neighbours by degree: lists are short */
      for (int a = first + 1; a < tail; a++) {
        int u = order[a], du = g->offset[u + 1] - g->offset[u], b = a - 1;
        while (b >= first && g->offset[order[b] + 1] - g->offset[order[b]] > du)
          order[b + 1] = order[b], b--;
        order[b + 1] = u;
      }
    }
  }
  for (int i = 0; i < n / 2; i++) {
    int t = order[i];
    order[i] = order[n - 1 - i];
    order[n - 1 - i] = t;
  }
  free(seen), free(by_degree);
  return 0;
}

/* Orders `set` by key[e] (smallest new index it is linked to), stable in the old order. */
typedef struct keyed {
  int key, old;
} keyed;

static int cmp_keyed(const void *a, const void *b) {
  const keyed *x = a, *y = b;
  if (x->key != y->key) return (x->key > y->key) - (x->key < y->key);
  return (x->old > y->old) - (x->old < y->old);
}

static int order_by_keys(const int *key, int n, int *order) {
  keyed *k = malloc(sizeof(keyed) * ((size_t)n + 1));
  if (!k) return -1;
  for (int e = 0; e < n; e++) k[e].key = key[e], k[e].old = e;
  qsort(k, (size_t)n, sizeof *k, cmp_keyed);
  for (int e = 0; e < n; e++) order[e] = k[e].old;
  free(k);
  return 0;
}

/* Rows of `rows` (n of `bytes`) put in `order` (new -> old) in place, through `scratch`: the
 * array keeps its allocation (under MPI, the room the halo build grows it into). */
static void permute_rows(char *rows, const int *order, int n, size_t bytes, char *scratch) {
  memcpy(scratch, rows, (size_t)n * bytes);
  for (int e = 0; e < n; e++)
    memcpy(rows + (size_t)e * bytes, scratch + (size_t)order[e] * bytes, bytes);
}

/* Applies order (new -> old) to one set: its dats, the rows of maps from it, the values of maps
 * into it (`distributed`: no, they hold global ids until the halo build makes them local), and
 * its original-index tables (under MPI only orig, local -> global; the inverse is not kept). */
static int apply(op2_context *ctx, op_set set, const int *order, bool distributed) {
  int n = set->size;
  size_t widest = sizeof(idx_g_t);
  for (int i = 0; i < ctx->dats.count; i++) {
    op_dat d = ctx->dats.items[i];
    if (d->set == set && d->elem_bytes > widest) widest = d->elem_bytes;
  }
  for (int i = 0; i < ctx->maps.count; i++) {
    op_map m = ctx->maps.items[i];
    if (m->from == set && op2_map_row_bytes(m) > widest) widest = op2_map_row_bytes(m);
  }
  int *rank = malloc(sizeof(int) * ((size_t)n + 1));
  idx_g_t *orig = malloc(sizeof(idx_g_t) * ((size_t)n + 1));
  char *scratch = malloc(widest * ((size_t)n + 1));
  if (!rank || !orig || !scratch) return free(rank), free(orig), free(scratch), -1;
  for (int e = 0; e < n; e++) rank[order[e]] = e;
  for (int e = 0; e < n; e++) orig[e] = set->orig ? set->orig[order[e]] : order[e];
  for (int i = 0; i < ctx->dats.count; i++) {
    op_dat d = ctx->dats.items[i];
    if (d->set == set) permute_rows(d->data, order, n, d->elem_bytes, scratch);
  }
  for (int i = 0; i < ctx->maps.count; i++) {
    op_map m = ctx->maps.items[i];
    if (m->from == set) permute_rows(*op2_map_rows(m), order, n, op2_map_row_bytes(m), scratch);
    if (m->to == set && !distributed)
      for (size_t k = 0; k < (size_t)m->from->size * (size_t)m->dim; k++)
        m->values[k] = rank[m->values[k]];
  }
  free(scratch);
  free(set->orig);
  free(set->rank);
  free(set->orig_int);
  set->orig_int = NULL;
  set->orig = orig;
  if (distributed) return free(rank), 0;
  for (int e = 0; e < n; e++) rank[orig[e]] = e;
  set->rank = rank;
  return 0;
}

/* Key of each element of `set` from a neighbouring set that already has its order. */
static int derive_keys(op_map m, const int *tv, op_set set, const int *other_rank, int *key) {
  int n = set->size;
  for (int e = 0; e < n; e++) key[e] = m->to == set && m->from != set ? 0x7fffffff : 0;
  if (m->from == set) { /* smallest new index among my targets */
    for (int e = 0; e < n; e++) {
      int best = 0x7fffffff;
      for (int c = 0; c < m->dim; c++) {
        int t = tv[(size_t)e * m->dim + c];
        if (t >= 0 && other_rank[t] < best) best = other_rank[t];
      }
      key[e] = best;
    }
  } else { /* smallest new index among the elements that reach me */
    for (long f = 0; f < m->from->size; f++)
      for (int c = 0; c < m->dim; c++) {
        int t = tv[f * m->dim + c];
        if (t >= 0 && other_rank[f] < key[t]) key[t] = other_rank[f];
      }
  }
  return 0;
}

/* OP2_DIAGS=1 with OP2_RENUMBER=blocks: how many parts one plan block of the base map's
 * from-set is drawn from (its elements' own parts: that of their first target in the new order;
 * 1 or 2 when blocks follow parts) and how many its targets reach (the parts next to those). */
static void report_parts_per_block(op2_context *ctx, op_map base, const int *tv, const int *order,
                                   const int *primary_rank, const int *part, int nparts) {
  int n = base->from->size, ps = ctx->opt.part_size, d = base->dim;
  int *stamp = malloc(sizeof(int) * 2 * ((size_t)nparts + 1));
  if (ctx->opt.diags < 1 || !stamp || n == 0) return free(stamp);
  int *own_stamp = stamp + nparts + 1;
  for (int p = 0; p < nparts; p++) stamp[p] = own_stamp[p] = -1;
  long reached = 0, own = 0;
  int blocks = 0;
  for (int b = 0; b * ps < n; b++, blocks++)
    for (int i = b * ps; i < n && i < (b + 1) * ps; i++) {
      int first = -1;
      for (int c = 0; c < d; c++) {
        int t = tv[(size_t)order[i] * d + c];
        if (t < 0) continue;
        if (stamp[part[t]] != b) stamp[part[t]] = b, reached++;
        if (first < 0 || primary_rank[t] < primary_rank[first]) first = t;
      }
      if (first >= 0 && own_stamp[part[first]] != b) own_stamp[part[first]] = b, own++;
    }
  free(stamp);
  op2_diag(1,
           "renumbered in blocks: '%s' cut into %d parts of about %d; a block of %d '%s' is "
           "drawn from %.2f parts on average and reaches %.2f",
           base->to->name, nparts, base->to->size / (nparts ? nparts : 1), ps, base->from->name,
           (double)own / blocks, (double)reached / blocks);
}

int op2_renumber_local(op2_context *ctx, op_map base, int *const *targets) {
  bool distributed = targets != NULL;
#define TARGETS(m) (distributed ? targets[(m)->index] : (m)->values)
  op_set primary = base->to;
  int nsets = ctx->sets.count;
  /* new_rank[s]: for each ordered set, old -> new, until applied at the end */
  int **new_rank = calloc((size_t)nsets, sizeof(int *));
  int **orders = calloc((size_t)nsets, sizeof(int *));
  graph g = {0};
  int rc = new_rank && orders ? build_graph(base, TARGETS(base), &g) : -1;
  if (rc == 0) {
    orders[primary->index] = malloc(sizeof(int) * ((size_t)primary->size + 1));
    new_rank[primary->index] = malloc(sizeof(int) * ((size_t)primary->size + 1));
    rc = orders[primary->index] && new_rank[primary->index] ? rcm(&g, orders[primary->index]) : -1;
  }
  /* OP2_RENUMBER=blocks: parts of the primary set sized so that each draws OP2_BLOCKS_PER_PART
   * plan blocks of the base map's from-set (its elements follow their smallest target). */
  int *part = NULL, nparts = 0, err = OP2_OK;
  if (rc == 0 && ctx->opt.renumber == OP2_RENUMBER_BLOCKS) {
    long from = base->from->size, per_part = (long)ctx->opt.part_size * OP2_BLOCKS_PER_PART;
    nparts = (int)((from + per_part - 1) / per_part);
    if (!(part = malloc(sizeof(int) * ((size_t)primary->size + 1)))) rc = -1;
    if (rc == 0) err = op2_renumber_blocks(&g, nparts, orders[primary->index], part);
    if (err != OP2_OK) rc = -2;
  }
  if (rc == 0)
    for (int e = 0; e < primary->size; e++) new_rank[primary->index][orders[primary->index][e]] = e;
  /* Spread the order along maps until no set can be reached any more. */
  for (int changed = 1; rc == 0 && changed;) {
    changed = 0;
    for (int i = 0; rc == 0 && i < ctx->maps.count; i++) {
      op_map m = ctx->maps.items[i];
      op_set known = new_rank[m->to->index] ? m->to : m->from;
      op_set next = known == m->to ? m->from : m->to;
      if (!new_rank[known->index] || new_rank[next->index] || next->size == 0) continue;
      int n = next->size;
      int *key = malloc(sizeof(int) * ((size_t)n + 1));
      orders[next->index] = malloc(sizeof(int) * ((size_t)n + 1));
      new_rank[next->index] = malloc(sizeof(int) * ((size_t)n + 1));
      rc = key && orders[next->index] && new_rank[next->index] ? 0 : -1;
      if (rc == 0) derive_keys(m, TARGETS(m), next, new_rank[known->index], key);
      if (rc == 0) rc = order_by_keys(key, n, orders[next->index]);
      if (rc == 0)
        for (int e = 0; e < n; e++) new_rank[next->index][orders[next->index][e]] = e;
      free(key);
      changed = 1;
    }
  }
  if (rc == 0 && part && orders[base->from->index])
    report_parts_per_block(ctx, base, TARGETS(base), orders[base->from->index],
                           new_rank[primary->index], part, nparts);
  for (int s = 0; rc == 0 && s < nsets; s++)
    if (orders[s]) rc = apply(ctx, ctx->sets.items[s], orders[s], distributed);
  for (int s = 0; s < nsets && orders; s++) free(orders[s]), free(new_rank[s]);
  free(orders), free(new_rank), free(g.offset), free(g.adj), free(part);
  if (rc == -2) return err;
  if (rc != 0) return op2_error(OP2_ERR_MEM, "op_renumber: out of memory");
  /* Plans and loop shapes hold old map values: drop them (compiled kernels stay). */
  for (int i = 0; i < ctx->plans.count; i++) op2_plan_free(ctx->plans.items[i]);
  ctx->plans.count = 0;
  op2_loop_sites_clear(ctx);
  for (int i = 0; i < ctx->loops.count; i++) op2_loop_free(ctx->loops.items[i]);
  ctx->loops.count = 0;
  op2_loops_index_reset(ctx);
  ctx->renumbered = 1;
#undef TARGETS
  return OP2_OK;
}

const char *op2_renumber_method(const op2_context *ctx) {
  return ctx->opt.renumber == OP2_RENUMBER_BLOCKS
             ? "Scotch parts of " RENUMBER_STR(OP2_BLOCKS_PER_PART) " plan blocks, numbered "
               "together in reverse Cuthill-McKee order"
             : "reverse Cuthill-McKee";
}

int op2_renumber(op2_context *ctx, op_map base) {
  double t0 = op2_wall_seconds();
  OP2_CALL(op2_maps_check_all(ctx, "renumbering", true));
  OP2_CALL(op2_renumber_local(ctx, base, NULL));
  op2_maps_seal_all(ctx); /* rows and values in the new order */
  op2_diag(1, "renumbered for locality: %s on '%s' through map '%s' in %.3f s",
           op2_renumber_method(ctx), base->to->name, base->name, op2_wall_seconds() - t0);
  return OP2_OK;
}

/* The automatic choice: the set carrying the most dat bytes among those some map points into
 * from another set, through the map that reaches it from the most elements. */
op_map op2_renumber_pick_base(op2_context *ctx) {
  op_map best = NULL;
  double best_bytes = -1;
  long best_links = -1;
  for (int i = 0; i < ctx->maps.count; i++) {
    op_map m = ctx->maps.items[i];
    if (m->from == m->to || m->to->size == 0 || m->dim < 2) continue;
    double bytes = 0;
    for (int j = 0; j < ctx->dats.count; j++) {
      op_dat d = ctx->dats.items[j];
      if (d->set == m->to) bytes += (double)d->elem_bytes * d->set->size;
    }
    long links = (long)m->from->size * m->dim;
    if (bytes > best_bytes || (bytes == best_bytes && links > best_links))
      best = m, best_bytes = bytes, best_links = links;
  }
  return best;
}

void op_renumber(op_map base) {
  op2_context *ctx = op2_ctx();
  if (op2_require_init("op_renumber") != OP2_OK) return;
  op2_chain_flush(ctx, "op_renumber"); /* lazy execution: queued loops first */
  if (!base) {
    op2_error(OP2_ERR_ARG, "op_renumber: map is NULL");
    return;
  }
  if (base->dim < 2) {
    op2_error(OP2_ERR_ARG,
              "op_renumber '%s': a map of arity %d links no two elements (need 2 "
              "or more)",
              base->name, base->dim);
    return;
  }
  if (ctx->mpi.size > 1) { /* each rank renumbers its own part once it holds it */
    if (ctx->mpi_distributed)
      op2_diag(1,
               "op_renumber: ignored under MPI after the distribution (call it before the "
               "first loop or op_partition)");
    else
      ctx->renumber_base = base;
    return;
  }
  op2_renumber(ctx, base);
}
