/* SPDX-License-Identifier: BSD-3-Clause */
/* Halo construction (OP2's design), after every element has moved to its owner:
 *   1. a directory of who owns each global element;          2. the owner of every map target;
 *   3. core elements (every target owned here) first;         4. export exec halo: owned elements
 *      whose targets another rank owns — it runs them too;    5. those elements' records shipped;
 *   6. non-exec halo: targets still missing here, asked from their owners;
 *   7. map values translated from global to local indices;
 *   8. each dat's rows (owned, exec halo, room for the non-exec halo) in one new array.
 * The halo lists are filled on the way (steps 4-6).
 * Each step is a function with explicit inputs and outputs. A rank that fails locally may return
 * early: every collective here is an op2_alltoallv, which first agrees on success, so the others
 * learn of the failure at their next one and nobody waits for messages that never come. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/mpi/op2_mpi.h"
#include "runtime/invariant.h"
#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/alloc.h"
#include "runtime/mpi_state.h"
#include "runtime/mesh.h"

static int cmp_long(const void *x, const void *y) {
  long a = *(const long *)x, b = *(const long *)y;
  return (a > b) - (a < b);
}

/* Per-set working state while the halos are built. */
typedef struct set_work {
  op2_directory dir;
  op2_global_index owned; /* this rank's elements of the set, until step 3 reorders them */
  int **target_owner;     /* per map from this set (context map index): owner rank of each entry */
  char *exec_records;     /* the exec halo's records as received: their dat rows are placed last */
} set_work;

/* Step 2: the owner rank of every entry of a map. Most targets are this rank's own: they need no
 * message, and only the others are asked of the directory (collective: every rank asks, maybe
 * nothing). */
static int target_owners(op2_context *ctx, op_map m, const set_work *to, int **out) {
  long n = (long)m->from->size * m->dim, nq = 0;
  int *own = malloc(sizeof(int) * ((size_t)n + 1)), *answer = NULL;
  long *ask = malloc(sizeof(long) * ((size_t)n + 1)), *at = malloc(sizeof(long) * ((size_t)n + 1));
  int rc = own && ask && at ? OP2_OK : op2_error(OP2_ERR_MEM, "halo: out of memory");
  for (long k = 0; rc == OP2_OK && k < n; k++) {
    idx_g_t g = op2_map_gid(ctx, m, (size_t)k);
    if (op2_global_index_find(&to->owned, g) >= 0)
      own[k] = ctx->mpi.rank;
    else
      ask[nq] = g, at[nq++] = k;
  }
  if (rc == OP2_OK && !(answer = malloc(sizeof(int) * ((size_t)nq + 1))))
    rc = op2_error(OP2_ERR_MEM, "halo: out of memory");
  if (rc == OP2_OK) rc = op2_dir_query(ctx, &to->dir, nq, ask, answer, NULL);
  for (long q = 0; rc == OP2_OK && q < nq; q++) own[at[q]] = answer[q];
  free(ask), free(at), free(answer);
  if (rc != OP2_OK) free(own), own = NULL;
  *out = own;
  return rc;
}

/* Moves the rows of `rows` (n rows of `bytes`) so that the core rows come first, in their order,
 * then the others, in place: core rows move down a run at a time, the others wait in `aside`
 * (room for the non-core rows). In place, because a new array of a large mesh's rows costs more
 * in the kernel's zeroing of its fresh pages than in the copy. */
static void core_rows_first(char *rows, const char *core, int n, size_t bytes, char *aside) {
  size_t kept = 0, set_aside = 0;
  for (int e = 0; e < n;) {
    int run = 1;
    while (e + run < n && core[e + run] == core[e]) run++;
    size_t span = (size_t)run * bytes;
    if (core[e]) {
      if (kept != (size_t)e * bytes) memmove(rows + kept, rows + (size_t)e * bytes, span);
      kept += span;
    } else {
      memcpy(aside + set_aside, rows + (size_t)e * bytes, span);
      set_aside += span;
    }
    e += run;
  }
  memcpy(rows + kept, aside, set_aside);
}

/* Step 3: reorder owned elements so that core elements come first, in their order, then the
 * others: the set's dats, its maps' rows, their target owners and orig. */
