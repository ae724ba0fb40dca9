/* SPDX-License-Identifier: BSD-3-Clause */
/* Halo construction checked against brute force. Usage: t410-halo local|replicated PTSCOTCH|BLOCK
 *
 * A small random mesh (nodes, cells of four nodes, triangles of three, edges to two nodes and two
 * cells, boundary edges to one cell, a set no map touches, a set mapped to itself, and an empty
 * set with a map) is distributed; then every rank gathers the global owner of every element (from
 * set->orig of the elements it owns) and recomputes from the whole mesh what its halos must be:
 *   exec halo of S:     elements owned elsewhere that reach a target owned here through a map
 *                       from S;
 *   non-exec halo of T: targets of owned and exec rows (maps to T) neither owned nor exec here.
 * It checks set sizes, that the import regions hold exactly those elements, that every import
 * range comes from the rank it names, that rank r's export list to q equals, element by element,
 * q's import range from r, that core elements reach only owned targets, that map values translate
 * back to the declared global values, and that dat rows (owned, exec, and non-exec after an
 * exchange) carry the values declared for their global index. A kernel reading every map
 * checks, on the fly, the indices op_arg_idx gives and the values reached through the map.
 *
 * The program calls MPI_Init itself (op_init must then leave MPI alone, op_exit too); BLOCK is
 * left to the first loop, PTSCOTCH is an explicit op_partition. */
#include "mpi_test.h"
#include "runtime/op2_impl.h"
#include "runtime/distributed.h"

enum { NN = 180, NC = 120, NT = 70, NE = 300, NB = 30, NL = 17, NR = 90, NV = 0 };
enum { NSETS = 8, NMAPS = 7 };

/* Declared value of dat "gid" on set s at global index g: identifies both. */
static long long gid_value(int s, int g) {
  return 1000003LL * (s + 1) + g;
}

KERNEL_TEXT(
    check_targets, static void check_targets(const int *self, const long long *own, const int *t,
                                             const long long *tv, int *bad, int *seen) {
      if (*own != set_code * 1000003LL + *self) *bad += 1;
      if (*tv != to_code * 1000003LL + *t) *bad += 1;
      *seen += 1;
    })

typedef struct world {
  int p, me;
  mt_set sets[NSETS];
  op_map maps[NMAPS];
  int *gvals[NMAPS]; /* whole-mesh map values */
  int *owner[NSETS]; /* global index -> owning rank */
  op_dat gid[NSETS];
  op_dat coords[NSETS];
} world;

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* The user's index of local element e (global ids start at OP2_TEST_ID_BASE's base, if set). */
static int orig_of(op_set s, int e) {
  return s->orig ? (int)(s->orig[e] - op2_gid_base(op2_ctx())) : e;
}

static const op2_halo_list *list_of(op_set s, int which) {
  static const op2_halo_list empty = {0, NULL, NULL, NULL};
  if (!s->halo) return &empty;
  switch (which) {
    case 0:
      return &s->halo->exp_exec;
    case 1:
      return &s->halo->imp_exec;
    case 2:
      return &s->halo->exp_nonexec;
    default:
      return &s->halo->imp_nonexec;
  }
}

/* Sorted copies of a list of global indices compared as sets (duplicates count). */
static void check_same_set(int *got, int ngot, int *want, int nwant, const char *what,
                           const char *set) {
  qsort(got, (size_t)ngot, sizeof(int), cmp_int);
  qsort(want, (size_t)nwant, sizeof(int), cmp_int);
  int ok = ngot == nwant;
  for (int i = 0; ok && i < ngot; i++) ok = got[i] == want[i];
  if (!ok) {
    fprintf(stderr,
            "rank %d of %d: set '%s': %s holds %d elements, brute force gives %d:", mt_rank(),
            mt_size(), set, what, ngot, nwant);
    for (int i = 0; i < ngot && i < 40; i++) fprintf(stderr, " %d", got[i]);
    fprintf(stderr, " | want");
    for (int i = 0; i < nwant && i < 40; i++) fprintf(stderr, " %d", want[i]);
    fprintf(stderr, "\n");
    exit(1);
  }
}

