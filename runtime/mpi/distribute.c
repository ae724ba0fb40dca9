/* SPDX-License-Identifier: BSD-3-Clause */
/* From what the ranks declared to each rank owning a part of the mesh: decide how the program
 * declared (each rank its block, or the whole mesh everywhere), give every element an owner
 * (PT-Scotch on a primary set and inheritance through maps, or the declared blocks), and move
 * every element to its owner. Halos are built afterwards (halo_build.c). */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <xxhash.h>

#include "runtime/mpi/op2_mpi.h"
#include "runtime/mpi/geometric.h"
#include "runtime/mpi/ptscotch.h"
#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/alloc.h"
#include "runtime/options.h"
#include "runtime/mpi_state.h"
#include "runtime/mesh.h"

/* ---- how the program declared ---- */

/* True when every rank declared identical sets, maps and dats: a program written for one process,
 * started under mpirun. Each rank then keeps its block of everything. */
static int declared_everywhere(op2_context *ctx, int *everywhere) {
  int n = ctx->sets.count + ctx->maps.count + ctx->dats.count;
  unsigned long long *h = malloc(sizeof(*h) * 2 * ((size_t)n + 1));
  *everywhere = 0;
  int agreed = op2_mpi_agree(
      ctx, h ? OP2_OK : op2_error(OP2_ERR_MEM, "distribution: out of memory"), "distribution");
  if (agreed != OP2_OK) { /* another rank failed, or is in another call: h is ours to free */
    free(h);
    return agreed;
  }
  int k = 0;
  for (int i = 0; i < ctx->sets.count; i++)
    h[k++] = (unsigned long long)((op_set)ctx->sets.items[i])->size;
  for (int i = 0; i < ctx->maps.count; i++) {
    op_map m = ctx->maps.items[i];
    h[k++] = XXH3_64bits(*op2_map_rows(m), op2_map_row_bytes(m) * (size_t)m->from->size);
  }
  for (int i = 0; i < ctx->dats.count; i++) {
    op_dat d = ctx->dats.items[i];
    h[k++] = XXH3_64bits(d->data, d->elem_bytes * (size_t)d->set->size);
  }
  int rc = OP2_MPI(MPI_Allreduce(h, h + n, n, MPI_UNSIGNED_LONG_LONG, MPI_BAND, op2_comm(ctx)));
  int same = 1;
  for (int i = 0; i < n; i++) same &= h[i] == h[n + i];
  /* AND equals every value only if all agree... confirm with OR as well */
  if (rc == OP2_OK)
    rc = OP2_MPI(MPI_Allreduce(h, h + n, n, MPI_UNSIGNED_LONG_LONG, MPI_BOR, op2_comm(ctx)));
  for (int i = 0; i < n; i++) same &= h[i] == h[n + i];
  free(h);
  int all = same;
  if (rc == OP2_OK) rc = OP2_MPI(MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_LAND, op2_comm(ctx)));
  *everywhere = all && ctx->sets.count > 0;
  return rc;
}

static int slice_to_blocks(op2_context *ctx) {
  int p = ctx->mpi.size, r = ctx->mpi.rank;
  for (int s = 0; s < ctx->sets.count; s++) {
    op_set set = ctx->sets.items[s];
    long first = op2_block_begin(set->size, r, p),
         count = op2_block_begin(set->size, r + 1, p) - first;
    for (int i = 0; i < ctx->dats.count; i++) {
      op_dat d = ctx->dats.items[i];
      if (d->set != set) continue;
      memmove(d->data, d->data + (size_t)first * d->elem_bytes, (size_t)count * d->elem_bytes);
    }
    for (int i = 0; i < ctx->maps.count; i++) {
      op_map m = ctx->maps.items[i];
      if (m->from != set) continue;
      char *rows = *op2_map_rows(m);
      size_t row = op2_map_row_bytes(m);
      memmove(rows, rows + (size_t)first * row, row * (size_t)count);
    }
    set->global_size = set->size;
    set->decl_first = op2_gid_base(ctx) + first;
    set->size = set->decl_count = set->core_size = (int)count;
  }
  for (int i = 0; i < ctx->maps.count; i++) { /* now the declared sizes are the global ones */
    op_map m = ctx->maps.items[i];
    for (size_t k = 0; k < (size_t)m->from->size * (size_t)m->dim; k++) {
      idx_g_t v = op2_map_gid(ctx, m, k) - op2_gid_base(ctx); /* the user's index */
      if (v >= m->to->global_size)
        return op2_error(OP2_ERR_ARG, "op_decl_map '%s': value %lld is outside set '%s' (size %ld)",
                         m->name, m->gvalues ? m->gvalues[k] : v, m->to->name, m->to->global_size);
    }
  }
  return OP2_OK;
}

/* ---- who holds a global index in the declared distribution ---- */

typedef struct holders {
  long *first; /* p+1 per set: first global index declared by each rank */
} holders;

static int holders_init(op2_context *ctx, holders *h) {
  int p = ctx->mpi.size, ns = ctx->sets.count;
  h->first = malloc(sizeof(long) * (size_t)(p + 1) * (size_t)(ns ? ns : 1));
  int agreed =
      op2_mpi_agree(ctx, h->first ? OP2_OK : op2_error(OP2_ERR_MEM, "partitioning: out of memory"),
                    "distribution");
  if (agreed != OP2_OK) { /* another rank failed, or is in another call */
    free(h->first);
    h->first = NULL;
    return agreed;
  }
  for (int s = 0; s < ns; s++) {
    op_set set = ctx->sets.items[s];
    long *f = h->first + (size_t)s * (p + 1);
    int rc = OP2_MPI(MPI_Allgather(&set->decl_first, 1, MPI_LONG, f, 1, MPI_LONG, op2_comm(ctx)));
    if (rc != OP2_OK) {
      free(h->first);
      h->first = NULL;
      return rc;
    }
    f[p] = op2_gid_base(ctx) + set->global_size;
  }
  return OP2_OK;
}

static int holder_of(const holders *h, int p, op_set set, long g) {
  const long *f = h->first + (size_t)set->index * (p + 1);
  int lo = 0, hi = p - 1;
  while (lo < hi) { /* last rank whose first <= g */
    int mid = (lo + hi + 1) / 2;
    if (f[mid] <= g)
      lo = mid;
    else
      hi = mid - 1;
  }
  while (lo + 1 < p && f[lo + 1] <= g && f[lo + 1] == f[lo]) lo++;
  return lo;
}

typedef struct pair {
  long a, b;
} pair;

static int cmp_pair(const void *x, const void *y) {
  const pair *a = x, *b = y;
  if (a->a != b->a) return (a->a > b->a) - (a->a < b->a);
  return (a->b > b->b) - (a->b < b->b);
}

/* ---- ownership ---- */

/* The graph of the primary set: two elements are neighbours when the primary map links them
 * (through a shared target when the map starts at the primary set, through a shared source when
 * it ends there). Returns the local CSR in global numbering. */