static int put_core_first(op2_context *ctx, op_set set, set_work *w, int me) {
  int n = set->size;
  char *core = malloc((size_t)n + 1);
  if (!core) return op2_error(OP2_ERR_MEM, "halo: out of memory");
  for (int e = 0; e < n; e++) core[e] = 1;
  size_t maxrow = sizeof(idx_g_t);
  for (int i = 0; i < ctx->maps.count; i++) {
    op_map m = ctx->maps.items[i];
    if (m->from != set) continue;
    if (op2_map_row_bytes(m) > maxrow) maxrow = op2_map_row_bytes(m);
    for (int e = 0; e < n; e++)
      for (int c = 0; c < m->dim; c++) core[e] &= w->target_owner[i][(size_t)e * m->dim + c] == me;
  }
  int ncore = 0, first_other = n;
  for (int e = n - 1; e >= 0; e--) ncore += core[e], first_other = core[e] ? first_other : e;
  set->core_size = ncore;
  if (first_other == ncore) return free(core), OP2_OK; /* the core came first already */
  for (int i = 0; i < ctx->dats.count; i++) {
    op_dat d = ctx->dats.items[i];
    if (d->set == set && d->elem_bytes > maxrow) maxrow = d->elem_bytes;
  }
  char *aside = malloc(maxrow * (size_t)(n - ncore) + 1);
  if (!aside) return free(core), op2_error(OP2_ERR_MEM, "halo: out of memory");
  for (int i = 0; i < ctx->dats.count; i++) {
    op_dat d = ctx->dats.items[i];
    if (d->set == set) core_rows_first(d->data, core, n, d->elem_bytes, aside);
  }
  for (int i = 0; i < ctx->maps.count; i++) {
    op_map m = ctx->maps.items[i];
    if (m->from != set) continue;
    core_rows_first(*op2_map_rows(m), core, n, op2_map_row_bytes(m), aside);
    core_rows_first((char *)w->target_owner[i], core, n, sizeof(int) * (size_t)m->dim, aside);
  }
  core_rows_first((char *)set->orig, core, n, sizeof(idx_g_t), aside);
  free(aside), free(core);
  return OP2_OK;
}

static int list_alloc(op2_halo_list *l, int nranks, int nelements) {
  l->nranks = nranks;
  l->ranks = malloc(sizeof(int) * ((size_t)nranks + 1));
  l->offset = calloc((size_t)nranks + 1, sizeof(int));
  l->elements = malloc(sizeof(int) * ((size_t)nelements + 1));
  return l->ranks && l->offset && l->elements ? OP2_OK : op2_error(OP2_ERR_MEM, "halo: oom");
}

/* Fills a list from per-rank counts (and, for exports, the elements grouped by rank). */
static int list_from_counts(op2_halo_list *l, int p, const int *counts, const int *elements) {
  int nranks = 0, total = 0;
  for (int q = 0; q < p; q++) nranks += counts[q] > 0, total += counts[q];
  OP2_CALL(list_alloc(l, nranks, total));
  int k = 0;
  for (int q = 0; q < p; q++) {
    if (!counts[q]) continue;
    l->ranks[k] = q;
    l->offset[k + 1] = l->offset[k] + counts[q];
    k++;
  }
  if (elements) memcpy(l->elements, elements, sizeof(int) * (size_t)total);
  return OP2_OK;
}

/* The exec halo's received elements go after the owned ones, in arrival order: their global
 * indices and map rows now (the later steps read them); their dat rows are placed at the end
 * (place_dat_rows), once the non-exec halo's size is known too, so every dat is copied once. */
static int append_exec_maps(op2_context *ctx, op_set set, const char *recv, long nrecv) {
  size_t n = (size_t)set->size, rb = op2_record_bytes(ctx, set);
  idx_g_t *orig = realloc(set->orig, sizeof(idx_g_t) * (n + (size_t)nrecv + 1));
  if (!orig) return op2_error(OP2_ERR_MEM, "halo: out of memory");
  set->orig = orig;
  char **map_rows = calloc((size_t)ctx->maps.count + 1, sizeof(char *));
  int rc = map_rows ? OP2_OK : op2_error(OP2_ERR_MEM, "halo: out of memory");
  for (int i = 0; rc == OP2_OK && i < ctx->maps.count; i++) {
    op_map m = ctx->maps.items[i];
    if (m->from != set) continue;
    size_t row = op2_map_row_bytes(m);
    char **rows = op2_map_rows(m);
    char *grown = op2_aligned_grow(*rows, n * row, (n + (size_t)nrecv) * row);
    if (!grown)
      rc = op2_error(OP2_ERR_MEM, "halo: out of memory");
    else
      *rows = map_rows[i] = grown;
  }
  for (long k = 0; rc == OP2_OK && k < nrecv; k++) {
    set->orig[n + (size_t)k] = op2_record_global(recv + k * rb);
    op2_record_unpack(ctx, set, recv + k * rb, (int)(n + (size_t)k), NULL, map_rows);
  }
  if (rc == OP2_OK) set->exec_size = (int)nrecv;
  free(map_rows);
  return rc;
}

