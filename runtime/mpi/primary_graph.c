/* SPDX-License-Identifier: BSD-3-Clause */
/* The partitioning's first step: the graph of the primary set, in the declared distribution (each
 * rank the rows of the elements it declared), as PT-Scotch and the partition's figures take it.
 * Two elements are neighbours when the primary map links them: through a shared target when the
 * map starts at the primary set, through a shared source when it ends there. Collective. */
#include <stdbool.h>
#include <stdlib.h>

#include "runtime/mpi/distribute.h"
#include "runtime/error.h"

/* The neighbour pairs (element, neighbour) found so far, in global ids. */
typedef struct pair_list {
  op2_pair *items;
  long n, cap;
} pair_list;

static int add_pair(pair_list *l, long a, long b) {
  if (l->n == l->cap) {
    op2_pair *grown = realloc(l->items, sizeof(op2_pair) * (size_t)(l->cap *= 2));
    if (!grown) return op2_error(OP2_ERR_MEM, "partitioning: out of memory");
    l->items = grown;
  }
  l->items[l->n++] = (op2_pair){a, b};
  return OP2_OK;
}

/* The map starts at the primary set's neighbours' common target set: each target's sources are
 * gathered at the target's holder, where every two of them are linked. A local failure stops
 * adding pairs but not the all-to-all, which agrees on it; *agreed is set when that failed on
 * every rank (every rank returns). */
static int pairs_through_targets(op2_context *ctx, const op2_holders *h, op_set prime, op_map pm,
                                 int rc, pair_list *l, bool *agreed) {
  int p = ctx->mpi.size, d = pm->dim;
  int *dest = malloc(sizeof(int) * ((size_t)pm->from->size * d + 1));
  op2_pair *ts = malloc(sizeof(op2_pair) * ((size_t)pm->from->size * d + 1));
  int *counts = malloc(sizeof(int) * 2 * (size_t)p);
  if (rc == OP2_OK && (!dest || !ts || !counts))
    rc = op2_error(OP2_ERR_MEM, "partitioning: out of memory");
  long n = 0;
  for (int f = 0; rc == OP2_OK && f < pm->from->size; f++)
    for (int i = 0; i < d; i++) {
      ts[n] = (op2_pair){op2_map_gid(ctx, pm, (size_t)f * d + i), prime->decl_first + f};
      dest[n] = op2_holder_of(h, p, pm->to, ts[n].a);
      n++;
    }
  void *grouped = NULL, *recv;
  long nrecv;
  if (rc == OP2_OK) rc = op2_group_by_rank(p, n, ts, dest, sizeof(op2_pair), &grouped, counts);
  rc = op2_alltoallv(ctx, rc, grouped, counts, sizeof(op2_pair), &recv, counts + p, &nrecv);
  free(dest), free(ts), free(counts), free(grouped);
  if (rc != OP2_OK) return *agreed = true, rc; /* every rank returns here */
  op2_pair *in = recv; /* (target, source): sort by target, then link sources of one target */
  qsort(in, (size_t)nrecv, sizeof(op2_pair), op2_pair_cmp);
  for (long a = 0; a < nrecv;) {
    long b = a;
    while (b < nrecv && in[b].a == in[a].a) b++;
    for (long i = a; i < b; i++)
      for (long j = a; j < b; j++)
        if (in[i].b != in[j].b && rc == OP2_OK) rc = add_pair(l, in[i].b, in[j].b);
    a = b;
  }
  free(recv);
  return rc;
}

/* Step 1: every pair of neighbours this rank can name, from its rows of the map (the map ends at
 * the primary set: its row's targets are neighbours) or through the targets' holders. */
static int neighbour_pairs(op2_context *ctx, const op2_holders *h, op_set prime, op_map pm,
                           pair_list *l, bool *agreed) {
  l->n = 0, l->cap = 1024;
  l->items = malloc(sizeof(op2_pair) * (size_t)l->cap);
  int rc = l->items ? OP2_OK : op2_error(OP2_ERR_MEM, "partitioning: out of memory");
  if (pm->to != prime) return pairs_through_targets(ctx, h, prime, pm, rc, l, agreed);
  int d = pm->dim;
  for (int f = 0; rc == OP2_OK && f < pm->from->size; f++)
    for (int i = 0; i < d; i++)
      for (int j = 0; j < d; j++)
        if (op2_map_gid(ctx, pm, (size_t)f * d + i) != op2_map_gid(ctx, pm, (size_t)f * d + j) &&
            rc == OP2_OK)
          rc = add_pair(l, op2_map_gid(ctx, pm, (size_t)f * d + i),
                        op2_map_gid(ctx, pm, (size_t)f * d + j));
  return rc;
}