static int primary_graph(op2_context *ctx, const holders *h, op_set prime, op_map pm, int **xadj,
                         long **adjncy) {
  int p = ctx->mpi.size;
  long npairs = 0, cap = 1024;
  pair *pairs = malloc(sizeof(pair) * (size_t)cap);
  int rc = pairs ? OP2_OK : op2_error(OP2_ERR_MEM, "partitioning: out of memory");
  /* A local failure stops adding pairs but not the collectives below: they agree on it. */
#define ADD_PAIR(x, y)                                              \
  do {                                                              \
    if (rc != OP2_OK) break;                                        \
    if (npairs == cap) {                                            \
      pair *np = realloc(pairs, sizeof(pair) * (size_t)(cap *= 2)); \
      if (!np) {                                                    \
        rc = op2_error(OP2_ERR_MEM, "partitioning: out of memory"); \
        break;                                                      \
      }                                                             \
      pairs = np;                                                   \
    }                                                               \
    pairs[npairs++] = (pair){(x), (y)};                             \
  } while (0)
  int d = pm->dim;
  if (pm->to == prime) {
    for (int f = 0; rc == OP2_OK && f < pm->from->size; f++)
      for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++)
          if (op2_map_gid(ctx, pm, (size_t)f * d + i) != op2_map_gid(ctx, pm, (size_t)f * d + j))
            ADD_PAIR(op2_map_gid(ctx, pm, (size_t)f * d + i),
                     op2_map_gid(ctx, pm, (size_t)f * d + j));
  } else { /* neighbours through shared targets: first gather each target's sources */
    int *dest = malloc(sizeof(int) * ((size_t)pm->from->size * d + 1));
    pair *ts = malloc(sizeof(pair) * ((size_t)pm->from->size * d + 1));
    int *counts = malloc(sizeof(int) * 2 * (size_t)p);
    if (rc == OP2_OK && (!dest || !ts || !counts))
      rc = op2_error(OP2_ERR_MEM, "partitioning: out of memory");
    long n = 0;
    for (int f = 0; rc == OP2_OK && f < pm->from->size; f++)
      for (int i = 0; i < d; i++) {
        ts[n] = (pair){op2_map_gid(ctx, pm, (size_t)f * d + i), prime->decl_first + f};
        dest[n] = holder_of(h, p, pm->to, ts[n].a);
        n++;
      }
    void *grouped = NULL, *recv;
    long nrecv;
    if (rc == OP2_OK) rc = op2_group_by_rank(p, n, ts, dest, sizeof(pair), &grouped, counts);
    rc = op2_alltoallv(ctx, rc, grouped, counts, sizeof(pair), &recv, counts + p, &nrecv);
    free(dest), free(ts), free(counts), free(grouped);
    if (rc != OP2_OK) return free(pairs), rc; /* every rank returns here */
    pair *in = recv; /* (target, source): sort by target, then link sources of one target */
    qsort(in, (size_t)nrecv, sizeof(pair), cmp_pair);
    for (long a = 0; a < nrecv;) {
      long b = a;
      while (b < nrecv && in[b].a == in[a].a) b++;
      for (long i = a; i < b; i++)
        for (long j = a; j < b; j++)
          if (in[i].b != in[j].b) ADD_PAIR(in[i].b, in[j].b);
      a = b;
    }
    free(recv);
  }
#undef ADD_PAIR
  /* each pair goes to the holder of its first element: pairs held here stay (compacted to the
   * front of pairs), the others travel */
  pair *out = malloc(sizeof(pair) * ((size_t)npairs + 1));
  int *dest = malloc(sizeof(int) * ((size_t)npairs + 1));
  int *counts = malloc(sizeof(int) * 2 * (size_t)p);
  if (rc == OP2_OK && (!out || !dest || !counts))
    rc = op2_error(OP2_ERR_MEM, "partitioning: out of memory");
  long nkeep = 0, nout = 0;
  for (long i = 0; rc == OP2_OK && i < npairs; i++) {
    int q = holder_of(h, p, prime, pairs[i].a);
    if (q == ctx->mpi.rank)
      pairs[nkeep++] = pairs[i];
    else
      out[nout] = pairs[i], dest[nout++] = q;
  }
  void *grouped = NULL, *recv;
  long nrecv;
  if (rc == OP2_OK) rc = op2_group_by_rank(p, nout, out, dest, sizeof(pair), &grouped, counts);
  rc = op2_alltoallv(ctx, rc, grouped, counts, sizeof(pair), &recv, counts + p, &nrecv);
  free(out), free(dest), free(counts), free(grouped);
  if (rc != OP2_OK) return free(pairs), rc; /* every rank returns here */
  const pair *in[2] = {pairs, recv};
  long nin[2] = {nkeep, nrecv};
  int n = prime->size;
  *xadj = calloc((size_t)n + 1, sizeof(int));
  *adjncy = malloc(sizeof(long) * ((size_t)(nkeep + nrecv) + 1));
  int *fill = calloc((size_t)n + 1, sizeof(int));
  if (!*xadj || !*adjncy || !fill)
    return free(pairs), free(recv), free(fill),
           op2_error(OP2_ERR_MEM, "partitioning: out of memory");
  for (int s = 0; s < 2; s++)
    for (long i = 0; i < nin[s]; i++) (*xadj)[in[s][i].a - prime->decl_first + 1]++;
  for (int v = 0; v < n; v++) (*xadj)[v + 1] += (*xadj)[v];
  for (int s = 0; s < 2; s++)
    for (long i = 0; i < nin[s]; i++) {
      int v = (int)(in[s][i].a - prime->decl_first);
      (*adjncy)[(*xadj)[v] + fill[v]++] = in[s][i].b;
    }
  free(fill), free(recv), free(pairs);
  return OP2_OK;
}

/* Map entries each rank sends per round of inherit()'s exchanges: all of a map's entries at once
 * (a fine-to-coarse map of 8 columns has 8 per element) took more memory than the migration. */
enum { INHERIT_ENTRIES_PER_ROUND = 1 << 18 };

/* The rounds every rank runs for `mine` entries: the most any rank needs. Collective. */
static int inherit_rounds(op2_context *ctx, long mine, long *rounds) {
  *rounds = (mine + INHERIT_ENTRIES_PER_ROUND - 1) / INHERIT_ENTRIES_PER_ROUND;
  return OP2_MPI(MPI_Allreduce(MPI_IN_PLACE, rounds, 1, MPI_LONG, MPI_MAX, op2_comm(ctx)));
}

/* Owners of the elements of `next` from a map between it and a set whose owners are known:
 * an element reached by the map takes the lowest owner among the elements reaching it; an element
 * whose map row reaches known elements takes the owner of its first target. The messages go in
 * rounds of INHERIT_ENTRIES_PER_ROUND entries; a local failure is carried through the rounds'
 * all-to-alls, which agree on it. */