/* Step 4: the (owned element, other rank) pairs, an element once for each other rank that owns
 * one of its targets, in local order. The arrays are sized for the most pairs there can be (an
 * element's other ranks are at most its targets and at most p - 1): pages never written are
 * never backed, so the bound costs address space only and the list needs no growing. */
static int exec_items(const op2_context *ctx, op_set set, const set_work *w, int **local_out,
                      int **dest_out, long *n_out) {
  int p = ctx->mpi.size, me = ctx->mpi.rank, targets = 0;
  for (int i = 0; i < ctx->maps.count; i++) {
    op_map m = ctx->maps.items[i];
    if (m->from == set) targets += m->dim;
  }
  size_t most = (size_t)set->size * (size_t)(targets < p - 1 ? targets : p - 1) + 1;
  int *local = malloc(sizeof(int) * most), *dest = malloc(sizeof(int) * most);
  char *seen = calloc((size_t)p, 1);
  long n = 0;
  if (!local || !dest || !seen) {
    free(local), free(dest), free(seen);
    *local_out = *dest_out = NULL, *n_out = 0;
    return op2_error(OP2_ERR_MEM, "halo: out of memory");
  }
  for (int e = 0; e < set->size; e++) {
    memset(seen, 0, (size_t)p);
    for (int i = 0; i < ctx->maps.count; i++) {
      op_map m = ctx->maps.items[i];
      if (m->from != set) continue;
      for (int c = 0; c < m->dim; c++) {
        int q = w->target_owner[i][(size_t)e * m->dim + c];
        if (q == me || seen[q]) continue;
        seen[q] = 1;
        local[n] = e, dest[n++] = q;
      }
    }
  }
  free(seen);
  *local_out = local, *dest_out = dest, *n_out = n;
  return OP2_OK;
}

/* Steps 4-5: owned elements some other rank must run, shipped to it as records. A local failure
 * goes on to op2_ship, which agrees on it before anything moves. */
static int exec_halo(op2_context *ctx, op_set set, set_work *w) {
  int p = ctx->mpi.size;
  int *item_local, *item_dest;
  long nitems;
  int rc = exec_items(ctx, set, w, &item_local, &item_dest, &nitems);
  int *counts = malloc(sizeof(int) * 2 * (size_t)p);
  long *globals = malloc(sizeof(long) * ((size_t)nitems + 1));
  if (rc == OP2_OK && (!counts || !globals)) rc = op2_error(OP2_ERR_MEM, "halo: out of memory");
  if (rc == OP2_OK && op2_fault(ctx, "halo")) /* as if out of memory, once the mesh is half moved */
    rc = op2_error(OP2_ERR_STATE, "halo: set '%s': failure injected by OP2_FAULT", set->name);
  /* export list: the items grouped by destination, in local order within each */
  void *grouped = NULL;
  if (rc == OP2_OK)
    rc = op2_group_by_rank(p, nitems, item_local, item_dest, sizeof(int), &grouped, counts);
  if (rc == OP2_OK) rc = list_from_counts(&set->halo->exp_exec, p, counts, grouped);
  free(grouped);
  for (long k = 0; rc == OP2_OK && k < nitems; k++) globals[k] = set->orig[item_local[k]];
  char *recv = NULL;
  long nrecv = 0;
  rc = op2_ship(ctx, rc, set, nitems, item_local, globals, item_dest, &recv,
                counts ? counts + p : NULL, &nrecv);
  free(globals), free(item_local), free(item_dest);
  if (rc == OP2_OK) rc = list_from_counts(&set->halo->imp_exec, p, counts + p, NULL);
  if (rc == OP2_OK) rc = append_exec_maps(ctx, set, recv, nrecv);
  if (rc == OP2_OK) w->exec_records = recv, recv = NULL; /* their dat rows: place_dat_rows */
  free(recv), free(counts);
  return rc;
}