static void gather_owners(world *w) {
  for (int s = 0; s < NSETS; s++) {
    op_set set = w->sets[s].set;
    int *mine = rm_alloc(sizeof(int) * ((size_t)set->size + 1));
    for (int e = 0; e < set->size; e++) mine[e] = orig_of(set, e);
    int *counts = rm_alloc(sizeof(int) * (size_t)w->p), total;
    int *all = mt_allgather_ints(mine, set->size, counts, &total);
    CHECK_EQ_INT(total, w->sets[s].global); /* every element owned once in all */
    w->owner[s] = rm_alloc(sizeof(int) * (size_t)w->sets[s].global);
    for (int g = 0; g < w->sets[s].global; g++) w->owner[s][g] = -1;
    for (int q = 0, k = 0; q < w->p; q++)
      for (int i = 0; i < counts[q]; i++, k++) {
        CHECK(all[k] >= 0 && all[k] < w->sets[s].global);
        CHECK_EQ_INT(w->owner[s][all[k]], -1);
        w->owner[s][all[k]] = q;
      }
    free(mine), free(counts), free(all);
  }
}

static int set_no(const world *w, op_set s) {
  for (int i = 0; i < NSETS; i++)
    if (w->sets[i].set == s) return i;
  CHECK(0);
  return -1;
}

/* Brute-force exec halo of set s on this rank, as global indices. */
static int *brute_exec(const world *w, int s, int *n) {
  int *out = rm_alloc(sizeof(int) * ((size_t)w->sets[s].global + 1));
  *n = 0;
  for (int g = 0; g < w->sets[s].global; g++) {
    if (w->owner[s][g] == w->me) continue;
    int reaches = 0;
    for (int i = 0; i < NMAPS; i++) {
      op_map m = w->maps[i];
      if (set_no(w, m->from) != s) continue;
      int t = set_no(w, m->to);
      for (int c = 0; c < m->dim; c++) reaches |= w->owner[t][w->gvals[i][g * m->dim + c]] == w->me;
    }
    if (reaches) out[(*n)++] = g;
  }
  return out;
}

/* Brute-force non-exec halo of set t on this rank. */
static int *brute_nonexec(const world *w, int t, int *n) {
  int gt = w->sets[t].global;
  char *in_exec = calloc((size_t)gt + 1, 1), *want = calloc((size_t)gt + 1, 1);
  CHECK(in_exec && want);
  int nx;
  int *x = brute_exec(w, t, &nx);
  for (int k = 0; k < nx; k++) in_exec[x[k]] = 1;
  free(x);
  for (int i = 0; i < NMAPS; i++) {
    op_map m = w->maps[i];
    if (set_no(w, m->to) != t) continue;
    int s = set_no(w, m->from);
    int nsx;
    int *sx = brute_exec(w, s, &nsx);
    char *row = calloc((size_t)w->sets[s].global + 1, 1);
    CHECK(row != NULL);
    for (int k = 0; k < nsx; k++) row[sx[k]] = 1;
    for (int g = 0; g < w->sets[s].global; g++) {
      if (w->owner[s][g] != w->me && !row[g]) continue;
      for (int c = 0; c < m->dim; c++) {
        int v = w->gvals[i][g * m->dim + c];
        if (w->owner[t][v] != w->me && !in_exec[v]) want[v] = 1;
      }
    }
    free(sx), free(row);
  }
  int *out = rm_alloc(sizeof(int) * ((size_t)gt + 1));
  *n = 0;
  for (int v = 0; v < gt; v++)
    if (want[v]) out[(*n)++] = v;
  free(in_exec), free(want);
  return out;
}