static int inherit(op2_context *ctx, const holders *h, op_map m, int **owner) {
  int p = ctx->mpi.size, me = ctx->mpi.rank;
  int d = m->dim;
  const long chunk = INHERIT_ENTRIES_PER_ROUND;
  int *counts = malloc(sizeof(int) * 2 * (size_t)p);
  int rc = counts ? OP2_OK : op2_error(OP2_ERR_MEM, "partitioning: out of memory");
  if (owner[m->from->index] && !owner[m->to->index]) {
    op_set t = m->to;
    long n = (long)m->from->size * d, rounds = 0;
    pair *items = malloc(sizeof(pair) * (size_t)chunk);
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
        int o = owner[m->from->index][k / d], q = holder_of(h, p, t, g);
        int *x = q == me ? &own[g - t->decl_first] : NULL;
        if (x && (*x < 0 || o < *x)) *x = o;
        if (!x) items[nsend] = (pair){g, o}, dest[nsend++] = q;
      }
      void *grouped = NULL, *recv = NULL;
      long nrecv = 0;
      if (rc == OP2_OK)
        rc = op2_group_by_rank(p, nsend, items, dest, sizeof(pair), &grouped, counts);
      rc = op2_alltoallv(ctx, rc, grouped, counts, sizeof(pair), &recv, counts + p, &nrecv);
      free(grouped);
      const pair *in = recv;
      for (long k = 0; rc == OP2_OK && k < nrecv; k++) {
        int *o = &own[in[k].a - t->decl_first];
        if (*o < 0 || in[k].b < *o) *o = (int)in[k].b;
      }
      free(recv);
    }
    free(items), free(dest);
    if (rc != OP2_OK) return free(own), free(counts), rc; /* every rank returns here */
    for (int e = 0; e < t->size; e++)
      if (own[e] < 0) own[e] = me; /* nobody reaches it: it stays */
    owner[t->index] = own;
  } else {
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
        int q = holder_of(h, p, t, g);
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
      if (asked)
        rc = op2_alltoallv(ctx, rc, answers, counts + p, sizeof(int), &back, counts, &nback);
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
  }
  free(counts);
  return rc;
}

/* A partition's figures for the report: computed by PT-Scotch's step while it has the graph. */
typedef struct part_figures {
  int known;
  op2_partition_quality q, qb; /* the partition's, the declared blocks' */
} part_figures;

/* The primary graph numbered from 0, as PT-Scotch takes it (Debian's SCOTCH_Num is 32 bits) and
 * the figures read it, whatever base the global ids start from (OP2_TEST_ID_BASE): vtxdist (p+1
 * entries) from the declared holders, adjncy shifted in place. */
static void graph_from_zero(const op2_context *ctx, const holders *h, op_set prime, const int *xadj,
                            long *adjncy, long *vtxdist) {
  int p = ctx->mpi.size;
  long base = op2_gid_base(ctx);
  for (int q = 0; q <= p; q++) vtxdist[q] = h->first[(size_t)prime->index * (p + 1) + q] - base;
  for (long k = 0; base && xadj && adjncy && k < xadj[prime->size]; k++) adjncy[k] -= base;
}

/* The declared blocks' figures on the same graph (each rank's elements its own part). */
static int block_figures(op2_context *ctx, op_set prime, const long *vtxdist, const int *xadj,
                         const long *adjncy, op2_partition_quality *qb) {
  int *block = malloc(sizeof(int) * ((size_t)prime->size + 1));
  int rc = block ? OP2_OK : op2_error(OP2_ERR_MEM, "partitioning: out of memory");
  rc = op2_mpi_agree(ctx, rc, "partitioning");
  for (int v = 0; rc == OP2_OK && v < prime->size; v++) block[v] = ctx->mpi.rank;
  if (rc == OP2_OK && op2_partition_quality_of(op2_comm(ctx), prime->size, vtxdist, xadj, adjncy,
                                               ctx->mpi.size, block, qb) != 0)
    rc = op2_error(OP2_ERR_STATE, "partitioning: the declared blocks' figures failed");
  free(block);
  return rc;
}

/* The primary set's parts from PT-Scotch k-way on the graph of its map; with `fig`, also the
 * figures of the report (PT-Scotch computes the partition's on its graph). */
static int ptscotch_parts(op2_context *ctx, const holders *h, op_set prime, op_map pm, int *part,
                          part_figures *fig) {
  int *xadj = NULL;
  long *adjncy = NULL;
  double t_step = op2_wall_seconds();
  int rc = primary_graph(ctx, h, prime, pm, &xadj, &adjncy);
  op2_mpi_step_time(ctx, &t_step, "graph of the primary set");
  long vtxdist[ctx->mpi.size + 1];
  if (rc == OP2_OK) graph_from_zero(ctx, h, prime, xadj, adjncy, vtxdist);
  char err[512] = "";
  /* every rank must enter the collectives below, or none */
  rc = op2_mpi_agree(ctx, rc, "partitioning");
  if (rc == OP2_OK &&
      op2_ptscotch_kway(op2_comm(ctx), prime->size, vtxdist, xadj, adjncy, ctx->mpi.size,
                        ctx->opt.ptscotch_check, part, fig ? &fig->q : NULL, err, sizeof err) != 0)
    rc = op2_error(OP2_ERR_STATE, "op_partition PTSCOTCH on set '%s': %s", prime->name, err);
  op2_mpi_step_time(ctx, &t_step, "PT-Scotch k-way");
  rc = op2_mpi_agree(ctx, rc, "partitioning");
  if (rc == OP2_OK && fig) rc = block_figures(ctx, prime, vtxdist, xadj, adjncy, &fig->qb);
  if (rc == OP2_OK && fig) fig->known = 1;
  free(xadj), free(adjncy);
  return rc;
}

/* The primary set's parts by recursive coordinate bisection of its coordinates (float or double,
 * dim 1 to 3: partition.c checked), each rank bisecting with its declared rows. */
static int geometric_parts(op2_context *ctx, op_dat coords, int *part) {
  op_set set = coords->set;
  const int n = set->size, dim = coords->dim;
  double *xyz = malloc(sizeof(double) * ((size_t)n * dim + 1));
  int rc = xyz ? OP2_OK : op2_error(OP2_ERR_MEM, "partitioning: out of memory");
  for (long k = 0; rc == OP2_OK && k < (long)n * dim; k++)
    xyz[k] = coords->type == OP2_TYPE_FLOAT ? (double)((const float *)coords->data)[k]
                                            : ((const double *)coords->data)[k];
  char err[512] = "";
  rc = op2_mpi_agree(ctx, rc, "partitioning");
  if (rc == OP2_OK &&
      op2_rcb_partition(op2_comm(ctx), n, dim, xyz, set->decl_first - op2_gid_base(ctx),
                        ctx->mpi.size, OP2_PARTITION_BALANCE, part, err, sizeof err) != 0)
    rc = op2_error(OP2_ERR_STATE, "op_partition: recursive coordinate bisection of '%s': %s",
                   coords->name, err);
  free(xyz);
  return rc;
}

/* Collective: answers[i] = what rank dest[i] holds for keys[i] in its table (table[key - first],
 * the table and first of the rank asked). The questions keep their order within each rank. */
static int lookup(op2_context *ctx, int status, long n, const long *keys, const int *dest,
                  const long *table, long first, long *answers) {
  int p = ctx->mpi.size;
  int *counts = malloc(sizeof(int) * 2 * (size_t)p);
  long *fill = calloc((size_t)p + 1, sizeof(long));
  void *grouped = NULL, *questions = NULL, *back = NULL;
  long nq = 0, nback = 0;
  int rc = status;
  if (rc == OP2_OK && (!counts || !fill))
    rc = op2_error(OP2_ERR_MEM, "partitioning: out of memory");
  if (rc == OP2_OK) rc = op2_group_by_rank(p, n, keys, dest, sizeof(long), &grouped, counts);
  rc = op2_alltoallv(ctx, rc, grouped, counts, sizeof(long), &questions, counts + p, &nq);
  for (long k = 0; rc == OP2_OK && k < nq; k++)
    ((long *)questions)[k] = table[((long *)questions)[k] - first];
  rc = op2_alltoallv(ctx, rc, questions, counts + p, sizeof(long), &back, counts, &nback);
  if (rc == OP2_OK) {
    for (int q = 0; q < p; q++) fill[q + 1] = fill[q] + counts[q];
    for (long i = 0; i < n; i++) answers[i] = ((long *)back)[fill[dest[i]]++];
  }
  free(counts), free(fill), free(grouped), free(questions), free(back);
  return rc;
}

