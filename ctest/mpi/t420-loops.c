/* SPDX-License-Identifier: BSD-3-Clause */
/* Every loop kind on a distributed mesh gives what one process gives: the plain-C computation of
 * the same kernels on the whole mesh. Usage: t420-loops local|replicated PTSCOTCH|BLOCK [renumber]
 * [long] ("long": every map declared by op_decl_map_long with the targets' global ids, from
 * OP2_TEST_ID_BASE's base, so under that testing aid the values pass 2^31 and must stay 64-bit
 * up to the halo build).
 *
 * Covered: direct WRITE and RW with a constant (then changed), indirect READ through single
 * columns, INC through single columns (double within 1e-12 relative, int exact) and through a
 * vector argument, WRITE and RW through an injective map, vector READ, op_arg_idx (the user's
 * global indices, direct and through a map, also in an incrementing loop), op_opt_arg_dat on and
 * off, op_arg_gbl READ, INC, MIN and MAX in direct and in incrementing loops (which also run the
 * exec halo: an INC int count of the elements must be the global size exactly, added once to the
 * caller's start value), and reductions wider than 256 bytes. */
#include <float.h>
#include <limits.h>

#include "mpi_test.h"
#include "runtime/op2_impl.h"

enum { NN = 400, NE = 900, NC = 300, NM = 90, NR = 200 };

static double coef[2];

KERNEL(
    scale, static void scale(const double *x, double *y) {
      y[0] = coef[0] * x[0] + coef[1] * x[1];
      y[1] = x[0] - coef[1] * x[1];
    })

KERNEL(
    accumulate, static void accumulate(const double *y, double *z) {
      z[0] = 0.5 * z[0] + y[0];
      z[1] = z[1] * y[1] + 1.0;
    })

KERNEL(
    edge_read,
    static void edge_read(const double *a, const double *b, const double *w, double *out) {
      out[0] = a[0] * w[0] - b[1];
      out[1] = a[1] + b[0] * w[1];
    })

KERNEL(
    edge_inc, static void edge_inc(const double *ev, const double *a, const double *b, double *ia,
                                   double *ib, int *ca, int *cb) {
      ia[0] += ev[0] * b[0];
      ia[1] -= ev[1];
      ib[0] += ev[1] * a[1];
      ib[1] += 0.25 * ev[0];
      ca[0] += 1;
      cb[0] += 3;
    })

KERNEL(
    cell_vec, static void cell_vec(const double **x, double **acc, double *centre) {
      centre[0] = 0.25 * (x[0][0] + x[1][0] + x[2][0] + x[3][0]);
      centre[1] = 0.25 * (x[0][1] + x[1][1] + x[2][1] + x[3][1]);
      for (int j = 0; j < 4; j++) acc[j][0] += centre[0] * (j + 1) - x[j][1];
    })

KERNEL(
    mark_write, static void mark_write(const int *self, const double *m, double *w0, double *w1,
                                       double *r0, double *r1) {
      w0[0] = m[0] + (double)*self;
      w1[0] = -m[0];
      r0[0] = r0[0] * 2.0 + m[0];
      r1[0] += 1.0 + (double)*self;
    })

KERNEL_TEXT(
    put_idx, static void put_idx(const int *self, const int *n0, const int *n1, int *out) {
      out[0] = *self;
      out[1] = *n0;
      out[2] = *n1;
    })

KERNEL(
    idx_inc, static void idx_inc(const int *self, const int *n1, int *a, int *b) {
      a[0] += *self;
      b[0] += *n1 - *self;
    })

KERNEL(
    opt_inc, static void opt_inc(const double *ev, double *a, double *b, int *seen) {
      if (a) a[0] += ev[0];
      if (b) b[0] -= ev[1];
      seen[0] += a ? 1 : 10;
    })

