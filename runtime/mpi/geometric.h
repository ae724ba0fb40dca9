/* SPDX-License-Identifier: BSD-3-Clause */
/* Geometric partitioning of distributed points by recursive coordinate bisection. A pure function
 * of its arguments (no library context), collective on `comm`, like ptscotch.h. */
#ifndef OP2_MPI_GEOMETRIC_H
#define OP2_MPI_GEOMETRIC_H

#include <stddef.h>

#include <mpi.h>

#include "base/base.h"

/* Splits the points into `nparts` parts: the parts' index range is halved, the points of a range
 * are cut across the longest side of their bounding box at the coordinate that puts the matching
 * share on each side, and each side recurses. Within `balance` (0.05: a part up to 5% above the
 * average, spread over the levels of bisection) a cut moves to the widest gap between the
 * points' coordinates, so that it does not run through a layer of points; with no gap there, or
 * balance 0, the shares are exact to one point per cut. Points with equal coordinates at a cut
 * are split by global number, so the result depends only on the points and their global
 * numbers, never on which rank holds them.
 * Rank r holds `n` points whose global numbers are first .. first + n - 1 (below 2^53); point i
 * has coordinates xyz[i * dim .. i * dim + dim), dim 1 to 3, all finite. part[i] gets its part
 * in [0, nparts). No rank gathers the points: each level of bisection costs a few allreduces of
 * histograms (one row of bins per range being cut), and each rank only walks its own points.
 * Returns 0, or -1 on every rank with the same failure in *err (which may be NULL). */
int op2_rcb_partition(MPI_Comm comm, int n, int dim, const double *xyz, long first, int nparts,
                      double balance, int *part, op2_jit_error *err);

#endif