/* PARMETIS GEOMKWAY, ParMETIS's idea with PT-Scotch: the graph first moves to the ranks a
 * recursive coordinate bisection gives (compact pieces, where the declared blocks of a mesh
 * numbered at random scatter every rank's vertices over the whole mesh), PT-Scotch k-way runs
 * on it there, and each part comes back to the vertex's declared holder. */
static int geomkway_parts(op2_context *ctx, const holders *h, const op2_partition_spec *spec,
                          int *part, part_figures *fig) {
  op_set prime = spec->prime;
  const int n = prime->size, p = ctx->mpi.size, me = ctx->mpi.rank;
  double t_step = op2_wall_seconds();
  int *geo = malloc(sizeof(int) * ((size_t)n + 1));
  long *count = calloc((size_t)p, sizeof(long)), *below = calloc((size_t)p, sizeof(long));
  long *vtxdist = calloc((size_t)p + 1, sizeof(long)), *newid = malloc(sizeof(long) * (n + 1UL));
  int rc = geo && count && below && vtxdist && newid
               ? OP2_OK
               : op2_error(OP2_ERR_MEM, "partitioning: out of memory");
  rc = op2_mpi_agree(ctx, rc, "partitioning");
  if (rc == OP2_OK) rc = geometric_parts(ctx, spec->data, geo);
  op2_mpi_step_time(ctx, &t_step, "recursive coordinate bisection");
  /* New numbers: the bisection's part r holds vtxdist[r] .., in (declaring rank, index) order. */
  for (int v = 0; rc == OP2_OK && v < n; v++) count[geo[v]]++;
  if (rc == OP2_OK) rc = OP2_MPI(MPI_Exscan(count, below, p, MPI_LONG, MPI_SUM, op2_comm(ctx)));
  if (rc == OP2_OK && me == 0) memset(below, 0, sizeof(long) * (size_t)p); /* Exscan leaves it */
  if (rc == OP2_OK)
    rc = OP2_MPI(MPI_Allreduce(count, vtxdist + 1, p, MPI_LONG, MPI_SUM, op2_comm(ctx)));
  for (int q = 0; rc == OP2_OK && q < p; q++) vtxdist[q + 1] += vtxdist[q];
  for (int v = 0; rc == OP2_OK && v < n; v++) newid[v] = vtxdist[geo[v]] + below[geo[v]]++;
  rc = op2_mpi_agree(ctx, rc, "partitioning");

  /* The graph in the declared numbering, its neighbours renumbered by their holders. */
  int *xadj = NULL, *dest = NULL, *xnew = NULL, *part2 = NULL;
  long *adjncy = NULL, *nbr = NULL, *pairs = NULL, *adjnew = NULL, *asked = NULL, *got = NULL;
  void *recv = NULL;
  long arcs = 0, npairs = 0;
  if (rc == OP2_OK) rc = primary_graph(ctx, h, prime, spec->prime_map, &xadj, &adjncy);
  rc = op2_mpi_agree(ctx, rc, "partitioning");
  if (rc == OP2_OK) {
    arcs = xadj[n];
    nbr = malloc(sizeof(long) * (arcs + 1UL));
    dest = malloc(sizeof(int) * (arcs + 1UL + n));
    pairs = malloc(sizeof(long) * 2 * (arcs + 1UL));
    if (!nbr || !dest || !pairs) rc = op2_error(OP2_ERR_MEM, "partitioning: out of memory");
  }
  for (long k = 0; rc == OP2_OK && k < arcs; k++) dest[k] = holder_of(h, p, prime, adjncy[k]);
  rc = lookup(ctx, rc, arcs, adjncy, dest, newid, prime->decl_first, nbr);
  /* Each arc (new numbers) to the rank of its first end. */
  int *counts = malloc(sizeof(int) * 2 * (size_t)p);
  void *grouped = NULL;
  if (rc == OP2_OK && !counts) rc = op2_error(OP2_ERR_MEM, "partitioning: out of memory");
  for (int v = 0; rc == OP2_OK && v < n; v++)
    for (int k = xadj[v]; k < xadj[v + 1]; k++)
      pairs[2 * k] = newid[v], pairs[2 * k + 1] = nbr[k], dest[k] = geo[v];
  if (rc == OP2_OK)
    rc = op2_group_by_rank(p, arcs, pairs, dest, 2 * sizeof(long), &grouped, counts);
  rc = op2_alltoallv(ctx, rc, grouped, counts, 2 * sizeof(long), &recv, counts + p, &npairs);
  free(grouped), free(pairs), free(nbr);
  pairs = nbr = NULL;
  op2_mpi_step_time(ctx, &t_step, "graph moved to the bisection's ranks");
  const long first = vtxdist[me];
  const int nloc = (int)(vtxdist[me + 1] - vtxdist[me]);
  if (rc == OP2_OK) {
    xnew = calloc((size_t)nloc + 1, sizeof(int));
    adjnew = malloc(sizeof(long) * ((size_t)npairs + 1));
    part2 = malloc(sizeof(int) * ((size_t)nloc + 1));
    if (!xnew || !adjnew || !part2) rc = op2_error(OP2_ERR_MEM, "partitioning: out of memory");
  }
  const long *in = recv;
  for (long k = 0; rc == OP2_OK && k < npairs; k++) xnew[in[2 * k] - first + 1]++;
  for (int v = 0; rc == OP2_OK && v < nloc; v++) xnew[v + 1] += xnew[v];
  for (long k = 0; rc == OP2_OK && k < npairs; k++) {
    int *at = &xnew[in[2 * k] - first]; /* the row's fill cursor: restored below */
    adjnew[(*at)++] = in[2 * k + 1];
  }
  for (int v = nloc; rc == OP2_OK && v > 0; v--) xnew[v] = xnew[v - 1];
  if (rc == OP2_OK) xnew[0] = 0;
  free(recv);
  rc = op2_mpi_agree(ctx, rc, "partitioning");
  char err[512] = "";
  if (rc == OP2_OK &&
      op2_ptscotch_kway(op2_comm(ctx), nloc, vtxdist, xnew, adjnew, p, ctx->opt.ptscotch_check,
                        part2, fig ? &fig->q : NULL, err, sizeof err) != 0)
    rc = op2_error(OP2_ERR_STATE, "op_partition %s on set '%s': %s", spec->asked, prime->name, err);
  op2_mpi_step_time(ctx, &t_step, "PT-Scotch k-way");
  rc = op2_mpi_agree(ctx, rc, "partitioning");
  /* The parts back to the declared holders: each asks the rank its vertex moved to. */
  if (rc == OP2_OK) {
    asked = malloc(sizeof(long) * ((size_t)nloc + 1));
    got = malloc(sizeof(long) * ((size_t)n + 1));
    if (!asked || !got) rc = op2_error(OP2_ERR_MEM, "partitioning: out of memory");
  }
  for (int v = 0; rc == OP2_OK && v < nloc; v++) asked[v] = part2[v];
  for (int v = 0; rc == OP2_OK && v < n; v++) dest[v] = geo[v];
  rc = lookup(ctx, rc, n, newid, dest, asked, first, got);
  for (int v = 0; rc == OP2_OK && v < n; v++) part[v] = (int)got[v];
  if (rc == OP2_OK && fig) {
    long firsts[p + 1];
    graph_from_zero(ctx, h, prime, xadj, adjncy, firsts);
    rc = block_figures(ctx, prime, firsts, xadj, adjncy, &fig->qb);
  }
  if (rc == OP2_OK && fig) fig->known = 1;
  free(geo), free(count), free(below), free(vtxdist), free(newid), free(xadj), free(adjncy);
  free(dest), free(xnew), free(adjnew), free(part2), free(asked), free(got), free(counts);
  return rc;
}