/* Step 8: every dat of the set grown to its final rows (in place, in the room its declaration
 * left: op2_halo_room): the owned rows stay, the exec halo's rows come from the records received,
 * and the non-exec rows are zeroed (the first exchange fills them). */
static int place_dat_rows(op2_context *ctx, op_set set, const set_work *w) {
  size_t owned = (size_t)set->size, with_exec = owned + (size_t)set->exec_size;
  size_t rows = with_exec + (size_t)set->nonexec_size, rb = op2_record_bytes(ctx, set);
  char **dat_data = calloc((size_t)ctx->dats.count + 1, sizeof(char *));
  int rc = dat_data ? OP2_OK : op2_error(OP2_ERR_MEM, "halo: out of memory");
  for (int i = 0; rc == OP2_OK && i < ctx->dats.count; i++) {
    op_dat d = ctx->dats.items[i];
    if (d->set != set) continue;
    char *data = op2_aligned_grow(d->data, owned * d->elem_bytes, rows * d->elem_bytes);
    if (!data) {
      rc = op2_error(OP2_ERR_MEM, "halo: out of memory");
    } else {
      memset(data + with_exec * d->elem_bytes, 0, (rows - with_exec) * d->elem_bytes);
      d->data = dat_data[i] = data;
      d->halo_dirty = true; /* non-exec rows are empty until the first exchange */
    }
  }
  for (long k = 0; rc == OP2_OK && k < set->exec_size; k++)
    op2_record_unpack(ctx, set, w->exec_records + k * rb, (int)(owned + k), dat_data, NULL);
  free(dat_data);
  return rc;
}

/* Step 6: targets referenced by owned and exec rows that are neither owned nor exec halo here. */
static int nonexec_halo(op2_context *ctx, op_set t, const op2_global_index *known,
                        const set_work *w) {
  int p = ctx->mpi.size;
  long cap = 1024, n = 0;
  long *want = malloc(sizeof(long) * (size_t)cap);
  if (!want) return op2_error(OP2_ERR_MEM, "halo: out of memory");
  for (int i = 0; i < ctx->maps.count; i++) {
    op_map m = ctx->maps.items[i];
    if (m->to != t) continue;
    size_t entries = ((size_t)m->from->size + (size_t)m->from->exec_size) * (size_t)m->dim;
    for (size_t k = 0; k < entries; k++) {
      idx_g_t g = op2_map_gid(ctx, m, k);
      if (op2_global_index_find(known, g) >= 0) continue;
      if (n == cap) {
        long *nw = realloc(want, sizeof(long) * (size_t)(cap *= 2));
        if (!nw) return free(want), op2_error(OP2_ERR_MEM, "halo: out of memory");
        want = nw;
      }
      want[n++] = g;
    }
  }
  qsort(want, (size_t)n, sizeof(long), cmp_long);
  long u = 0;
  for (long k = 0; k < n; k++)
    if (k == 0 || want[k] != want[k - 1]) want[u++] = want[k];
  int *owner = malloc(sizeof(int) * ((size_t)u + 1));
  int *counts = malloc(sizeof(int) * 2 * (size_t)p);
  int rc = owner && counts ? OP2_OK : op2_error(OP2_ERR_MEM, "halo: out of memory");
  /* The directory of step 1 says who owns each element (owners did not change since; local
   * indices did, in step 3). */
  if (rc == OP2_OK) rc = op2_dir_query(ctx, &w->dir, u, want, owner, NULL);
  void *grouped = NULL, *asked = NULL;
  long nasked = 0;
  /* import order: by owner rank, then global index (want is sorted and grouping is stable) */
  if (rc == OP2_OK) rc = op2_group_by_rank(p, u, want, owner, sizeof(long), &grouped, counts);
  if (rc == OP2_OK) rc = list_from_counts(&t->halo->imp_nonexec, p, counts, NULL);
  /* the owners get the globals asked of them and export those elements: their local indices */
  rc = op2_alltoallv(ctx, rc, grouped, counts, sizeof(long), &asked, counts ? counts + p : NULL,
                     &nasked);
  int *local = rc == OP2_OK ? malloc(sizeof(int) * ((size_t)nasked + 1)) : NULL;
  if (rc == OP2_OK && !local) rc = op2_error(OP2_ERR_MEM, "halo: out of memory");
  for (long k = 0; rc == OP2_OK && k < nasked; k++) {
    local[k] = op2_global_index_find(known, ((long *)asked)[k]);
    if (local[k] < 0 || local[k] >= t->size)
      rc = op2_error(OP2_ERR_STATE, "halo: set '%s': element %ld asked of its owner, not owned",
                     t->name, ((long *)asked)[k]);
  }
  if (rc == OP2_OK) rc = list_from_counts(&t->halo->exp_nonexec, p, counts + p, local);
  if (rc == OP2_OK) {
    idx_g_t *orig =
        realloc(t->orig, sizeof(idx_g_t) * ((size_t)t->size + t->exec_size + (size_t)u + 1));
    if (!orig)
      rc = op2_error(OP2_ERR_MEM, "halo: out of memory");
    else {
      t->orig = orig;
      for (long k = 0; k < u; k++) t->orig[t->size + t->exec_size + k] = ((long *)grouped)[k];
      t->nonexec_size = (int)u;
    }
  }
  free(grouped), free(asked), free(want), free(owner), free(local), free(counts);
  return rc;
}

