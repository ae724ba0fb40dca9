/* SPDX-License-Identifier: BSD-3-Clause */
/* Airfoil's flow constants, shared by the solver and the HDF5 converter so a run from either file
 * starts from the same state. */
#ifndef AIRFOIL_FLOW_H
#define AIRFOIL_FLOW_H

typedef struct airfoil_flow {
  double gam, gm1, cfl, eps, mach, alpha, qinf[4];
} airfoil_flow;

/* Free stream at Mach 0.4 and 3 degrees, computed exactly as OP2's Airfoil does (its float
 * literals included), so the rms matches OP2's reference values. */
airfoil_flow airfoil_free_stream(void);

/* op_decl_const for gam, gm1, cfl, eps, mach, alpha and qinf. */
void airfoil_declare_constants(const airfoil_flow *f);

#endif