/* The primary set's parts as the program gives them: an int dat of dim 1 (partition.c checked),
 * OP2's EXTERNAL partition (a "partvecNNNN" dataset read from HDF5). */
static int external_parts(op2_context *ctx, const op2_partition_spec *spec, int *part) {
  op_dat d = spec->data;
  const int *given = (const int *)d->data;
  for (int e = 0; e < d->set->size; e++) {
    if (given[e] < 0 || given[e] >= ctx->mpi.size)
      return op2_error(OP2_ERR_ARG,
                       "op_partition %s: dat '%s' gives element %ld of set '%s' part %d, outside "
                       "[0, %d) (one part per rank: was it written for another rank count?)",
                       spec->asked, d->name, d->set->decl_first + e, d->set->name, given[e],
                       ctx->mpi.size);
    part[e] = given[e];
  }
  return OP2_OK;
}

/* The report's figures from an arity-2 map onto the partitioned set, whose rows are the graph's
 * edges (OP2's edge-to-node or edge-to-cell map): a row is cut when its two ends land on
 * different ranks (or, for the declared blocks, are held by different ranks); a row linking an
 * element to itself is no edge. One exchange, for the parts of the ends other ranks declared,
 * instead of building and symmetrising the graph. Collective. */
static int map_figures(op2_context *ctx, const holders *h, op_set prime, op_map pm, const int *part,
                       part_figures *fig) {
  /* Rows go in rounds of at most this many, so that the lookup's buffers stay small beside the
   * mesh (all rows at once took as much memory as the map, more than the migration that follows).
   */
  enum { ROWS_PER_ROUND = 1 << 17 };
  const int p = ctx->mpi.size;
  const long rows = pm->from->size, chunk = 2L * ROWS_PER_ROUND;
  long *keys = malloc(sizeof(long) * (size_t)chunk), *ends = malloc(sizeof(long) * (size_t)chunk);
  long *table = malloc(sizeof(long) * ((size_t)prime->size + 1));
  long *count = calloc((size_t)p + 2, sizeof(long));
  int *dest = malloc(sizeof(int) * (size_t)chunk);
  int rc = keys && ends && table && count && dest
               ? OP2_OK
               : op2_error(OP2_ERR_MEM, "partitioning: out of memory");
  for (int v = 0; rc == OP2_OK && v < prime->size; v++) table[v] = part[v], count[part[v]]++;
  long rounds = (rows + ROWS_PER_ROUND - 1) / ROWS_PER_ROUND; /* every rank runs the most */
  int mpi_rc = OP2_MPI(MPI_Allreduce(MPI_IN_PLACE, &rounds, 1, MPI_LONG, MPI_MAX, op2_comm(ctx)));
  if (rc == OP2_OK) rc = mpi_rc;
  for (long round = 0; mpi_rc == OP2_OK && round < rounds; round++) {
    long r0 = round * ROWS_PER_ROUND, r1 = r0 + ROWS_PER_ROUND < rows ? r0 + ROWS_PER_ROUND : rows;
    long n = r1 > r0 ? 2 * (r1 - r0) : 0;
    for (long k = 0; rc == OP2_OK && k < n; k++)
      keys[k] = op2_map_gid(ctx, pm, (size_t)(2 * r0 + k)),
      dest[k] = holder_of(h, p, prime, keys[k]);
    rc = lookup(ctx, rc, rc == OP2_OK ? n : 0, keys, dest, table, prime->decl_first, ends);
    for (long r = 0; rc == OP2_OK && r < n / 2; r++) {
      if (keys[2 * r] == keys[2 * r + 1]) continue;
      count[p] += ends[2 * r] != ends[2 * r + 1];
      count[p + 1] += dest[2 * r] != dest[2 * r + 1];
    }
  }
  if (rc == OP2_OK)
    rc = OP2_MPI(MPI_Allreduce(MPI_IN_PLACE, count, p + 2, MPI_LONG, MPI_SUM, op2_comm(ctx)));
  if (rc == OP2_OK) {
    fig->q.edge_cut = count[p], fig->qb.edge_cut = count[p + 1];
    fig->q.min_part = fig->q.max_part = count[0];
    for (int q = 1; q < p; q++) {
      if (count[q] < fig->q.min_part) fig->q.min_part = count[q];
      if (count[q] > fig->q.max_part) fig->q.max_part = count[q];
    }
    fig->q.imbalance =
        prime->global_size > 0 ? (double)fig->q.max_part * p / (double)prime->global_size : 1.0;
    fig->known = 1;
  }
  free(keys), free(ends), free(table), free(count), free(dest);
  return rc;
}

/* OP2_DIAGS: the partition's figures on the graph of the report map: edge cut (element pairs the
 * map links that land on different ranks, each once), part sizes and imbalance, beside the
 * declared blocks' cut. PT-Scotch's at OP2_DIAGS=1 (as before, computed on its graph), the
 * others' at 2: their graph is built only for this. Collective. */
static int report_partition(op2_context *ctx, const holders *h, const op2_partition_spec *spec,
                            const char *ran, const int *part, double seconds,
                            const part_figures *known) {
  op_set prime = spec->prime;
  op_map pm = spec->prime_map;
  int level = spec->method == OP2_PART_PTSCOTCH ? 1 : 2;
  if (ctx->opt.diags < level) return OP2_OK;
  int me = ctx->mpi.rank;
  if (!pm) {
    if (me == 0)
      op2_diag(level, "op_partition %s: %s of set '%s' (%d parts) in %.3f s (no map: no edge cut)",
               spec->asked, ran, prime->name, ctx->mpi.size, seconds);
    return OP2_OK;
  }
  part_figures fig = *known;
  int rc = OP2_OK;
  if (!fig.known && pm->to == prime && pm->dim == 2)
    rc = map_figures(ctx, h, prime, pm, part, &fig);
  if (!fig.known && rc == OP2_OK) {
    int *xadj = NULL;
    long *adjncy = NULL;
    long vtxdist[ctx->mpi.size + 1];
    rc = primary_graph(ctx, h, prime, pm, &xadj, &adjncy);
    if (rc == OP2_OK) graph_from_zero(ctx, h, prime, xadj, adjncy, vtxdist);
    rc = op2_mpi_agree(ctx, rc, "partitioning");
    if (rc == OP2_OK && op2_partition_quality_of(op2_comm(ctx), prime->size, vtxdist, xadj, adjncy,
                                                 ctx->mpi.size, part, &fig.q) != 0)
      rc = op2_error(OP2_ERR_STATE, "op_partition %s: the partition's figures failed", spec->asked);
    rc = op2_mpi_agree(ctx, rc, "partitioning");
    if (rc == OP2_OK) rc = block_figures(ctx, prime, vtxdist, xadj, adjncy, &fig.qb);
    free(xadj), free(adjncy);
  }
  if (rc == OP2_OK && me == 0)
    op2_diag(level,
             "partition of '%s' (%s: %s, %d parts) in %.3f s: edge cut %ld (declared blocks: "
             "%ld) on map '%s', parts %ld..%ld elements, imbalance %.3f",
             prime->name, spec->asked, ran, ctx->mpi.size, seconds, fig.q.edge_cut, fig.qb.edge_cut,
             pm->name, fig.q.min_part, fig.q.max_part, fig.q.imbalance);
  return rc;
}