/* Step 2: each pair to the holder of its first element: pairs held here stay (compacted to the
 * front of the list, *nkeep of them), the others travel (*recv, *nrecv received). */
static int pairs_to_holders(op2_context *ctx, const op2_holders *h, op_set prime, int rc,
                            pair_list *l, long *nkeep, void **recv, long *nrecv) {
  int p = ctx->mpi.size;
  op2_pair *out = malloc(sizeof(op2_pair) * ((size_t)l->n + 1));
  int *dest = malloc(sizeof(int) * ((size_t)l->n + 1));
  int *counts = malloc(sizeof(int) * 2 * (size_t)p);
  if (rc == OP2_OK && (!out || !dest || !counts))
    rc = op2_error(OP2_ERR_MEM, "partitioning: out of memory");
  long nout = 0;
  *nkeep = 0;
  for (long i = 0; rc == OP2_OK && i < l->n; i++) {
    int q = op2_holder_of(h, p, prime, l->items[i].a);
    if (q == ctx->mpi.rank)
      l->items[(*nkeep)++] = l->items[i];
    else
      out[nout] = l->items[i], dest[nout++] = q;
  }
  void *grouped = NULL;
  if (rc == OP2_OK) rc = op2_group_by_rank(p, nout, out, dest, sizeof(op2_pair), &grouped, counts);
  rc = op2_alltoallv(ctx, rc, grouped, counts, sizeof(op2_pair), recv, counts + p, nrecv);
  free(out), free(dest), free(counts), free(grouped);
  return rc;
}

/* Step 3, local: the rows of the elements this rank declared, from the pairs it kept and
 * received (in that order). */
static int rows_from_pairs(op_set prime, const op2_pair *const in[2], const long nin[2], int **xadj,
                           long **adjncy) {
  int n = prime->size;
  *xadj = calloc((size_t)n + 1, sizeof(int));
  *adjncy = malloc(sizeof(long) * ((size_t)(nin[0] + nin[1]) + 1));
  int *fill = calloc((size_t)n + 1, sizeof(int));
  if (!*xadj || !*adjncy || !fill)
    return free(fill), op2_error(OP2_ERR_MEM, "partitioning: out of memory");
  for (int s = 0; s < 2; s++)
    for (long i = 0; i < nin[s]; i++) (*xadj)[in[s][i].a - prime->decl_first + 1]++;
  for (int v = 0; v < n; v++) (*xadj)[v + 1] += (*xadj)[v];
  for (int s = 0; s < 2; s++)
    for (long i = 0; i < nin[s]; i++) {
      int v = (int)(in[s][i].a - prime->decl_first);
      (*adjncy)[(*xadj)[v] + fill[v]++] = in[s][i].b;
    }
  free(fill);
  return OP2_OK;
}

int op2_primary_graph(op2_context *ctx, const op2_holders *h, op_set prime, op_map pm, int **xadj,
                      long **adjncy) {
  pair_list l;
  bool agreed = false;
  int rc = neighbour_pairs(ctx, h, prime, pm, &l, &agreed);
  if (agreed) return free(l.items), rc; /* every rank returns here */
  void *recv = NULL;
  long nkeep = 0, nrecv = 0;
  rc = pairs_to_holders(ctx, h, prime, rc, &l, &nkeep, &recv, &nrecv);
  if (rc != OP2_OK) return free(l.items), rc; /* every rank returns here */
  const op2_pair *in[2] = {l.items, recv};
  long nin[2] = {nkeep, nrecv};
  rc = rows_from_pairs(prime, in, nin, xadj, adjncy);
  free(recv), free(l.items);
  return rc;
}

void op2_graph_from_zero(const op2_context *ctx, const op2_holders *h, op_set prime,
                         const int *xadj, long *adjncy, long *vtxdist) {
  int p = ctx->mpi.size;
  long base = op2_gid_base(ctx);
  for (int q = 0; q <= p; q++) vtxdist[q] = h->first[(size_t)prime->index * (p + 1) + q] - base;
  for (long k = 0; base && xadj && adjncy && k < xadj[prime->size]; k++) adjncy[k] -= base;
}
