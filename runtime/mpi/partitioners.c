/* SPDX-License-Identifier: BSD-3-Clause */
/* The partitioning's second step: the primary set's parts (one per rank), by the method
 * op_partition's names chose (partition.c): PT-Scotch k-way on the primary graph, recursive
 * coordinate bisection of the coordinates, both (GEOMKWAY: the graph moved to the bisection's
 * ranks, then PT-Scotch), or the program's own parts. Collective. */
#include <stdlib.h>
#include <string.h>

#include "runtime/mpi/distribute.h"
#include "runtime/mpi/geometric.h"
#include "runtime/error.h"
#include "runtime/options.h"

/* PT-Scotch k-way on the graph of its map; with `fig`, also the figures of the report
 * (PT-Scotch computes the partition's on its graph). */
static int ptscotch_parts(op2_context *ctx, const op2_holders *h, op_set prime, op_map pm,
                          int *part, op2_part_figures *fig) {
  int *xadj = NULL;
  long *adjncy = NULL;
  double t_step = op2_wall_seconds();
  int rc = op2_primary_graph(ctx, h, prime, pm, &xadj, &adjncy);
  op2_mpi_step_time(ctx, &t_step, "graph of the primary set");
  long vtxdist[ctx->mpi.size + 1];
  if (rc == OP2_OK) op2_graph_from_zero(ctx, h, prime, xadj, adjncy, vtxdist);
  op2_jit_error err;
  /* every rank must enter the collectives below, or none */
  rc = op2_mpi_agree(ctx, rc, "partitioning");
  if (rc == OP2_OK &&
      op2_ptscotch_kway(op2_comm(ctx), prime->size, vtxdist, xadj, adjncy, ctx->mpi.size,
                        ctx->opt.ptscotch_check, part, fig ? &fig->q : NULL, &err) != 0)
    rc = op2_error_record(&err, "op_partition PTSCOTCH on set '%s': %s", prime->name, err.msg);
  op2_mpi_step_time(ctx, &t_step, "PT-Scotch k-way");
  rc = op2_mpi_agree(ctx, rc, "partitioning");
  if (rc == OP2_OK && fig) rc = op2_block_figures(ctx, prime, vtxdist, xadj, adjncy, &fig->qb);
  if (rc == OP2_OK && fig) fig->known = 1;
  free(xadj), free(adjncy);
  return rc;
}

/* Recursive coordinate bisection of its coordinates (float or double, dim 1 to 3: partition.c
 * checked), each rank bisecting with its declared rows. */
static int geometric_parts(op2_context *ctx, op_dat coords, int *part) {
  op_set set = coords->set;
  const int n = set->size, dim = coords->dim;
  double *xyz = malloc(sizeof(double) * ((size_t)n * dim + 1));
  int rc = xyz ? OP2_OK : op2_error(OP2_ERR_MEM, "partitioning: out of memory");
  for (long k = 0; rc == OP2_OK && k < (long)n * dim; k++)
    xyz[k] = coords->type == OP2_TYPE_FLOAT ? (double)((const float *)coords->data)[k]
                                            : ((const double *)coords->data)[k];
  op2_jit_error err;
  rc = op2_mpi_agree(ctx, rc, "partitioning");
  if (rc == OP2_OK &&
      op2_rcb_partition(op2_comm(ctx), n, dim, xyz, set->decl_first - op2_gid_base(ctx),
                        ctx->mpi.size, OP2_PARTITION_BALANCE, part, &err) != 0)
    rc = op2_error_record(&err, "op_partition: recursive coordinate bisection of '%s': %s",
                          coords->name, err.msg);
  free(xyz);
  return rc;
}

/* GEOMKWAY's arrays: the bisection's numbering of the primary set, and the graph moved to it. */
typedef struct geomkway {
  int *geo;            /* each declared element's bisection part */
  long *count, *below; /* per part: this rank's elements in it, those of lower ranks */
  long *vtxdist;       /* p + 1: where each bisection part's new numbers start */
  long *newid;         /* each declared element's new number */
  int *xadj;           /* the graph in the declared numbering */
  long *adjncy;
  int *dest;          /* per arc, then per element: the rank asked */
  int *xnew, *counts; /* the moved graph's rows (this rank's bisection part, new numbers) */
  long *adjnew;
  int nloc; /* the vertices of this rank's bisection part */
} geomkway;

static void geomkway_free(geomkway *g) {
  free(g->geo), free(g->count), free(g->below), free(g->vtxdist), free(g->newid);
  free(g->xadj), free(g->adjncy), free(g->dest), free(g->xnew), free(g->adjnew), free(g->counts);
}

/* Step 1: the bisection's parts and the new numbers they give: part r holds vtxdist[r] .., in
 * (declaring rank, index) order. */