static void check_regions(const world *w, int s) {
  op_set set = w->sets[s].set;
  const char *name = set->name;
  int nown = 0;
  for (int g = 0; g < w->sets[s].global; g++) nown += w->owner[s][g] == w->me;
  CHECK_EQ_INT(set->size, nown);
  CHECK(set->core_size >= 0 && set->core_size <= set->size);
  int nx, nn;
  int *want_x = brute_exec(w, s, &nx), *want_n = brute_nonexec(w, s, &nn);
  int *got = rm_alloc(sizeof(int) * (op2_set_local_count(set) + 1));
  for (int e = 0; e < set->exec_size; e++) got[e] = orig_of(set, set->size + e);
  check_same_set(got, set->exec_size, want_x, nx, "exec halo", name);
  for (int e = 0; e < set->nonexec_size; e++) got[e] = orig_of(set, set->size + set->exec_size + e);
  check_same_set(got, set->nonexec_size, want_n, nn, "non-exec halo", name);
  free(got), free(want_x), free(want_n);

  /* import lists: contiguous ranges covering the region, each from the rank it names */
  for (int which = 1; which <= 3; which += 2) {
    const op2_halo_list *l = list_of(set, which);
    int start = set->size + (which == 3 ? set->exec_size : 0);
    int region = which == 1 ? set->exec_size : set->nonexec_size;
    CHECK_EQ_INT(l->nranks ? l->offset[0] : 0, 0);
    CHECK_EQ_INT(l->nranks ? l->offset[l->nranks] : 0, region);
    for (int k = 0; k < l->nranks; k++) {
      CHECK(l->ranks[k] >= 0 && l->ranks[k] < w->p && l->ranks[k] != w->me);
      if (k) CHECK(l->ranks[k] > l->ranks[k - 1]);
      CHECK(l->offset[k + 1] > l->offset[k]);
      for (int e = l->offset[k]; e < l->offset[k + 1]; e++)
        CHECK_EQ_INT(w->owner[s][orig_of(set, start + e)], l->ranks[k]);
    }
  }
  /* export lists name owned elements, to other ranks, ascending */
  for (int which = 0; which <= 2; which += 2) {
    const op2_halo_list *l = list_of(set, which);
    CHECK_EQ_INT(l->nranks ? l->offset[0] : 0, 0);
    for (int k = 0; k < l->nranks; k++) {
      CHECK(l->ranks[k] >= 0 && l->ranks[k] < w->p && l->ranks[k] != w->me);
      if (k) CHECK(l->ranks[k] > l->ranks[k - 1]);
      CHECK(l->offset[k + 1] > l->offset[k]);
      for (int i = l->offset[k]; i < l->offset[k + 1]; i++)
        CHECK(l->elements[i] >= 0 && l->elements[i] < set->size);
    }
  }
}

/* Every rank's list `which` as (rank, neighbour, global index) triples on every rank. */
static int *gather_list(const world *w, op_set set, int which, int *n) {
  const op2_halo_list *l = list_of(set, which);
  int rows = l->nranks ? l->offset[l->nranks] : 0;
  int *mine = rm_alloc(sizeof(int) * 3 * ((size_t)rows + 1));
  int start = set->size + (which == 3 ? set->exec_size : 0);
  for (int k = 0; k < l->nranks; k++)
    for (int i = l->offset[k]; i < l->offset[k + 1]; i++) {
      int e = which % 2 == 0 ? l->elements[i] : start + i;
      mine[3 * i] = w->me, mine[3 * i + 1] = l->ranks[k], mine[3 * i + 2] = orig_of(set, e);
    }
  int total;
  int *all = mt_allgather_ints(mine, 3 * rows, NULL, &total);
  free(mine);
  *n = total / 3;
  return all;
}

/* The sequence of global indices that `from` sends to (or receives from) `to` in a gathered
 * list. */
static int pick(const int *triples, int n, int from, int to, int *out) {
  int k = 0;
  for (int i = 0; i < n; i++)
    if (triples[3 * i] == from && triples[3 * i + 1] == to) out[k++] = triples[3 * i + 2];
  return k;
}

static void check_exports_match_imports(const world *w, int s) {
  op_set set = w->sets[s].set;
  for (int kind = 0; kind <= 2; kind += 2) {
    int ne, ni;
    int *exp = gather_list(w, set, kind, &ne), *imp = gather_list(w, set, kind + 1, &ni);
    CHECK_EQ_INT(ne, ni);
    int *a = rm_alloc(sizeof(int) * ((size_t)ne + 1)),
        *b = rm_alloc(sizeof(int) * ((size_t)ne + 1));
    for (int r = 0; r < w->p; r++)
      for (int q = 0; q < w->p; q++) {
        int na = pick(exp, ne, r, q, a), nb = pick(imp, ni, q, r, b);
        if (na != nb || memcmp(a, b, sizeof(int) * (size_t)na) != 0) {
          fprintf(stderr,
                  "rank %d: set '%s': %s export list of rank %d to rank %d (%d elements) "
                  "differs from what rank %d imports from rank %d (%d elements)\n",
                  w->me, set->name, kind == 0 ? "exec" : "non-exec", r, q, na, q, r, nb);
          exit(1);
        }
      }
    free(exp), free(imp), free(a), free(b);
  }
}

static void check_maps(const world *w) {
  for (int i = 0; i < NMAPS; i++) {
    op_map m = w->maps[i];
    op_set f = m->from, t = m->to;
    int tn = (int)op2_set_local_count(t);
    for (int e = 0; e < f->size + f->exec_size; e++)
      for (int c = 0; c < m->dim; c++) {
        int v = m->values[(size_t)e * m->dim + c];
        CHECK(v >= 0 && v < tn);
        if (e < f->core_size) CHECK(v < t->size); /* core: only owned targets */
        CHECK_EQ_INT(orig_of(t, v), w->gvals[i][(size_t)orig_of(f, e) * m->dim + c]);
      }
  }
}

