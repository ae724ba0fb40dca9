/* SPDX-License-Identifier: BSD-3-Clause */
/* Every element's owner: the primary set's parts (partitioners.c, reported by
 * partition_report.c), then the other sets through the maps (an element reached by a map takes
 * the lowest owner reaching it; a map's source takes its first target's owner), or, for BLOCK
 * and sets no map reaches, the rank that declared it. Collective. */
#include <stdlib.h>
#include <string.h>

#include "runtime/mpi/distribute.h"
#include "runtime/error.h"
#include "runtime/options.h"

/* Map entries each rank sends per round of inherit()'s exchanges: all of a map's entries at once
 * (a fine-to-coarse map of 8 columns has 8 per element) took more memory than the migration. */
enum { INHERIT_ENTRIES_PER_ROUND = 1 << 18 };

/* The rounds every rank runs for `mine` entries: the most any rank needs. Collective. */
static int inherit_rounds(op2_context *ctx, long mine, long *rounds) {
  *rounds = (mine + INHERIT_ENTRIES_PER_ROUND - 1) / INHERIT_ENTRIES_PER_ROUND;
  return OP2_MPI(MPI_Allreduce(MPI_IN_PLACE, rounds, 1, MPI_LONG, MPI_MAX, op2_comm(ctx)));
}

/* The map's targets take the lowest owner among the elements reaching them (targets held here
 * need no message). */
static int inherit_to(op2_context *ctx, const op2_holders *h, op_map m, int **owner, int *counts,
                      int rc) {
  int p = ctx->mpi.size, me = ctx->mpi.rank;
  int d = m->dim;
  const long chunk = INHERIT_ENTRIES_PER_ROUND;
  op_set t = m->to;
  long n = (long)m->from->size * d, rounds = 0;
  op2_pair *items = malloc(sizeof(op2_pair) * (size_t)chunk);
  int *dest = malloc(sizeof(int) * (size_t)chunk);
  int *own = malloc(sizeof(int) * ((size_t)t->size + 1));
  if (rc == OP2_OK && (!items || !dest || !own))
    rc = op2_error(OP2_ERR_MEM, "partitioning: out of memory");
  for (int e = 0; rc == OP2_OK && e < t->size; e++) own[e] = -1;
  int mpi_rc = inherit_rounds(ctx, n, &rounds);
  if (rc == OP2_OK) rc = mpi_rc;
  /* the lowest owner reaching each target: targets held here need no message */
  for (long round = 0; mpi_rc == OP2_OK && round < rounds; round++) {
    long k0 = round * chunk, k1 = k0 + chunk < n ? k0 + chunk : n, nsend = 0;
    for (long k = k0; rc == OP2_OK && k < k1; k++) {
      long g = op2_map_gid(ctx, m, (size_t)k);
      int o = owner[m->from->index][k / d], q = op2_holder_of(h, p, t, g);
      int *x = q == me ? &own[g - t->decl_first] : NULL;
      if (x && (*x < 0 || o < *x)) *x = o;
      if (!x) items[nsend] = (op2_pair){g, o}, dest[nsend++] = q;
    }
    void *grouped = NULL, *recv = NULL;
    long nrecv = 0;
    if (rc == OP2_OK)
      rc = op2_group_by_rank(p, nsend, items, dest, sizeof(op2_pair), &grouped, counts);
    rc = op2_alltoallv(ctx, rc, grouped, counts, sizeof(op2_pair), &recv, counts + p, &nrecv);
    free(grouped);
    const op2_pair *in = recv;
    for (long k = 0; rc == OP2_OK && k < nrecv; k++) {
      int *o = &own[in[k].a - t->decl_first];
      if (*o < 0 || in[k].b < *o) *o = (int)in[k].b;
    }
    free(recv);
  }
  free(items), free(dest);
  if (rc != OP2_OK) return free(own), rc; /* every rank returns here */
  for (int e = 0; e < t->size; e++)
    if (own[e] < 0) own[e] = me; /* nobody reaches it: it stays */
  owner[t->index] = own;
  return rc;
}

/* The map's sources take the owner of their first target (targets held here need no
 * message): questions to the targets' holders, answers back, in rounds. */
