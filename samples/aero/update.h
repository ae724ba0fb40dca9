/* SPDX-License-Identifier: BSD-3-Clause */
// The Newton step: phi -= U; the residual cleared for the next assembly; rms += U^2.
inline void update(double *phim, double *res, const double *u, double *rms) {
  *phim -= *u;
  *res = 0.0;
  *rms += (*u) * (*u);
}