int op2_halo_build(op2_context *ctx) {
  int me = ctx->mpi.rank, ns = ctx->sets.count;
  set_work *w = calloc((size_t)ns + 1, sizeof(set_work));
  if (!w) return op2_error(OP2_ERR_MEM, "halo: out of memory");
  int rc = OP2_OK;
  double t_step = op2_wall_seconds();
  for (int s = 0; rc == OP2_OK && s < ns; s++) { /* step 1 */
    op_set set = ctx->sets.items[s];
    set->halo = calloc(1, sizeof(op2_halo));
    long *g = malloc(sizeof(long) * ((size_t)set->size + 1));
    if (!set->halo || !g) rc = op2_error(OP2_ERR_MEM, "halo: out of memory");
    for (int e = 0; rc == OP2_OK && e < set->size; e++) g[e] = set->orig[e];
    if (rc == OP2_OK) rc = op2_dir_build(ctx, set->global_size, set->size, g, &w[s].dir);
    if (rc == OP2_OK) rc = op2_global_index_build(&w[s].owned, set->orig, set->size);
    free(g);
    w[s].target_owner = calloc((size_t)ctx->maps.count + 1, sizeof(int *));
    if (!w[s].target_owner) rc = op2_error(OP2_ERR_MEM, "halo: out of memory");
  }
  op2_mpi_step_time(ctx, &t_step, "halo: directories");
  for (int i = 0; rc == OP2_OK && i < ctx->maps.count; i++) { /* step 2 */
    op_map m = ctx->maps.items[i];
    rc = target_owners(ctx, m, &w[m->to->index], &w[m->from->index].target_owner[i]);
  }
  op2_mpi_step_time(ctx, &t_step, "halo: owners of map targets");
  for (int s = 0; rc == OP2_OK && s < ns; s++) /* step 3 */
    rc = put_core_first(ctx, ctx->sets.items[s], &w[s], me);
  op2_mpi_step_time(ctx, &t_step, "halo: core first");
  for (int s = 0; rc == OP2_OK && s < ns; s++) /* steps 4-5 */
    rc = exec_halo(ctx, ctx->sets.items[s], &w[s]);
  op2_mpi_step_time(ctx, &t_step, "halo: exec halos");
  for (int s = 0; rc == OP2_OK && s < ns; s++) { /* step 6 */
    op_set set = ctx->sets.items[s];
    op2_global_index known;
    rc = op2_global_index_build(&known, set->orig, (long)set->size + set->exec_size);
    if (rc == OP2_OK) rc = nonexec_halo(ctx, set, &known, &w[s]);
    op2_global_index_free(&known);
  }
  op2_mpi_step_time(ctx, &t_step, "halo: non-exec halos");
  for (int i = 0; rc == OP2_OK && i < ctx->maps.count; i++) { /* step 7 */
    op_map m = ctx->maps.items[i];
    op_set t = m->to;
    op2_global_index table;
    rc = op2_global_index_build(&table, t->orig, (long)t->size + t->exec_size + t->nonexec_size);
    size_t entries = ((size_t)m->from->size + (size_t)m->from->exec_size) * (size_t)m->dim;
    /* 64-bit global ids become local ints in an array of their own (ints over ints in place) */
    int *local = m->gvalues ? op2_aligned_alloc_unzeroed(sizeof(int) * entries + 1) : m->values;
    if (rc == OP2_OK && !local) rc = op2_error(OP2_ERR_MEM, "halo: out of memory");
    for (size_t k = 0; rc == OP2_OK && k < entries; k++) {
      idx_g_t g = op2_map_gid(ctx, m, k);
      int l = op2_global_index_find(&table, g);
      if (l < 0)
        rc = op2_error(OP2_ERR_STATE, "halo: map '%s' target %lld missing", m->name, (long long)g);
      else
        local[k] = l;
    }
    if (rc == OP2_OK && m->gvalues) free(m->gvalues), m->gvalues = NULL, m->values = local;
    if (rc != OP2_OK && local != m->values) free(local);
    op2_global_index_free(&table);
  }
  op2_mpi_step_time(ctx, &t_step, "halo: map values to local indices");
  for (int s = 0; rc == OP2_OK && s < ns; s++) /* step 8 */
    rc = place_dat_rows(ctx, ctx->sets.items[s], &w[s]);
  for (int s = 0; OP2_INVARIANTS && rc == OP2_OK && s < ns; s++) {
    op_set set = ctx->sets.items[s];
    op2_jit_error why;
    OP2_ASSERT(op2_halo_check(set, me, ctx->mpi.size, &why) == OP2_OK, "halo of set '%s': %s",
               set->name, why.msg);
  }
  for (int s = 0; s < ns; s++) {
    free(w[s].exec_records);
    op2_dir_free(&w[s].dir);
    op2_global_index_free(&w[s].owned);
    for (int i = 0; w[s].target_owner && i < ctx->maps.count; i++) free(w[s].target_owner[i]);
    free(w[s].target_owner);
  }
  free(w);
  return rc;
}

