/* SPDX-License-Identifier: BSD-3-Clause */
/* Recursive coordinate bisection of distributed points (geometric.h). Every range of parts being
 * cut at a level is cut at once: the ranks count their points in a row of histogram bins per
 * range, one allreduce sums the rows, and the bin holding the wanted split point becomes the next
 * round's interval (narrowed to the values actually in it by a second, min/max allreduce). Each
 * round leaves at least one of an interval's extreme values out, so a cut always ends; on mesh
 * coordinates it takes a handful of rounds. Nothing is gathered: a rank only walks its points. */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/mpi/geometric.h"
#include "runtime/mpi/standalone_message.h"

enum { BINS = 512 };

/* The cut of one range of parts [p0, p1): parts [p0, mid) get the low side. */
typedef struct cut {
  int p0, mid, p1;
  int axis;
  int phase;     /* 0: cutting on the coordinate; 1: among the points at coordinate c, by number */
  int done;      /* the cut is known: low side = key < lo (phase 1: coordinate < c, or = c and
                    number < lo) */
  int bin;       /* this round's bin holding the split point, -1 when none */
  int boundary;  /* the split point is the first point of that bin */
  int fresh;     /* no round yet: the bins span the whole range (a gap may be chosen) */
  long total;    /* points in the range */
  long target;   /* points wanted on the low side */
  long below;    /* points known to be on the low side (below the interval) */
  long wlo, whi; /* low-side counts within the balance allowed */
  double lo, hi; /* the interval of keys still in question */
  double c;      /* phase 1: the coordinate shared by the points being split by number */
} cut;

#define MPI_FAILED OP2_MPI_FAILED

/* The point's key in its cut's current phase, or NAN when the point is not in question. */
static double key_of(const cut *k, const double *x, double gid) {
  double v = x[k->axis];
  if (k->phase == 1) {
    if (v != k->c) return NAN;
    v = gid;
  }
  return v >= k->lo && v <= k->hi ? v : NAN;
}

/* Monotone in the key: every operation is, with rounding, and so is the floor. */
static int bin_of(const cut *k, double key) {
  if (!(k->hi > k->lo)) return 0;
  double t = (key - k->lo) / (k->hi - k->lo) * BINS;
  int b = (int)t;
  return b < 0 ? 0 : b >= BINS ? BINS - 1 : b;
}

static int low_side(const cut *k, const double *x, double gid) {
  double v = x[k->axis];
  if (k->phase == 0) return v < k->lo;
  return v < k->c || (v == k->c && gid < k->lo);
}

/* Nonzero with *msg when the arguments cannot be bisected. */
static int check_input(int rank, int n, int dim, const double *xyz, int nparts, const int *part,
                       op2_jit_error *msg) {
  if (nparts < 1) return op2_mpi_say(msg, "recursive bisection: %d parts asked for", nparts);
  if (dim < 1 || dim > 3)
    return op2_mpi_say(msg, "recursive bisection: coordinates of dimension %d (1 to 3 wanted)",
                       dim);
  if (n < 0 || (n > 0 && (!xyz || !part)))
    return op2_mpi_say(msg, "recursive bisection: rank %d: %d points without arrays", rank, n);
  for (long i = 0; i < (long)n * dim; i++)
    if (!isfinite(xyz[i]))
      return op2_mpi_say(
          msg, "recursive bisection: rank %d: point %ld has a coordinate that is not finite", rank,
          i / dim);
  return 0;
}