static int number_by_bisection(op2_context *ctx, const op2_partition_spec *spec, geomkway *g,
                               double *t_step) {
  const int n = spec->prime->size, p = ctx->mpi.size, me = ctx->mpi.rank;
  g->geo = malloc(sizeof(int) * ((size_t)n + 1));
  g->count = calloc((size_t)p, sizeof(long)), g->below = calloc((size_t)p, sizeof(long));
  g->vtxdist = calloc((size_t)p + 1, sizeof(long)), g->newid = malloc(sizeof(long) * (n + 1UL));
  int rc = g->geo && g->count && g->below && g->vtxdist && g->newid
               ? OP2_OK
               : op2_error(OP2_ERR_MEM, "partitioning: out of memory");
  rc = op2_mpi_agree(ctx, rc, "partitioning");
  if (rc == OP2_OK) rc = geometric_parts(ctx, spec->data, g->geo);
  op2_mpi_step_time(ctx, t_step, "recursive coordinate bisection");
  for (int v = 0; rc == OP2_OK && v < n; v++) g->count[g->geo[v]]++;
  if (rc == OP2_OK)
    rc = OP2_MPI(MPI_Exscan(g->count, g->below, p, MPI_LONG, MPI_SUM, op2_comm(ctx)));
  if (rc == OP2_OK && me == 0) memset(g->below, 0, sizeof(long) * (size_t)p); /* Exscan leaves it */
  if (rc == OP2_OK)
    rc = OP2_MPI(MPI_Allreduce(g->count, g->vtxdist + 1, p, MPI_LONG, MPI_SUM, op2_comm(ctx)));
  for (int q = 0; rc == OP2_OK && q < p; q++) g->vtxdist[q + 1] += g->vtxdist[q];
  for (int v = 0; rc == OP2_OK && v < n; v++)
    g->newid[v] = g->vtxdist[g->geo[v]] + g->below[g->geo[v]]++;
  return op2_mpi_agree(ctx, rc, "partitioning");
}

/* Step 2: the graph in the declared numbering, its neighbours renumbered by their holders, each
 * arc (new numbers) sent to the rank of its first end, and that rank's rows assembled. */
static int move_graph(op2_context *ctx, const op2_holders *h, const op2_partition_spec *spec,
                      int rc, geomkway *g, double *t_step) {
  op_set prime = spec->prime;
  const int n = prime->size, p = ctx->mpi.size, me = ctx->mpi.rank;
  long *nbr = NULL, *pairs = NULL, arcs = 0, npairs = 0;
  void *recv = NULL, *grouped = NULL;
  if (rc == OP2_OK) rc = op2_primary_graph(ctx, h, prime, spec->prime_map, &g->xadj, &g->adjncy);
  rc = op2_mpi_agree(ctx, rc, "partitioning");
  if (rc == OP2_OK) {
    arcs = g->xadj[n];
    nbr = malloc(sizeof(long) * (arcs + 1UL));
    g->dest = malloc(sizeof(int) * (arcs + 1UL + n));
    pairs = malloc(sizeof(long) * 2 * (arcs + 1UL));
    if (!nbr || !g->dest || !pairs) rc = op2_error(OP2_ERR_MEM, "partitioning: out of memory");
  }
  for (long k = 0; rc == OP2_OK && k < arcs; k++)
    g->dest[k] = op2_holder_of(h, p, prime, g->adjncy[k]);
  rc = op2_holders_lookup(ctx, rc, arcs, g->adjncy, g->dest, g->newid, prime->decl_first, nbr);
  g->counts = malloc(sizeof(int) * 2 * (size_t)p);
  if (rc == OP2_OK && !g->counts) rc = op2_error(OP2_ERR_MEM, "partitioning: out of memory");
  for (int v = 0; rc == OP2_OK && v < n; v++)
    for (int k = g->xadj[v]; k < g->xadj[v + 1]; k++)
      pairs[2 * k] = g->newid[v], pairs[2 * k + 1] = nbr[k], g->dest[k] = g->geo[v];
  if (rc == OP2_OK)
    rc = op2_group_by_rank(p, arcs, pairs, g->dest, 2 * sizeof(long), &grouped, g->counts);
  rc = op2_alltoallv(ctx, rc, grouped, g->counts, 2 * sizeof(long), &recv, g->counts + p, &npairs);
  free(grouped), free(pairs), free(nbr);
  op2_mpi_step_time(ctx, t_step, "graph moved to the bisection's ranks");
  const long first = g->vtxdist[me];
  g->nloc = (int)(g->vtxdist[me + 1] - g->vtxdist[me]);
  if (rc == OP2_OK) {
    g->xnew = calloc((size_t)g->nloc + 1, sizeof(int));
    g->adjnew = malloc(sizeof(long) * ((size_t)npairs + 1));
    if (!g->xnew || !g->adjnew) rc = op2_error(OP2_ERR_MEM, "partitioning: out of memory");
  }
  const long *in = recv;
  for (long k = 0; rc == OP2_OK && k < npairs; k++) g->xnew[in[2 * k] - first + 1]++;
  for (int v = 0; rc == OP2_OK && v < g->nloc; v++) g->xnew[v + 1] += g->xnew[v];
  for (long k = 0; rc == OP2_OK && k < npairs; k++) {
    int *at = &g->xnew[in[2 * k] - first]; /* the row's fill cursor: restored below */
    g->adjnew[(*at)++] = in[2 * k + 1];
  }
  for (int v = g->nloc; rc == OP2_OK && v > 0; v--) g->xnew[v] = g->xnew[v - 1];
  if (rc == OP2_OK) g->xnew[0] = 0;
  free(recv);
  return rc;
}