/* Whether one halo list is well formed: neighbours ascending, other ranks than this one, offsets
 * from 0 growing to `count`, exported elements in [lo, hi). */
static int list_check(const op2_halo_list *l, const char *what, int me, int nranks, int count,
                      int lo, int hi, op2_jit_error *why) {
  if (l->nranks < 0 || l->nranks >= nranks || l->offset[0] != 0 || l->offset[l->nranks] != count)
    return op2_jit_error_set(why, OP2_ERR_STATE, "%s: %d neighbours, offsets 0..%d for %d elements",
                             what, l->nranks, l->nranks >= 0 ? l->offset[l->nranks] : -1, count);
  for (int k = 0; k < l->nranks; k++)
    if (l->ranks[k] == me || l->ranks[k] < 0 || l->ranks[k] >= nranks ||
        (k > 0 && l->ranks[k] <= l->ranks[k - 1]) || l->offset[k + 1] < l->offset[k])
      return op2_jit_error_set(why, OP2_ERR_STATE, "%s: neighbour %d is rank %d", what, k,
                               l->ranks[k]);
  for (int i = 0; lo < hi && i < count; i++)
    if (l->elements[i] < lo || l->elements[i] >= hi)
      return op2_jit_error_set(why, OP2_ERR_STATE, "%s: element %d not in [%d, %d)", what,
                               l->elements[i], lo, hi);
  return OP2_OK;
}

int op2_halo_check(const struct op2_set *set, int me, int nranks, op2_jit_error *why) {
  const op2_halo *h = set->halo;
  if (set->core_size < 0 || set->core_size > set->size)
    return op2_jit_error_set(why, OP2_ERR_STATE, "%d core elements of %d", set->core_size,
                             set->size);
  /* Imports fill the halo regions exactly; an element exported to run in another rank's exec
   * halo reaches a halo element here, so it is not core. */
  OP2_CALL(list_check(&h->imp_exec, "imported exec halo", me, nranks, set->exec_size, 0, 0, why));
  OP2_CALL(list_check(&h->imp_nonexec, "imported non-exec halo", me, nranks, set->nonexec_size, 0,
                      0, why));
  OP2_CALL(list_check(&h->exp_exec, "exported exec halo", me, nranks,
                      h->exp_exec.offset[h->exp_exec.nranks], set->core_size, set->size, why));
  return list_check(&h->exp_nonexec, "exported non-exec halo", me, nranks,
                    h->exp_nonexec.offset[h->exp_nonexec.nranks], 0, set->size, why);
}

static void list_free(op2_halo_list *l) {
  free(l->ranks), free(l->offset), free(l->elements);
}

void op2_halo_free(op2_halo *h) {
  if (!h) return;
  list_free(&h->exp_exec), list_free(&h->imp_exec);
  list_free(&h->exp_nonexec), list_free(&h->imp_nonexec);
  free(h->send_rows);
  free(h);
}
