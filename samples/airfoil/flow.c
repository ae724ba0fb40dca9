/* SPDX-License-Identifier: BSD-3-Clause */
#include "flow.h"

#include <math.h>
#include <op2.h>

airfoil_flow airfoil_free_stream(void) {
  airfoil_flow f;
  f.gam = 1.4f;
  f.gm1 = f.gam - 1.0f;
  f.cfl = 0.9f;
  f.eps = 0.05f;
  f.mach = 0.4f;
  f.alpha = 3.0f * atan(1.0f) / 45.0f;
  double p = 1.0f, r = 1.0f;
  double u = sqrt(f.gam * p / r) * f.mach, e = p / (r * f.gm1) + 0.5f * u * u;
  f.qinf[0] = r;
  f.qinf[1] = r * u;
  f.qinf[2] = 0.0f;
  f.qinf[3] = r * e;
  return f;
}

void airfoil_declare_constants(const airfoil_flow *f) {
  op_decl_const(1, "double", &f->gam, "gam");
  op_decl_const(1, "double", &f->gm1, "gm1");
  op_decl_const(1, "double", &f->cfl, "cfl");
  op_decl_const(1, "double", &f->eps, "eps");
  op_decl_const(1, "double", &f->mach, "mach");
  op_decl_const(1, "double", &f->alpha, "alpha");
  op_decl_const(4, "double", f->qinf, "qinf");
}