/* PARMETIS GEOMKWAY, ParMETIS's idea with PT-Scotch: the graph first moves to the ranks a
 * recursive coordinate bisection gives (compact pieces, where the declared blocks of a mesh
 * numbered at random scatter every rank's vertices over the whole mesh), PT-Scotch k-way runs
 * on it there, and each part comes back to the vertex's declared holder. */
static int geomkway_parts(op2_context *ctx, const op2_holders *h, const op2_partition_spec *spec,
                          int *part, op2_part_figures *fig) {
  op_set prime = spec->prime;
  const int n = prime->size, p = ctx->mpi.size, me = ctx->mpi.rank;
  double t_step = op2_wall_seconds();
  geomkway g = {0};
  int rc = number_by_bisection(ctx, spec, &g, &t_step);
  rc = move_graph(ctx, h, spec, rc, &g, &t_step);
  int *part2 = rc == OP2_OK ? malloc(sizeof(int) * ((size_t)g.nloc + 1)) : NULL;
  if (rc == OP2_OK && !part2) rc = op2_error(OP2_ERR_MEM, "partitioning: out of memory");
  rc = op2_mpi_agree(ctx, rc, "partitioning");
  op2_jit_error err;
  if (rc == OP2_OK &&
      op2_ptscotch_kway(op2_comm(ctx), g.nloc, g.vtxdist, g.xnew, g.adjnew, p,
                        ctx->opt.ptscotch_check, part2, fig ? &fig->q : NULL, &err) != 0)
    rc = op2_error_record(&err, "op_partition %s on set '%s': %s", spec->asked, prime->name,
                          err.msg);
  op2_mpi_step_time(ctx, &t_step, "PT-Scotch k-way");
  rc = op2_mpi_agree(ctx, rc, "partitioning");
  /* Step 3: the parts back to the declared holders: each asks the rank its vertex moved to. */
  long *asked = NULL, *got = NULL;
  if (rc == OP2_OK) {
    asked = malloc(sizeof(long) * ((size_t)g.nloc + 1));
    got = malloc(sizeof(long) * ((size_t)n + 1));
    if (!asked || !got) rc = op2_error(OP2_ERR_MEM, "partitioning: out of memory");
  }
  for (int v = 0; rc == OP2_OK && v < g.nloc; v++) asked[v] = part2[v];
  for (int v = 0; rc == OP2_OK && v < n; v++) g.dest[v] = g.geo[v];
  rc = op2_holders_lookup(ctx, rc, n, g.newid, g.dest, asked, g.vtxdist[me], got);
  for (int v = 0; rc == OP2_OK && v < n; v++) part[v] = (int)got[v];
  if (rc == OP2_OK && fig) {
    long firsts[p + 1];
    op2_graph_from_zero(ctx, h, prime, g.xadj, g.adjncy, firsts);
    rc = op2_block_figures(ctx, prime, firsts, g.xadj, g.adjncy, &fig->qb);
  }
  if (rc == OP2_OK && fig) fig->known = 1;
  geomkway_free(&g);
  free(part2), free(asked), free(got);
  return rc;
}

/* The program's own parts: an int dat of dim 1 (partition.c checked), OP2's EXTERNAL partition
 * (a "partvecNNNN" dataset read from HDF5). */
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

int op2_partition_parts(op2_context *ctx, const op2_holders *h, const op2_partition_spec *spec,
                        int *part, op2_part_figures *fig) {
  if (spec->method == OP2_PART_PTSCOTCH && spec->data)
    return geomkway_parts(ctx, h, spec, part, fig);
  if (spec->method == OP2_PART_PTSCOTCH)
    return ptscotch_parts(ctx, h, spec->prime, spec->prime_map, part, fig);
  if (spec->method == OP2_PART_GEOMETRIC) return geometric_parts(ctx, spec->data, part);
  return external_parts(ctx, spec, part);
}