KERNEL(
    node_reduce, static void node_reduce(const double *x, double *sum, double *mn, double *mx,
                                         int *count, double *keep_min) {
      *sum += x[0] * x[1];
      *mn = MIN(*mn, x[0]);
      *mx = MAX(*mx, x[1]);
      *count += 1;
      *keep_min = MIN(*keep_min, x[0]);
    })

/* Wide reductions (more than 256 bytes): a histogram and the largest value per bin. */
KERNEL(
    histogram, static void histogram(const double *x, int *bins, double *top) {
      int b = (int)((x[0] + 1.0) * 20.0);
      b = MAX(0, MIN(39, b));
      bins[b] += 1;
      top[b] = MAX(top[b], x[1]);
    })

/* Reductions in a loop that increments through a map, so the exec halo runs too. */
KERNEL(
    edge_reduce, static void edge_reduce(const int *self, const double *a, double *ia, int *count,
                                         int *imin, int *imax, double *sum, long long *lsum) {
      ia[0] += 1.0;
      *count += 1;
      *imin = MIN(*imin, *self);
      *imax = MAX(*imax, *self);
      *sum += a[0];
      *lsum += (long long)*self * 1000003LL;
    })

/* A set mapped to itself: its exec halo elements are also targets of its own elements. */
KERNEL(
    ring_inc,
    static void ring_inc(const double *self, const double *next, double *acc0, double *acc1) {
      acc0[0] += self[0] * next[0];
      acc1[0] -= self[0];
    })

KERNEL(
    ring_copy, static void ring_copy(const double *a, double *v) { v[0] = 0.5 * v[0] + a[0]; })

typedef struct world {
  mt_set nodes, edges, cells, marks, ring;
  op_map pedge, pcell, pmark, pring;
  int *en, *cn, *mn, *rn;
} world;

static void check_dat_d(op_dat d, const mt_set *s, int dim, const double *want, double tol,
                        const char *what) {
  double *got = mt_fetch_all(d, s->global, sizeof(double) * (size_t)dim);
  mt_check_doubles(got, want, (size_t)s->global * dim, tol, what);
  free(got);
}

static void check_dat_i(op_dat d, const mt_set *s, int dim, const int *want, const char *what) {
  int *got = mt_fetch_all(d, s->global, sizeof(int) * (size_t)dim);
  mt_check_ints(got, want, (size_t)s->global * dim, what);
  free(got);
}

/* The program's option "long": maps declared by op_decl_map_long, values the targets' global ids
 * (OP2_TEST_ID_BASE + index, the base in any process count). */
static int long_maps;

static op_map decl_map(const mt_set *from, const mt_set *to, int dim, const int *values,
                       const char *name) {
  if (!long_maps) return mt_decl_map(from, to, dim, values, name);
  const char *b = getenv("OP2_TEST_ID_BASE");
  idx_g_t base = b ? strtoll(b, NULL, 10) : 0;
  size_t n = (size_t)from->b.count * (size_t)dim;
  idx_g_t *ids = rm_alloc(sizeof(idx_g_t) * (n + 1));
  for (size_t k = 0; k < n; k++) ids[k] = base + values[(size_t)from->b.first * dim + k];
  op_map m = op_decl_map_long(from->set, to->set, dim, ids, name);
  CHECK(m != NULL);
  /* kept as global ids until the distribution: past 2^31 under the base, on several ranks */
  if (mt_size() > 1) CHECK(m->gvalues != NULL && m->values == NULL);
  if (mt_size() > 1 && n > 0 && base > INT_MAX) CHECK(m->gvalues[0] > INT_MAX);
  free(ids);
  return m;
}

static void set_coef(double c0, double c1) {
  coef[0] = c0, coef[1] = c1;
  op_decl_const(2, "double", coef, "coef");
}