static const char *method_name(op2_part_method m) {
  switch (m) {
    case OP2_PART_PTSCOTCH:
      return "PT-Scotch k-way";
    case OP2_PART_GEOMETRIC:
      return "recursive coordinate bisection";
    case OP2_PART_EXTERNAL:
      return "the program's partition";
    default:
      return "declared blocks";
  }
}

static int partition_owners(op2_context *ctx, const holders *h, const op2_partition_spec *spec,
                            int **owner) {
  int me = ctx->mpi.rank;
  if (spec->method != OP2_PART_BLOCK) {
    op_set prime = spec->prime;
    int *part = malloc(sizeof(int) * ((size_t)prime->size + 1));
    int rc = part ? OP2_OK : op2_error(OP2_ERR_MEM, "partitioning: out of memory");
    double t0 = op2_wall_seconds(), t_step = t0;
    part_figures fig = {0};
    const int report = ctx->opt.diags >= 1;
    if (rc == OP2_OK && spec->method == OP2_PART_PTSCOTCH && spec->data)
      rc = geomkway_parts(ctx, h, spec, part, report ? &fig : NULL);
    else if (rc == OP2_OK && spec->method == OP2_PART_PTSCOTCH)
      rc = ptscotch_parts(ctx, h, prime, spec->prime_map, part, report ? &fig : NULL);
    else if (rc == OP2_OK && spec->method == OP2_PART_GEOMETRIC)
      rc = geometric_parts(ctx, spec->data, part);
    else if (rc == OP2_OK)
      rc = external_parts(ctx, spec, part);
    rc = op2_mpi_agree(ctx, rc, "partitioning");
    double seconds = op2_wall_seconds() - t0;
    if (spec->method != OP2_PART_PTSCOTCH) op2_mpi_step_time(ctx, &t_step, "partitioner");
    t_step = op2_wall_seconds();
    if (rc == OP2_OK)
      rc = report_partition(ctx, h, spec, method_name(spec->method), part, seconds, &fig);
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

/* ---- moving elements to their owners ---- */

/* One array of the set (a dat's rows or a map's), moved: its leaving rows packed in destination
 * order (slot[]), exchanged, and the array rearranged in the new order (by[]: a received row's
 * index, or -1 - an index into stay[]), so the set's other arrays are never copied at the same
 * time. Collective: every rank calls it for the same arrays, with its status so far. */
static int move_array(op2_context *ctx, int status, op_set set, char **data, size_t row,
                      long nleave, const int *leave, const int *slot, const int *counts,
                      const int *stay, long n, const pair *by, int keep) {
  int p = ctx->mpi.size;
  int *recv_counts = malloc(sizeof(int) * (size_t)p);
  char *send = status == OP2_OK ? malloc(row * (size_t)nleave + 1) : NULL, *recv = NULL;
  int rc = status != OP2_OK ? status
           : send && recv_counts
               ? OP2_OK
               : op2_error(OP2_ERR_MEM, "moving set '%s': out of memory", set->name);
  for (long i = 0; rc == OP2_OK && i < nleave; i++)
    memcpy(send + (size_t)slot[i] * row, *data + (size_t)leave[i] * row, row);
  long nrecv = 0;
  rc = op2_alltoallv(ctx, rc, send, counts, row, (void **)&recv, recv_counts, &nrecv);
  free(send);
  if (rc == OP2_OK && !keep && ctx->mpi_replicated) { /* whole-mesh arrays: cut down to size */
    size_t bytes = (size_t)n * row + 1;
    char *fresh = op2_aligned_alloc_room(bytes, op2_halo_room(ctx, bytes));
    if (!fresh) rc = op2_error(OP2_ERR_MEM, "moving set '%s': out of memory", set->name);
    for (long e = 0; fresh && e < n; e++)
      memcpy(fresh + (size_t)e * row,
             by[e].b >= 0 ? recv + (size_t)by[e].b * row : *data + (size_t)stay[-1 - by[e].b] * row,
             row);
    if (fresh) free(*data), *data = fresh;
  } else if (rc == OP2_OK && !keep) {
    /* In place, without a second copy of the array: the rows that stay move to the front
     * (stay[s] >= s), the array grows into its halo room (or is copied once where that is too
     * small), then from the back every row goes to its new place e: a staying row's s <= e, and
     * the staying rows not yet placed all lie below e, so nothing is overwritten before read. */
    long nstay = 0;
    for (long e = 0; e < n; e++) nstay += by[e].b < 0;
    for (long k = 0; k < nstay; k++)
      if (stay[k] != k) memcpy(*data + (size_t)k * row, *data + (size_t)stay[k] * row, row);
    char *grown = op2_aligned_grow(*data, (size_t)nstay * row, (size_t)n * row + 1);
    if (!grown) rc = op2_error(OP2_ERR_MEM, "moving set '%s': out of memory", set->name);
    for (long e = n - 1; grown && e >= 0; e--) {
      long k = -1 - by[e].b;
      if (by[e].b >= 0)
        memcpy(grown + (size_t)e * row, recv + (size_t)by[e].b * row, row);
      else if (k != e)
        memmove(grown + (size_t)e * row, grown + (size_t)k * row, row);
    }
    if (grown) *data = grown;
  }
  free(recv), free(recv_counts);
  return rc;
}

/* Collective: every rank calls it with its status so far. Only the elements that leave travel:
 * first their global indices, which give the new order (increasing global index; with declared
 * blocks, rows from lower ranks, those that stay, then rows from higher ranks are in order
 * already, otherwise (global, where) pairs are sorted, never the rows), then one array of the set
 * at a time, so that a rank holds at most the mesh and one array's leaving and received rows,
 * never two copies of every array of the set (the records of every dat and map row took more memory
 * than the rest of the distribution). */
static int migrate(op2_context *ctx, int status, op_set set, const int *owner) {
  int p = ctx->mpi.size, me = ctx->mpi.rank;
  long n = set->size, nleave = 0, nstay = 0;
  int *stay = malloc(sizeof(int) * ((size_t)n + 1)), *leave = malloc(sizeof(int) * ((size_t)n + 1));
  int *slot = malloc(sizeof(int) * ((size_t)n + 1));
  long *global = malloc(sizeof(long) * ((size_t)n + 1)),
       *fill = calloc((size_t)p + 1, sizeof(long));
  int *counts = calloc((size_t)p * 2, sizeof(int));
  int rc = status;
  if (rc == OP2_OK && (!stay || !leave || !slot || !global || !fill || !counts))
    rc = op2_error(OP2_ERR_MEM, "distribution: out of memory");
  for (long e = 0; rc == OP2_OK && e < n; e++) {
    if (owner[e] == me)
      stay[nstay++] = (int)e;
    else
      leave[nleave++] = (int)e, counts[owner[e]]++;
  }
  for (int q = 0; rc == OP2_OK && q < p; q++) fill[q + 1] = fill[q] + counts[q];
  for (long i = 0; rc == OP2_OK && i < nleave; i++) {
    slot[i] = (int)fill[owner[leave[i]]]++;
    global[slot[i]] = set->decl_first + leave[i];
  }
  op2_set_held_rows(set, nleave);
  long *recv = NULL, nrecv = 0;
  int *recv_counts = counts + p;
  rc = op2_alltoallv(ctx, rc, global, counts, sizeof(long), (void **)&recv, recv_counts, &nrecv);
  long below = 0;
  for (int q = 0; rc == OP2_OK && q < me; q++) below += recv_counts[q];
  long nnew = nstay + nrecv, k = 0;
  op2_set_held_rows(set, nrecv);
  op2_set_held_rows(set, nnew);
  /* Nothing moved here: the arrays stay (unless they are whole-mesh arrays, to be cut down) */
  int keep = nrecv == 0 && nstay == n && !ctx->mpi_replicated;
  pair *by = rc == OP2_OK ? malloc(sizeof(pair) * ((size_t)nnew + 1)) : NULL;
  idx_g_t *orig = rc == OP2_OK ? malloc(sizeof(idx_g_t) * ((size_t)nnew + 1)) : NULL;
  if (rc == OP2_OK && (!by || !orig)) rc = op2_error(OP2_ERR_MEM, "distribution: out of memory");
  if (rc == OP2_OK) {
    for (long r = 0; r < below; r++) by[k++] = (pair){recv[r], r};
    for (long e = 0; e < nstay; e++) by[k++] = (pair){set->decl_first + stay[e], -1 - e};
    for (long r = below; r < nrecv; r++) by[k++] = (pair){recv[r], r};
    int sorted = 1;
    for (long e = 1; sorted && e < nnew; e++) sorted = by[e - 1].a < by[e].a;
    if (!sorted) qsort(by, (size_t)nnew, sizeof(pair), cmp_pair);
    for (long e = 0; e < nnew; e++) orig[e] = by[e].a;
  }
  free(recv), free(global);
  for (int i = 0; i < ctx->dats.count; i++) { /* every rank: the same arrays, in list order */
    op_dat d = ctx->dats.items[i];
    if (d->set == set)
      rc = move_array(ctx, rc, set, &d->data, d->elem_bytes, nleave, leave, slot, counts, stay,
                      nnew, by, keep);
  }
  for (int i = 0; i < ctx->maps.count; i++) {
    op_map m = ctx->maps.items[i];
    if (m->from == set)
      rc = move_array(ctx, rc, set, op2_map_rows(m), op2_map_row_bytes(m), nleave, leave, slot,
                      counts, stay, nnew, by, keep);
  }
  if (rc == OP2_OK) {
    free(set->orig);
    set->orig = orig, orig = NULL;
    set->size = set->core_size = (int)nnew;
  }
  free(orig), free(by), free(stay), free(leave), free(slot), free(fill), free(counts);
  return rc;
}

/* This process's peak resident set in KiB: VmHWM, or getrusage's ru_maxrss where /proc is not. */
static long peak_rss_kib(void) {
  long kib = -1;
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, "VmHWM:", 6) == 0) kib = strtol(line + 6, NULL, 10);
  if (f) fclose(f);
  struct rusage ru;
  if (kib < 0 && getrusage(RUSAGE_SELF, &ru) == 0) kib = ru.ru_maxrss;
  return kib;
}