static int inherit_from(op2_context *ctx, const op2_holders *h, op_map m, int **owner, int *counts,
                        int rc) {
  int p = ctx->mpi.size, me = ctx->mpi.rank;
  int d = m->dim;
  const long chunk = INHERIT_ENTRIES_PER_ROUND;
  op_set f = m->from, t = m->to;
  long n = f->size, rounds = 0;
  long *ask = malloc(sizeof(long) * (size_t)chunk), *at = malloc(sizeof(long) * (size_t)chunk);
  int *dest = malloc(sizeof(int) * (size_t)chunk);
  int *own = malloc(sizeof(int) * ((size_t)n + 1));
  long *fill = calloc((size_t)p + 1, sizeof(long));
  if (rc == OP2_OK && (!ask || !at || !dest || !own || !fill))
    rc = op2_error(OP2_ERR_MEM, "partitioning: out of memory");
  int mpi_rc = inherit_rounds(ctx, n, &rounds);
  if (rc == OP2_OK) rc = mpi_rc;
  /* each element takes the owner of its first target: targets held here need no message */
  for (long round = 0; mpi_rc == OP2_OK && round < rounds; round++) {
    long e0 = round * chunk, e1 = e0 + chunk < n ? e0 + chunk : n, nask = 0;
    for (long e = e0; rc == OP2_OK && e < e1; e++) {
      long g = op2_map_gid(ctx, m, (size_t)e * d);
      int q = op2_holder_of(h, p, t, g);
      if (q == me)
        own[e] = owner[t->index][g - t->decl_first];
      else
        ask[nask] = g, dest[nask] = q, at[nask++] = e;
    }
    void *grouped = NULL, *questions = NULL, *back = NULL;
    long nq = 0, nback = 0;
    if (rc == OP2_OK) rc = op2_group_by_rank(p, nask, ask, dest, sizeof(long), &grouped, counts);
    rc = op2_alltoallv(ctx, rc, grouped, counts, sizeof(long), &questions, counts + p, &nq);
    free(grouped);
    int asked = rc == OP2_OK; /* every rank asked: every rank answers */
    int *answers = asked ? malloc(sizeof(int) * ((size_t)nq + 1)) : NULL;
    if (asked && !answers) rc = op2_error(OP2_ERR_MEM, "partitioning: out of memory");
    for (long k = 0; answers && k < nq; k++)
      answers[k] = owner[t->index][((long *)questions)[k] - t->decl_first];
    free(questions);
    if (asked) rc = op2_alltoallv(ctx, rc, answers, counts + p, sizeof(int), &back, counts, &nback);
    if (asked && rc == OP2_OK) {
      memset(fill, 0, sizeof(long) * ((size_t)p + 1));
      for (int q = 0; q < p; q++) fill[q + 1] = fill[q] + counts[q];
      for (long j = 0; j < nask; j++) own[at[j]] = ((int *)back)[fill[dest[j]]++];
    }
    free(back), free(answers);
    if (!asked) break; /* the agreement failed on every rank: no more collectives */
  }
  if (rc == OP2_OK)
    owner[f->index] = own;
  else
    free(own);
  free(fill), free(ask), free(at), free(dest);
  return rc;
}

/* Owners of the elements of `next` from a map between it and a set whose owners are known:
 * an element reached by the map takes the lowest owner among the elements reaching it; an element
 * whose map row reaches known elements takes the owner of its first target. The messages go in
 * rounds of INHERIT_ENTRIES_PER_ROUND entries; a local failure is carried through the rounds'
 * all-to-alls, which agree on it. */
static int inherit(op2_context *ctx, const op2_holders *h, op_map m, int **owner) {
  int *counts = malloc(sizeof(int) * 2 * (size_t)ctx->mpi.size);
  int rc = counts ? OP2_OK : op2_error(OP2_ERR_MEM, "partitioning: out of memory");
  if (owner[m->from->index] && !owner[m->to->index])
    rc = inherit_to(ctx, h, m, owner, counts, rc);
  else
    rc = inherit_from(ctx, h, m, owner, counts, rc);
  free(counts);
  return rc;
}

int op2_partition_owners(op2_context *ctx, const op2_holders *h, const op2_partition_spec *spec,
                         int **owner) {
  int me = ctx->mpi.rank;
  if (spec->method != OP2_PART_BLOCK) {
    op_set prime = spec->prime;
    int *part = malloc(sizeof(int) * ((size_t)prime->size + 1));
    int rc = part ? OP2_OK : op2_error(OP2_ERR_MEM, "partitioning: out of memory");
    double t0 = op2_wall_seconds(), t_step = t0;
    op2_part_figures fig = {0};
    const int report = ctx->opt.diags >= 1;
    if (rc == OP2_OK) rc = op2_partition_parts(ctx, h, spec, part, report ? &fig : NULL);
    rc = op2_mpi_agree(ctx, rc, "partitioning");
    double seconds = op2_wall_seconds() - t0;
    if (spec->method != OP2_PART_PTSCOTCH) op2_mpi_step_time(ctx, &t_step, "partitioner");
    t_step = op2_wall_seconds();
    if (rc == OP2_OK) rc = op2_partition_report(ctx, h, spec, part, seconds, &fig);
    if (rc == OP2_OK && !fig.known && ctx->opt.diags >= 2)
      op2_mpi_step_time(ctx, &t_step, "partition figures (OP2_DIAGS=2)");
    if (rc != OP2_OK) return free(part), rc;
    owner[prime->index] = part;
    /* other sets follow the primary set through the maps */
    for (int changed = 1; changed;) {
      changed = 0;
      for (int i = 0; i < ctx->maps.count; i++) {
        op_map m = ctx->maps.items[i];
        int known_from = owner[m->from->index] != NULL, known_to = owner[m->to->index] != NULL;
        if (known_from == known_to) continue;
        OP2_CALL(inherit(ctx, h, m, owner));
        changed = 1;
      }
    }
    op2_mpi_step_time(ctx, &t_step, "other sets' owners through the maps");
  }
  for (int s = 0; s < ctx->sets.count; s++) { /* BLOCK, and sets no map reaches */
    op_set set = ctx->sets.items[s];
    if (owner[s]) continue;
    owner[s] = malloc(sizeof(int) * ((size_t)set->size + 1));
    if (!owner[s]) return op2_error(OP2_ERR_MEM, "partitioning: out of memory");
    for (int e = 0; e < set->size; e++) owner[s][e] = me;
  }
  if (op2_fault(ctx, "distribute"))
    return op2_error(OP2_ERR_STATE, "distribution: failure injected by OP2_FAULT");
  return OP2_OK;
}