/* Sets up the cuts of this level from the points' bounding boxes and counts. */
static int start_cuts(MPI_Comm comm, int n, int dim, const double *xyz, const int *part,
                      const int *seg_of, cut *cuts, int nseg, double slack, op2_jit_error *msg) {
  double *box = malloc(sizeof(double) * 2 * (size_t)dim * (size_t)nseg);
  long *count = calloc((size_t)nseg, sizeof(long));
  int failed = !box || !count;
  if (failed) op2_mpi_say(msg, "recursive bisection: out of memory");
  if (op2_mpi_standalone_agree(comm, failed, msg)) return free(box), free(count), -1;
  for (size_t j = 0; j < 2 * (size_t)dim * (size_t)nseg; j++) box[j] = INFINITY;
  for (int i = 0; i < n; i++) {
    int k = seg_of[part[i]];
    if (k < 0) continue;
    count[k]++;
    double *b = box + (size_t)k * 2 * dim;
    for (int d = 0; d < dim; d++) {
      double v = xyz[(size_t)i * dim + d];
      if (v < b[d]) b[d] = v;
      if (-v < b[dim + d]) b[dim + d] = -v; /* the maximum, as a minimum of negatives */
    }
  }
  failed = MPI_FAILED(MPI_Allreduce(MPI_IN_PLACE, box, 2 * dim * nseg, MPI_DOUBLE, MPI_MIN, comm),
                      msg) ||
           MPI_FAILED(MPI_Allreduce(MPI_IN_PLACE, count, nseg, MPI_LONG, MPI_SUM, comm), msg);
  for (int k = 0; !failed && k < nseg; k++) {
    cut *c = &cuts[k];
    const double *b = box + (size_t)k * 2 * dim;
    c->axis = 0;
    for (int d = 1; d < dim; d++)
      if (-b[dim + d] - b[d] > -b[dim + c->axis] - b[c->axis]) c->axis = d;
    c->total = count[k];
    long span = c->p1 - c->p0, share = c->mid - c->p0;
    c->target = (c->total * share * 2 + span) / (2 * span); /* rounded to nearest */
    /* Each side may hold up to `slack` more than its parts' average share. */
    const double most = (1.0 + slack) * (double)c->total / (double)span;
    c->whi = (long)(most * (double)share);
    c->wlo = c->total - (long)(most * (double)(span - share));
    if (c->whi < c->target) c->whi = c->target;
    if (c->wlo > c->target) c->wlo = c->target;
    c->fresh = 1;
    c->below = 0;
    c->phase = 0;
    c->lo = b[c->axis];
    c->hi = -b[dim + c->axis];
    c->done = c->total == 0;
  }
  free(box), free(count);
  return op2_mpi_standalone_agree(comm, failed, msg);
}

/* One round: histograms of the keys in question, then the extremes of the chosen bins. */
static int round_of_cuts(MPI_Comm comm, int n, int dim, const double *xyz, long first,
                         const int *part, const int *seg_of, cut *cuts, int nseg,
                         op2_jit_error *msg) {
  long *hist = calloc((size_t)nseg * BINS, sizeof(long));
  double *ext = malloc(sizeof(double) * 4 * (size_t)nseg);
  int failed = !hist || !ext;
  if (failed) op2_mpi_say(msg, "recursive bisection: out of memory");
  if (op2_mpi_standalone_agree(comm, failed, msg)) return free(hist), free(ext), -1;
  for (int i = 0; i < n; i++) {
    int k = seg_of[part[i]];
    if (k < 0 || cuts[k].done) continue;
    double key = key_of(&cuts[k], xyz + (size_t)i * dim, (double)(first + i));
    if (!isnan(key)) hist[(size_t)k * BINS + bin_of(&cuts[k], key)]++;
  }
  if (MPI_FAILED(MPI_Allreduce(MPI_IN_PLACE, hist, nseg * BINS, MPI_LONG, MPI_SUM, comm), msg))
    return free(hist), free(ext), -1;
  for (int k = 0; k < nseg; k++) {
    cut *c = &cuts[k];
    c->bin = -1;
    if (c->done) continue;
    const long *row = hist + (size_t)k * BINS;
    if (c->fresh && c->phase == 0) {
      /* A cut through the middle of a layer of points (a mesh's plane of nodes, perturbed) cuts
       * most of its edges: within the balance allowed, cut at the widest empty run of bins
       * instead (the nearest to the exact share on a tie). None: the exact share. */
      long acc = c->below, best = -1;
      int last = -1, widest = 0;
      for (int b = 0; b < BINS; b++) {
        if (row[b] == 0) continue;
        const int gap = b - last - 1;
        if (last >= 0 && gap > 0 && acc >= c->wlo && acc <= c->whi &&
            (gap > widest || (gap == widest && labs(acc - c->target) < labs(best - c->target))))
          widest = gap, best = acc;
        last = b;
        acc += row[b];
      }
      if (best >= 0) c->target = best;
    }
    c->fresh = 0;
    long acc = c->below;
    for (int b = 0; b < BINS; b++) {
      const long h = row[b];
      if (acc + h > c->target) {
        c->bin = b, c->boundary = acc == c->target;
        break;
      }
      acc += h;
    }
    if (c->bin < 0) { /* every point in question is wanted low */
      c->lo = INFINITY, c->phase = 0, c->done = 1;
      continue;
    }
    c->below = acc;
  }
  for (size_t j = 0; j < 4 * (size_t)nseg; j++) ext[j] = INFINITY;
  for (int i = 0; i < n; i++) {
    int k = seg_of[part[i]];
    if (k < 0 || cuts[k].done || cuts[k].bin < 0) continue;
    const double gid = (double)(first + i);
    const double key = key_of(&cuts[k], xyz + (size_t)i * dim, gid);
    if (isnan(key) || bin_of(&cuts[k], key) != cuts[k].bin) continue;
    double *e = ext + 4 * (size_t)k; /* key min, -key max, number min, -number max */
    if (key < e[0]) e[0] = key;
    if (-key < e[1]) e[1] = -key;
    if (gid < e[2]) e[2] = gid;
    if (-gid < e[3]) e[3] = -gid;
  }
  if (MPI_FAILED(MPI_Allreduce(MPI_IN_PLACE, ext, 4 * nseg, MPI_DOUBLE, MPI_MIN, comm), msg))
    return free(hist), free(ext), -1;
  for (int k = 0; k < nseg; k++) {
    cut *c = &cuts[k];
    if (c->done || c->bin < 0) continue;
    const double *e = ext + 4 * (size_t)k;
    c->lo = e[0], c->hi = -e[1];
    if (c->boundary) {
      c->done = 1;
    } else if (c->lo == c->hi) {
      if (c->phase == 0) { /* all points left in question share the coordinate: split by number */
        c->phase = 1, c->c = c->lo, c->lo = e[2], c->hi = -e[3];
      } else {
        c->done = 1; /* one number: it was the boundary (cannot be reached) */
      }
    }
  }
  free(hist), free(ext);
  return 0;
}

