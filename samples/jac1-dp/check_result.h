/* SPDX-License-Identifier: BSD-3-Clause */
// The check jac1 and jac2 make after NITER = 2 Jacobi steps on the NN x NN grid: the value at
// an interior node depends only on how far the node is from the boundary along i and along j
// (0, 1, or 2 and more), and is known exactly. Returns 0 when every node is within tol.
#ifndef JAC_CHECK_RESULT_H
#define JAC_CHECK_RESULT_H

#include "op_lib_c.h"

#ifndef STRIDE
#define STRIDE 1  // values per node in u; the check reads the first
#endif

template <class T>
int check_result(const T *u, int nn, T tol) {
  // expected[a][b]: a, b = the node's distance from the boundary rows along i and j, capped at 2
  static const double expected[3][3] = {
      {0.625, 0.4375, 0.375}, {0.4375, 0.125, 0.0625}, {0.375, 0.0625, 0.0}};
  int failed = 0;
  for (int j = nn - 1; j > 0; j--) {
    for (int i = 1; i < nn; i++) {
      int di = MIN(MIN(i - 1, nn - 1 - i), 2);
      int dj = MIN(MIN(j - 1, nn - 1 - j), 2);
      double want = expected[di][dj];
      double got = u[STRIDE * (i - 1 + (j - 1) * (nn - 1))];
      if (fabs(got - want) > tol) {
        op_printf("Failure: i=%d, j=%d, expected: %f, actual: %f\n", i, j, want, got);
        failed = 1;
      }
    }
  }
  if (!failed) op_printf("\nResults check passed!\n");
  return failed;
}

#endif