int op2_halo_build(op2_context *ctx);

/* Settles how the program declared and brings a whole-mesh declaration down to blocks, so every
 * set is "each rank its block, global index decl_first + e" from here on. Collective, once. */
int op2_mpi_prepare(op2_context *ctx) {
  if (ctx->mpi_lost) /* every rank set it, after the same agreed failure */
    return op2_error(OP2_ERR_STATE,
                     "distribution: the mesh's distribution failed earlier, after elements had "
                     "begun to move between ranks (the first error said why): this rank's sets, "
                     "maps and dats are incomplete, so no loop or fetch can use them");
  if (ctx->mpi_prepared) return OP2_OK;
  int replicated = ctx->opt.mpi_decl == OP2_DECL_REPLICATED;
  if (ctx->opt.mpi_decl == OP2_DECL_AUTO) OP2_CALL(declared_everywhere(ctx, &replicated));
  for (int s = 0; s < ctx->sets.count; s++) /* as declared: blocks, or the whole mesh */
    op2_set_held_rows(ctx->sets.items[s], ((op_set)ctx->sets.items[s])->size);
  if (replicated) { /* the maps' rows are cut to blocks: checked first, as the program left them */
    int rc = op2_maps_check_all(ctx, "the distribution of the mesh", false);
    OP2_CALL(op2_mpi_agree(ctx, rc == OP2_OK ? slice_to_blocks(ctx) : rc, "distribution"));
    op2_maps_seal_all(ctx);
  }
  ctx->mpi_replicated = replicated;
  ctx->mpi_prepared = true;
  return OP2_OK;
}

/* Prepares, gives every element its owner, moves the elements and builds the halos. Local
 * failures are carried to the next collective (which agrees on them), never returned early.
 * *label becomes the report's name of what was done when the declared blocks are kept; *moving
 * becomes true where no failure is agreed before the elements start to move, which is where a
 * failure stops leaving the declared mesh as it was. */
static int distribute(op2_context *ctx, const op2_partition_spec *spec, const char **label,
                      bool *moving) {
  double t_step = ctx->mpi.t_dist_start = op2_wall_seconds();
  OP2_CALL(op2_mpi_prepare(ctx));
  op2_mpi_step_time(ctx, &t_step, "declaration check");
  holders h;
  OP2_CALL(holders_init(ctx, &h));
  /* holders_init ended in an agreement, so every rank is here for this collective check */
  op2_partition_spec how = *spec;
  if (how.method == OP2_PART_PTSCOTCH) { /* only a graph partitioner may be skipped */
    int keep = 0, rc = op2_mpi_keep_blocks(ctx, h.first, how.asked, &keep);
    if (rc != OP2_OK) return free(h.first), rc;
    if (keep) how.method = OP2_PART_BLOCK, *label = "declared blocks kept, PTSCOTCH not run";
  }
  int **owner = calloc((size_t)ctx->sets.count + 1, sizeof(int *));
  int rc = owner ? OP2_OK : op2_error(OP2_ERR_MEM, "partitioning: out of memory");
  if (rc == OP2_OK) rc = partition_owners(ctx, &h, &how, owner);
  /* partition_owners ends in collectives every rank passed, or fails locally after them */
  op2_mpi_step_time(ctx, &t_step, "ownership");
  ctx->mpi.t_owned = t_step;
  rc = op2_mpi_agree(ctx, rc, "partitioning");
  *moving = rc == OP2_OK;
  for (int s = 0; rc == OP2_OK && s < ctx->sets.count; s++) {
    rc = migrate(ctx, rc, ctx->sets.items[s], owner[s]);
    /* The set's old arrays and messages are free: give their pages back before the next set's
     * (freed blocks inside the heap stay resident, and each set's would add to the peak). */
    malloc_trim(0);
  }
  for (int s = 0; owner && s < ctx->sets.count; s++) free(owner[s]);
  for (int s = 0; rc == OP2_OK && s < ctx->sets.count; s++) { /* kept for fetches */
    op_set set = ctx->sets.items[s];
    set->decl_firsts = malloc(sizeof(long) * ((size_t)ctx->mpi.size + 1));
    if (!set->decl_firsts)
      rc = op2_error(OP2_ERR_MEM, "partitioning: out of memory");
    else
      memcpy(set->decl_firsts, h.first + (size_t)s * (ctx->mpi.size + 1),
             sizeof(long) * ((size_t)ctx->mpi.size + 1));
  }
  free(owner), free(h.first);
  rc = op2_mpi_agree(ctx, rc, "distribution");
  op2_mpi_step_time(ctx, &t_step, "migration");
  ctx->mpi.t_moved = t_step;
  if (rc == OP2_OK) rc = op2_mpi_renumber_owned(ctx);
  if (rc == OP2_OK && ctx->renumbered) op2_mpi_step_time(ctx, &t_step, "renumbering");
  if (rc == OP2_OK) rc = op2_halo_build(ctx);
  for (int s = 0; rc == OP2_OK && s < ctx->sets.count; s++) {
    op_set set = ctx->sets.items[s];
    op2_set_held_rows(set, (long)set->size + set->exec_size + set->nonexec_size);
  }
  op2_mpi_step_time(ctx, &t_step, "halos");
  ctx->mpi.t_halos = t_step;
  return rc;
}