/* Dat rows [0, rows) hold what was declared for their global index. */
static void check_dat_rows(const world *w, int s, int rows) {
  op_set set = w->sets[s].set;
  const long long *gid = (const long long *)w->gid[s]->data;
  const double *xy = (const double *)w->coords[s]->data;
  for (int e = 0; e < rows; e++) {
    int g = orig_of(set, e);
    if (gid[e] != gid_value(s, g) || xy[2 * e] != 0.5 * g || xy[2 * e + 1] != -(double)s) {
      fprintf(stderr,
              "rank %d: set '%s', local row %d (global %d of %d owned/%d exec/%d nonexec): "
              "holds %lld, %g, %g\n",
              w->me, set->name, e, g, set->size, set->exec_size, set->nonexec_size, gid[e],
              xy[2 * e], xy[2 * e + 1]);
      exit(1);
    }
  }
}

int main(int argc, char **argv) {
  CHECK(argc >= 3);
  MPI_Init(&argc, &argv);
  mt_mode mode = mt_parse_mode(argv[1]);
  int ptscotch = strcmp(argv[2], "PTSCOTCH") == 0;
  CHECK(ptscotch || strcmp(argv[2], "BLOCK") == 0);
  op_init(argc, argv, 0);
  world w = {.p = mt_size(), .me = mt_rank()};
  unsigned rng = rm_rng(410);
  enum { NODES, CELLS, TRIAS, EDGES, BEDGES, LONELY, RING, VOID };
  static const int sizes[NSETS] = {NN, NC, NT, NE, NB, NL, NR, NV};
  static const char *names[NSETS] = {"nodes",  "cells",  "trias", "edges",
                                     "bedges", "lonely", "ring",  "void"};
  for (int s = 0; s < NSETS; s++) /* bedges: rank 0 declares none of them */
    w.sets[s] =
        mt_decl_set(mode, s == BEDGES ? MT_SPLIT_EMPTY_FIRST : MT_SPLIT_SKEWED, sizes[s], names[s]);
  static const int from[NMAPS] = {EDGES, EDGES, CELLS, TRIAS, BEDGES, RING, VOID};
  static const int to[NMAPS] = {NODES, CELLS, NODES, NODES, CELLS, RING, NODES};
  static const int dims[NMAPS] = {2, 2, 4, 3, 1, 2, 2};
  static const char *mnames[NMAPS] = {"pedge",   "pecell", "pcell", "ptri",
                                      "pbecell", "pring",  "pvoid"};
  for (int i = 0; i < NMAPS; i++) {
    w.gvals[i] = rm_map_values(sizes[from[i]], dims[i], sizes[to[i]], 150, &rng);
    w.maps[i] = mt_decl_map(&w.sets[from[i]], &w.sets[to[i]], dims[i], w.gvals[i], mnames[i]);
  }
  for (int s = 0; s < NSETS; s++) {
    int g = sizes[s];
    long long *gid = rm_alloc(sizeof(long long) * (size_t)g);
    double *xy = rm_alloc(sizeof(double) * 2 * (size_t)g);
    for (int k = 0; k < g; k++) gid[k] = gid_value(s, k), xy[2 * k] = 0.5 * k, xy[2 * k + 1] = -s;
    w.gid[s] = mt_decl_dat(&w.sets[s], 1, "long long", sizeof(long long), gid, "gid");
    w.coords[s] = mt_decl_dat(&w.sets[s], 2, "double", sizeof(double), xy, "xy");
    free(gid), free(xy);
  }

  op2_context *ctx = op2_ctx();
  if (ptscotch) op_partition("PTSCOTCH", "KWAY", w.sets[CELLS].set, w.maps[1], w.coords[NODES]);
  /* the first loop distributes (BLOCK) and reads gid through a map, so nodes' halos exchange */
  int bad = 0, seen = 0;
  for (int i = 0; i < NMAPS; i++) {
    op_map m = w.maps[i];
    int fs = set_no(&w, m->from), ts = set_no(&w, m->to);
    long long set_code = fs + 1, to_code = ts + 1;
    op_decl_const(1, "long long", &set_code, "set_code");
    op_decl_const(1, "long long", &to_code, "to_code");
    for (int c = 0; c < m->dim; c++) {
      if (i == 0 && c == 0) { /* before any loop: what was just distributed */
        if (w.p > 1) CHECK(ctx->mpi_distributed == (bool)ptscotch);
        if (ptscotch || w.p == 1)
          for (int s = 0; s < NSETS; s++) {
            op_set set = w.sets[s].set;
            check_dat_rows(&w, s, set->size + set->exec_size);
          }
      }
      op_par_loop(check_targets_src, "check_targets", m->from, op_arg_idx(-1, OP_ID),
                  op_arg_dat(w.gid[fs], -1, OP_ID, 1, "long long", OP_READ), op_arg_idx(c, m),
                  op_arg_dat(w.gid[ts], c, m, 1, "long long", OP_READ),
                  op_arg_gbl(&bad, 1, "int", OP_INC), op_arg_gbl(&seen, 1, "int", OP_INC));
    }
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(seen, 2 * NE + 2 * NE + 4 * NC + 3 * NT + NB + 2 * NR);

  if (w.p > 1) {
    CHECK(ctx->mpi_distributed);
    CHECK_EQ_INT(ctx->mpi_replicated, mode == MT_REPLICATED);
  }
  gather_owners(&w);
  if (w.p > 1 && !ptscotch) /* BLOCK: every element stays with the rank that declared it */
    for (int s = 0; s < NSETS; s++) {
      mt_block b =
          mt_block_of(mode, s == BEDGES ? MT_SPLIT_EMPTY_FIRST : MT_SPLIT_SKEWED, sizes[s]);
      if (mode == MT_REPLICATED) { /* the library slices the whole mesh uniformly */
        b.first = (int)((long)sizes[s] * w.me / w.p);
        b.count = (int)((long)sizes[s] * (w.me + 1) / w.p) - b.first;
      }
      CHECK_EQ_INT(w.sets[s].set->size, b.count);
      for (int g = b.first; g < b.first + b.count; g++) CHECK_EQ_INT(w.owner[s][g], w.me);
    }
  for (int s = 0; s < NSETS; s++) {
    op_set set = w.sets[s].set;
    CHECK_EQ_INT(set->global_size, sizes[s]);
    CHECK_EQ_INT(set->halo != NULL, w.p > 1);
    check_regions(&w, s);
    check_exports_match_imports(&w, s);
  }
  check_maps(&w);
  /* the loops read gid of every target set through a map: all its rows are current now */
  for (int s = 0; s < NSETS; s++) {
    op_set set = w.sets[s].set;
    int to_set = 0;
    for (int i = 0; i < NMAPS; i++) to_set |= set_no(&w, w.maps[i]->to) == s;
    const long long *gid = (const long long *)w.gid[s]->data;
    int rows = to_set ? (int)op2_set_local_count(set) : set->size + set->exec_size;
    for (int e = 0; e < rows; e++) CHECK_EQ_INT(gid[e], gid_value(s, orig_of(set, e)));
  }
  /* the lonely set has no halo at all, and a set no map reaches from is all core */
  CHECK_EQ_INT(w.sets[LONELY].set->exec_size + w.sets[LONELY].set->nonexec_size, 0);
  CHECK_EQ_INT(w.sets[NODES].set->core_size, w.sets[NODES].set->size);
  CHECK_EQ_INT(w.sets[NODES].set->exec_size, 0);

  char line[512];
  int at = snprintf(line, sizeof line, "rank %d: owned/core/exec/non-exec", w.me);
  for (int s = 0; s < NSETS; s++) {
    op_set set = w.sets[s].set;
    at += snprintf(line + at, sizeof line - (size_t)at, "  %s %d/%d/%d/%d", set->name, set->size,
                   set->core_size, set->exec_size, set->nonexec_size);
  }
  printf("%s\n", line);

  long long total_local = 0, total = 0;
  for (int s = 0; s < NSETS; s++) total_local += w.sets[s].set->size;
  MPI_Allreduce(&total_local, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  CHECK_EQ_INT(total, NN + NC + NT + NE + NB + NL + NR + NV);

  for (int i = 0; i < NMAPS; i++) free(w.gvals[i]);
  for (int s = 0; s < NSETS; s++) free(w.owner[s]);
  op_exit();
  int finalized = 1;
  MPI_Finalized(&finalized);
  CHECK(!finalized); /* op_exit must not finalise what the program started */
  if (w.me == 0) printf("t410 %s %s on %d ranks: halos match brute force\n", argv[1], argv[2], w.p);
  MPI_Finalize();
  return 0;
}