int main(int argc, char **argv) {
  CHECK(argc >= 3);
  op_init(argc, argv, 0);
  mt_mode mode = mt_parse_mode(argv[1]);
  int ptscotch = strcmp(argv[2], "PTSCOTCH") == 0;
  int call_renumber = 0;
  for (int i = 3; i < argc; i++) {
    call_renumber |= strcmp(argv[i], "renumber") == 0;
    long_maps |= strcmp(argv[i], "long") == 0;
  }
  unsigned rng = rm_rng(420);
  world w;
  w.nodes = mt_decl_set(mode, MT_SPLIT_SKEWED, NN, "nodes");
  w.edges = mt_decl_set(mode, MT_SPLIT_SKEWED, NE, "edges");
  w.cells = mt_decl_set(mode, MT_SPLIT_EMPTY_FIRST, NC, "cells");
  w.marks = mt_decl_set(mode, MT_SPLIT_SKEWED, NM, "marks");
  w.ring = mt_decl_set(mode, MT_SPLIT_SKEWED, NR, "ring");
  w.en = rm_map_values(NE, 2, NN, 100, &rng);
  w.cn = rm_map_values(NC, 4, NN, 100, &rng);
  w.mn = rm_injective_values(NM, 2, NN, &rng);
  w.pedge = decl_map(&w.edges, &w.nodes, 2, w.en, "pedge");
  w.pcell = decl_map(&w.cells, &w.nodes, 4, w.cn, "pcell");
  w.pmark = decl_map(&w.marks, &w.nodes, 2, w.mn, "pmark");
  w.rn = rm_map_values(NR, 2, NR, 300, &rng);
  w.pring = decl_map(&w.ring, &w.ring, 2, w.rn, "pring");
  const int *en = w.en, *cn = w.cn, *mn = w.mn;

  double *x = rm_doubles(2 * NN, -1, 1, &rng), *z = rm_doubles(2 * NN, -1, 1, &rng);
  double *mv = rm_doubles(NM, 0, 4, &rng), *w0 = rm_doubles(NN, -1, 1, &rng);
  double *w1 = rm_doubles(NN, -1, 1, &rng);
  double *y = rm_alloc(sizeof(double) * 2 * NN), *ev = rm_alloc(sizeof(double) * 2 * NE);
  double *inc = rm_alloc(sizeof(double) * 2 * NN), *cacc = rm_alloc(sizeof(double) * NN);
  double *centre = rm_alloc(sizeof(double) * 2 * NC), *o1 = rm_alloc(sizeof(double) * NN);
  double *o2 = rm_alloc(sizeof(double) * NN);
  int *cnt = rm_alloc(sizeof(int) * NN), *eidx = rm_alloc(sizeof(int) * 3 * NE);
  int *isa = rm_alloc(sizeof(int) * NN), *isb = rm_alloc(sizeof(int) * NN);
  op_dat dx = mt_decl_dat(&w.nodes, 2, "double", sizeof(double), x, "x");
  op_dat dz = mt_decl_dat(&w.nodes, 2, "double", sizeof(double), z, "z");
  op_dat dy = mt_decl_dat(&w.nodes, 2, "double", sizeof(double), NULL, "y");
  op_dat dev = mt_decl_dat(&w.edges, 2, "double", sizeof(double), NULL, "ev");
  op_dat dinc = mt_decl_dat(&w.nodes, 2, "double", sizeof(double), NULL, "inc");
  op_dat dcnt = mt_decl_dat(&w.nodes, 1, "int", sizeof(int), NULL, "cnt");
  op_dat dcacc = mt_decl_dat(&w.nodes, 1, "double", sizeof(double), NULL, "cacc");
  op_dat dcentre = mt_decl_dat(&w.cells, 2, "double", sizeof(double), NULL, "centre");
  op_dat dmv = mt_decl_dat(&w.marks, 1, "double", sizeof(double), mv, "mv");
  op_dat dw0 = mt_decl_dat(&w.nodes, 1, "double", sizeof(double), w0, "w0");
  op_dat dw1 = mt_decl_dat(&w.nodes, 1, "double", sizeof(double), w1, "w1");
  op_dat deidx = mt_decl_dat(&w.edges, 3, "int", sizeof(int), NULL, "eidx");
  op_dat disa = mt_decl_dat(&w.nodes, 1, "int", sizeof(int), NULL, "isa");
  op_dat disb = mt_decl_dat(&w.nodes, 1, "int", sizeof(int), NULL, "isb");
  op_dat do1 = mt_decl_dat(&w.nodes, 1, "double", sizeof(double), NULL, "o1");
  op_dat do2 = mt_decl_dat(&w.nodes, 1, "double", sizeof(double), NULL, "o2");
  double *rv = rm_doubles(NR, -1, 1, &rng), *racc = rm_doubles(NR, -1, 1, &rng);
  op_dat drv = mt_decl_dat(&w.ring, 1, "double", sizeof(double), rv, "rv");
  op_dat dracc = mt_decl_dat(&w.ring, 1, "double", sizeof(double), racc, "racc");
  /* "renumber": op_renumber before the distribution (each rank renumbers its part then); a second
   * call after it is ignored */
  if (call_renumber) op_renumber(w.pcell);
  if (ptscotch)
    op_partition("PTSCOTCH", "KWAY", w.nodes.set, w.pedge, dx);
  else
    op_partition("BLOCK", NULL, NULL, NULL, NULL);
  if (call_renumber) op_renumber(w.pedge);

  /* direct WRITE and RW, with a constant that then changes */
  for (int round = 0; round < 2; round++) {
    set_coef(round ? -0.75 : 1.5, round ? 2.0 : 0.25);
    op_par_loop(scale_src, "scale", w.nodes.set, op_arg_dat(dx, -1, OP_ID, 2, "double", OP_READ),
                op_arg_dat(dy, -1, OP_ID, 2, "double", OP_WRITE));
    op_par_loop(accumulate_src, "accumulate", w.nodes.set,
                op_arg_dat(dy, -1, OP_ID, 2, "double", OP_READ),
                op_arg_dat(dz, -1, OP_ID, 2, "double", OP_RW));
    for (int n = 0; n < NN; n++) scale(x + 2 * n, y + 2 * n), accumulate(y + 2 * n, z + 2 * n);
    check_dat_d(dy, &w.nodes, 2, y, 0, "scale");
    check_dat_d(dz, &w.nodes, 2, z, 0, "accumulate");
  }

  /* indirect READ through single columns, with a global READ */
  double wg[2] = {0.5, -3.0};
  op_par_loop(
      edge_read_src, "edge_read", w.edges.set, op_arg_dat(dz, 0, w.pedge, 2, "double", OP_READ),
      op_arg_dat(dy, 1, w.pedge, 2, "double", OP_READ), op_arg_gbl(wg, 2, "double", OP_READ),
      op_arg_dat(dev, -1, OP_ID, 2, "double", OP_WRITE));
  for (int e = 0; e < NE; e++) edge_read(z + 2 * en[2 * e], y + 2 * en[2 * e + 1], wg, ev + 2 * e);
  check_dat_d(dev, &w.edges, 2, ev, 0, "edge_read");

  /* INC, double and int, twice so the second call adds to what the first left */
  for (int round = 0; round < 2; round++) {
    op_par_loop(edge_inc_src, "edge_inc", w.edges.set,
                op_arg_dat(dev, -1, OP_ID, 2, "double", OP_READ),
                op_arg_dat(dx, 0, w.pedge, 2, "double", OP_READ),
                op_arg_dat(dx, 1, w.pedge, 2, "double", OP_READ),
                op_arg_dat(dinc, 0, w.pedge, 2, "double", OP_INC),
                op_arg_dat(dinc, 1, w.pedge, 2, "double", OP_INC),
                op_arg_dat(dcnt, 0, w.pedge, 1, "int", OP_INC),
                op_arg_dat(dcnt, 1, w.pedge, 1, "int", OP_INC));
    for (int e = 0; e < NE; e++) {
      int a = en[2 * e], b = en[2 * e + 1];
      edge_inc(ev + 2 * e, x + 2 * a, x + 2 * b, inc + 2 * a, inc + 2 * b, cnt + a, cnt + b);
    }
    check_dat_d(dinc, &w.nodes, 2, inc, 1e-12, "edge_inc");
    check_dat_i(dcnt, &w.nodes, 1, cnt, "edge_inc count");
  }

  /* vector READ and vector INC */
  op_par_loop(cell_vec_src, "cell_vec", w.cells.set,
              op_arg_dat(dx, -4, w.pcell, 2, "double", OP_READ),
              op_arg_dat(dcacc, -4, w.pcell, 1, "double", OP_INC),
              op_arg_dat(dcentre, -1, OP_ID, 2, "double", OP_WRITE));
  for (int c = 0; c < NC; c++) {
    const double *xs[4];
    double *as[4];
    for (int j = 0; j < 4; j++) xs[j] = x + 2 * cn[4 * c + j], as[j] = cacc + cn[4 * c + j];
    cell_vec(xs, as, centre + 2 * c);
  }
  check_dat_d(dcentre, &w.cells, 2, centre, 0, "cell_vec centre");
  check_dat_d(dcacc, &w.nodes, 1, cacc, 1e-12, "cell_vec acc");

  /* WRITE and RW through an injective map; nodes no mark reaches keep their values */
  for (int round = 0; round < 2; round++) {
    op_par_loop(mark_write_src, "mark_write", w.marks.set, op_arg_idx(-1, OP_ID),
                op_arg_dat(dmv, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(dw0, 0, w.pmark, 1, "double", OP_WRITE),
                op_arg_dat(dw1, 1, w.pmark, 1, "double", OP_WRITE),
                op_arg_dat(dw0, 1, w.pmark, 1, "double", OP_RW),
                op_arg_dat(dw1, 0, w.pmark, 1, "double", OP_RW));
    for (int k = 0; k < NM; k++)
      mark_write(&k, mv + k, w0 + mn[2 * k], w1 + mn[2 * k + 1], w0 + mn[2 * k + 1],
                 w1 + mn[2 * k]);
    check_dat_d(dw0, &w.nodes, 1, w0, 0, "mark_write w0");
    check_dat_d(dw1, &w.nodes, 1, w1, 0, "mark_write w1");
  }

  /* INC through a map from a set to itself, reading through it too */
  for (int round = 0; round < 2; round++) {
    op_par_loop(ring_inc_src, "ring_inc", w.ring.set,
                op_arg_dat(drv, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(drv, 1, w.pring, 1, "double", OP_READ),
                op_arg_dat(dracc, 0, w.pring, 1, "double", OP_INC),
                op_arg_dat(dracc, 1, w.pring, 1, "double", OP_INC));
    for (int r = 0; r < NR; r++)
      ring_inc(rv + r, rv + w.rn[2 * r + 1], racc + w.rn[2 * r], racc + w.rn[2 * r + 1]);
    check_dat_d(dracc, &w.ring, 1, racc, 1e-12, "ring_inc");
    op_par_loop(ring_copy_src, "ring_copy", w.ring.set,
                op_arg_dat(dracc, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(drv, -1, OP_ID, 1, "double", OP_RW));
    for (int r = 0; r < NR; r++) ring_copy(racc + r, rv + r);
    check_dat_d(drv, &w.ring, 1, rv, 1e-12, "ring_copy");
  }

  /* op_arg_idx: the user's global indices, direct and through a map */
  op_par_loop(put_idx_src, "put_idx", w.edges.set, op_arg_idx(-1, OP_ID), op_arg_idx(0, w.pedge),
              op_arg_idx(1, w.pedge), op_arg_dat(deidx, -1, OP_ID, 3, "int", OP_WRITE));
  for (int e = 0; e < NE; e++) /* the indices themselves, not the kernel, are the reference */
    eidx[3 * e] = e, eidx[3 * e + 1] = en[2 * e], eidx[3 * e + 2] = en[2 * e + 1];
  check_dat_i(deidx, &w.edges, 3, eidx, "put_idx");
  op_par_loop(idx_inc_src, "idx_inc", w.edges.set, op_arg_idx(-1, OP_ID), op_arg_idx(1, w.pedge),
              op_arg_dat(disa, 0, w.pedge, 1, "int", OP_INC),
              op_arg_dat(disb, 1, w.pedge, 1, "int", OP_INC));
  for (int e = 0; e < NE; e++) idx_inc(&e, en + 2 * e + 1, isa + en[2 * e], isb + en[2 * e + 1]);
  check_dat_i(disa, &w.nodes, 1, isa, "idx_inc a");
  check_dat_i(disb, &w.nodes, 1, isb, "idx_inc b");

  /* op_opt_arg_dat on, then off: off leaves the dat alone and passes NULL */
  for (int opt = 1; opt >= 0; opt--) {
    int seen = 0;
    op_par_loop(
        opt_inc_src, "opt_inc", w.edges.set, op_arg_dat(dev, -1, OP_ID, 2, "double", OP_READ),
        op_opt_arg_dat(opt, do1, 0, w.pedge, 1, "double", OP_INC),
        op_arg_dat(do2, 1, w.pedge, 1, "double", OP_INC), op_arg_gbl(&seen, 1, "int", OP_INC));
    int want_seen = 0;
    for (int e = 0; e < NE; e++)
      opt_inc(ev + 2 * e, opt ? o1 + en[2 * e] : NULL, o2 + en[2 * e + 1], &want_seen);
    CHECK_EQ_INT(seen, want_seen);
    CHECK_EQ_INT(seen, opt ? NE : 10 * NE);
    check_dat_d(do1, &w.nodes, 1, o1, 1e-12, "opt_inc o1");
    check_dat_d(do2, &w.nodes, 1, o2, 1e-12, "opt_inc o2");
  }

  /* reductions in a direct loop: start values are the caller's, each added once */
  {
    double sum = 2.5, mn_ = DBL_MAX, mx = -DBL_MAX, keep = -10.0;
    int count = 7;
    op_par_loop(node_reduce_src, "node_reduce", w.nodes.set,
                op_arg_dat(dx, -1, OP_ID, 2, "double", OP_READ),
                op_arg_gbl(&sum, 1, "double", OP_INC), op_arg_gbl(&mn_, 1, "double", OP_MIN),
                op_arg_gbl(&mx, 1, "double", OP_MAX), op_arg_gbl(&count, 1, "int", OP_INC),
                op_arg_gbl(&keep, 1, "double", OP_MIN));
    double wsum = 2.5, wmn = DBL_MAX, wmx = -DBL_MAX, wkeep = -10.0;
    int wcount = 7;
    for (int n = 0; n < NN; n++) node_reduce(x + 2 * n, &wsum, &wmn, &wmx, &wcount, &wkeep);
    CHECK_NEAR(sum, wsum, 1e-12);
    CHECK(mn_ == wmn && mx == wmx && keep == -10.0);
    CHECK_EQ_INT(count, NN + 7);
  }
  /* reductions of 40 ints and 40 doubles, added once per rank's owned elements */
  {
    enum { NB = 40 };
    int bins[NB], wbins[NB];
    double top[NB], wtop[NB];
    for (int b = 0; b < NB; b++) bins[b] = wbins[b] = b, top[b] = wtop[b] = -5.0;
    op_par_loop(histogram_src, "histogram", w.nodes.set,
                op_arg_dat(dx, -1, OP_ID, 2, "double", OP_READ),
                op_arg_gbl(bins, NB, "int", OP_INC), op_arg_gbl(top, NB, "double", OP_MAX));
    for (int n = 0; n < NN; n++) histogram(x + 2 * n, wbins, wtop);
    for (int b = 0; b < NB; b++) CHECK(bins[b] == wbins[b] && top[b] == wtop[b]);
  }
  /* reductions in an incrementing loop: the exec halo runs, but contributes nothing */
  {
    int count = -3, imin = INT_MAX, imax = INT_MIN;
    double sum = 0;
    long long lsum = 5;
    op_par_loop(edge_reduce_src, "edge_reduce", w.edges.set, op_arg_idx(-1, OP_ID),
                op_arg_dat(dx, 1, w.pedge, 2, "double", OP_READ),
                op_arg_dat(dinc, 0, w.pedge, 2, "double", OP_INC),
                op_arg_gbl(&count, 1, "int", OP_INC), op_arg_gbl(&imin, 1, "int", OP_MIN),
                op_arg_gbl(&imax, 1, "int", OP_MAX), op_arg_gbl(&sum, 1, "double", OP_INC),
                op_arg_gbl(&lsum, 1, "long long", OP_INC));
    double wsum = 0;
    long long wlsum = 5;
    int wcount = -3, wmin = INT_MAX, wmax = INT_MIN;
    for (int e = 0; e < NE; e++)
      edge_reduce(&e, x + 2 * en[2 * e + 1], inc + 2 * en[2 * e], &wcount, &wmin, &wmax, &wsum,
                  &wlsum);
    CHECK_EQ_INT(count, NE - 3);
    CHECK_EQ_INT(imin, 0);
    CHECK_EQ_INT(imax, NE - 1);
    CHECK_EQ_INT(lsum, wlsum);
    CHECK_NEAR(sum, wsum, 1e-12);
    check_dat_d(dinc, &w.nodes, 2, inc, 1e-12, "edge_reduce inc");
  }
  /* every rank gets the same reduced value */
  {
    int count = 0;
    op_par_loop(node_reduce_src, "node_reduce", w.nodes.set,
                op_arg_dat(dx, -1, OP_ID, 2, "double", OP_READ),
                op_arg_gbl(&(double){0}, 1, "double", OP_INC),
                op_arg_gbl(&(double){0}, 1, "double", OP_MIN),
                op_arg_gbl(&(double){0}, 1, "double", OP_MAX), op_arg_gbl(&count, 1, "int", OP_INC),
                op_arg_gbl(&(double){0}, 1, "double", OP_MIN));
    int lo = count, hi = count;
    MPI_Allreduce(&count, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&count, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK_EQ_INT(lo, NN);
    CHECK_EQ_INT(hi, NN);
  }

  free(x), free(z), free(mv), free(w0), free(w1), free(y), free(ev), free(inc), free(cacc);
  free(centre), free(o1), free(o2), free(cnt), free(eidx), free(isa), free(isb);
  free(w.en), free(w.cn), free(w.mn), free(w.rn), free(rv), free(racc);
  /* OP2_RENUMBER=on or op_renumber: each rank renumbered its own nodes (reverse Cuthill-McKee on
   * its part), so their global ids no longer rise through the core and the rest of the owned
   * elements, as they do in the order the migration and the halo build leave (the results above did
   * not change). */
  const char *renumber = getenv("OP2_RENUMBER");
  if (((renumber && strcmp(renumber, "on") == 0) || call_renumber) && mt_size() > 1) {
    op_set set = w.nodes.set;
    int rising = 1;
    for (int e = 1; e < set->size; e++)
      if (e != set->core_size && set->orig[e] < set->orig[e - 1]) rising = 0;
    if (rising) fprintf(stderr, "rank %d: nodes not renumbered\n", mt_rank());
    CHECK(!rising);
  }
  int me = mt_rank(), p = mt_size();
  op_exit();
  if (me == 0)
    printf("t420 %s %s%s on %d ranks: every loop kind matches plain C\n", argv[1], argv[2],
           long_maps ? " (op_decl_map_long)" : "", p);
  return 0;
}