void op2_mpi_step_time(const op2_context *ctx, double *t, const char *step) {
  double now = op2_wall_seconds();
  if (ctx->mpi.rank == 0 && ctx->opt.diags >= 2) /* rank 0's peak so far: which step raised it */
    op2_diag(2, "distribution: %s %.3f s (peak RSS %.0f MiB)", step, now - *t,
             peak_rss_kib() / 1024.0);
  *t = now;
}

/* OP2_DIAGS=2: what input and distribution held. Per set, the most rows of one of its datasets a
 * rank read and the most of its rows a rank held in one array (against the uniform block
 * ceil(N/P): more means some rank read or assembled more than its share), then every rank's peak
 * resident memory so far. Collective; rank 0 prints. */
static int report_memory(op2_context *ctx) {
  int p = ctx->mpi.size;
  for (int s = 0; s < ctx->sets.count; s++) {
    op_set set = ctx->sets.items[s];
    long mine[3] = {set->rows_read_most, set->rows_held_most,
                    (long)set->size + set->exec_size + set->nonexec_size},
         most[3];
    OP2_CALL(OP2_MPI(MPI_Reduce(mine, most, 3, MPI_LONG, MPI_MAX, 0, op2_comm(ctx))));
    if (ctx->mpi.rank == 0)
      op2_diag(2,
               "input: set '%s' (%ld elements, block %ld): at most %ld rows of a dataset read, "
               "%ld rows held in one array, %ld owned and halo now, on a rank",
               set->name, set->global_size, (set->global_size + p - 1) / p, most[0], most[1],
               most[2]);
  }
  long kib = peak_rss_kib(), *all = ctx->mpi.rank == 0 ? malloc(sizeof(long) * (size_t)p) : NULL;
  int rc = OP2_MPI(MPI_Gather(&kib, 1, MPI_LONG, all, 1, MPI_LONG, 0, op2_comm(ctx)));
  if (rc == OP2_OK && all) {
    char line[2048] = "";
    size_t at = 0;
    long lo = all[0], hi = all[0];
    for (int q = 0; q < p; q++) {
      lo = all[q] < lo ? all[q] : lo, hi = all[q] > hi ? all[q] : hi;
      if (at < sizeof line - 32)
        at += (size_t)snprintf(line + at, sizeof line - at, " %.1f", all[q] / 1024.0);
    }
    op2_diag(
        2,
        "input: peak RSS per rank after distribution (VmHWM, MiB): min %.1f, max %.1f; by rank:%s",
        lo / 1024.0, hi / 1024.0, line);
  }
  free(all);
  return rc;
}

/* Diagnostics once distributed: halo sizes per set (collective, printed by rank 0). */
static int report(op2_context *ctx, const char *lib, double t0) {
  if (ctx->opt.diags >= 2) OP2_CALL(report_memory(ctx));
  for (int s = 0; s < ctx->sets.count && ctx->opt.diags >= 1; s++) {
    op_set set = ctx->sets.items[s];
    long mine[4] = {set->size, set->core_size, set->exec_size, set->nonexec_size}, sum[4], max[4];
    OP2_CALL(OP2_MPI(MPI_Reduce(mine, sum, 4, MPI_LONG, MPI_SUM, 0, op2_comm(ctx))));
    OP2_CALL(OP2_MPI(MPI_Reduce(mine, max, 4, MPI_LONG, MPI_MAX, 0, op2_comm(ctx))));
    if (ctx->mpi.rank == 0)
      op2_diag(1,
               "set '%s': owned max %ld (imbalance %.3f), core %ld, exec halo %ld, non-exec "
               "halo %ld (sums over ranks)",
               set->name, max[0], sum[0] ? (double)max[0] * ctx->mpi.size / (double)sum[0] : 1.0,
               sum[1], sum[2], sum[3]);
  }
  if (ctx->mpi.rank == 0)
    op2_diag(1, "mesh distributed over %d ranks (%s declaration, %s) in %.3f s", ctx->mpi.size,
             ctx->mpi_replicated ? "whole mesh on every rank" : "each rank its block",
             lib ? lib : "BLOCK", op2_wall_seconds() - t0);
  return OP2_OK;
}

/* One collective step: every rank ends it knowing whether every rank succeeded. */
int op2_mpi_partition(op2_context *ctx, const op2_partition_spec *spec) {
  if (ctx->mpi_distributed) return OP2_OK;
  double t0 = op2_wall_seconds();
  op2_mpi_step(ctx, "distribution");
  bool moving = false;
  const char *label = spec->method == OP2_PART_BLOCK ? "BLOCK" : spec->asked;
  /* the maps' values as the program left them (it may write them until now); after a
   * distribution that failed half way they are neither, which distribute() reports */
  int rc = ctx->mpi_lost ? OP2_OK : op2_maps_check_all(ctx, "the distribution of the mesh", true);
  rc = op2_mpi_step_end(ctx, rc == OP2_OK ? distribute(ctx, spec, &label, &moving) : rc);
  if (rc != OP2_OK) {
    if (moving) ctx->mpi_lost = true; /* before the elements move, a retry finds what it had */
    return rc;
  }
  op2_maps_seal_all(ctx); /* moved, renumbered, made local */
  ctx->mpi_distributed = true;
  return report(ctx, label, t0);
}

/* The first loop's distribution (lib NULL: the declared blocks), or PT-Scotch on prime_map. */
int op2_mpi_distribute(op2_context *ctx, const char *lib, op_set prime, op_map prime_map) {
  op2_partition_spec spec = {
      .method = lib && strcmp(lib, "PTSCOTCH") == 0 ? OP2_PART_PTSCOTCH : OP2_PART_BLOCK,
      .asked = lib ? lib : "BLOCK",
      .prime = prime,
      .prime_map = prime_map};
  return op2_mpi_partition(ctx, &spec);
}