int op2_rcb_partition(MPI_Comm comm, int n, int dim, const double *xyz, long first, int nparts,
                      double balance, int *part, op2_jit_error *err) {
  op2_jit_error record = {.code = OP2_OK}, *msg = &record;
  int rank = 0, rc = -1;
  int *end = NULL, *seg_of = NULL;
  cut *cuts = NULL;
  if (err) *err = record;
  if (MPI_FAILED(MPI_Comm_rank(comm, &rank), msg)) goto out;
  int failed = check_input(rank, n, dim, xyz, nparts, part, msg);
  if (!failed) {
    end = malloc(sizeof(int) * (size_t)nparts);
    seg_of = malloc(sizeof(int) * (size_t)nparts);
    cuts = malloc(sizeof(cut) * (size_t)nparts);
    failed = !end || !seg_of || !cuts;
    if (failed) op2_mpi_say(msg, "recursive bisection: out of memory");
  }
  if (op2_mpi_standalone_agree(comm, failed, msg)) goto out;
  /* part[i] is the first part of the range holding point i; end[p0] the range's end, or -1. */
  for (int i = 0; i < n; i++) part[i] = 0;
  for (int p = 0; p < nparts; p++) end[p] = -1;
  end[0] = nparts;
  int levels = 0;
  while ((1 << levels) < nparts) levels++;
  const double slack = levels && balance > 0 ? balance / levels : 0.0; /* ~(1 + balance) in all */
  for (;;) {
    int nseg = 0;
    for (int p = 0; p < nparts; p++) {
      seg_of[p] = -1;
      if (end[p] - p > 1) {
        seg_of[p] = nseg;
        cuts[nseg++] = (cut){.p0 = p, .mid = p + (end[p] - p) / 2, .p1 = end[p]};
      }
    }
    if (nseg == 0) break;
    if (start_cuts(comm, n, dim, xyz, part, seg_of, cuts, nseg, slack, msg)) goto out;
    for (;;) {
      int open = 0;
      for (int k = 0; k < nseg; k++) open += !cuts[k].done;
      if (!open) break; /* the same on every rank: every decision is made from reduced values */
      if (round_of_cuts(comm, n, dim, xyz, first, part, seg_of, cuts, nseg, msg)) goto out;
    }
    for (int i = 0; i < n; i++) {
      int k = seg_of[part[i]];
      if (k < 0) continue;
      part[i] =
          low_side(&cuts[k], xyz + (size_t)i * dim, (double)(first + i)) ? cuts[k].p0 : cuts[k].mid;
    }
    for (int k = 0; k < nseg; k++) end[cuts[k].p0] = cuts[k].mid, end[cuts[k].mid] = cuts[k].p1;
  }
  rc = 0;
out:
  free(end), free(seg_of), free(cuts);
  if (rc && err) *err = record;
  return rc;
}
