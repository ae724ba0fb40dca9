/* SPDX-License-Identifier: BSD-3-Clause */
// What the 3-D sample (mg3d.c) and its hand-written baseline (mg3d_baseline.c) share: the
// scheme's parameters, the multigrid cycle's shape and the checks' tolerances. The kernels
// (one header each, OP2's way) read the constants nu, adv and omega, defined by each program.
#ifndef MG3D_SCHEME_H
#define MG3D_SCHEME_H

#define MG3D_NU 0.05    // diffusion coefficient
#define MG3D_ADV_X 1.0  // advection velocity (inflow through x = 0, y = 0, z = 0)
#define MG3D_ADV_Y 0.5
#define MG3D_ADV_Z 0.25
#define MG3D_OMEGA 0.8  // Jacobi damping
#define MG3D_G0 1.0     // inflow value g0 + gamp cos(2 pi x) cos(2 pi y) cos(2 pi z)
#define MG3D_GAMP 0.5
#define MG3D_PRE 2          // Jacobi sweeps before the coarse-level correction
#define MG3D_POST 2         // and after it
#define MG3D_COARSEST 16    // sweeps on the coarsest level
#define MG3D_CYCLES 20      // V-cycles by default
#define MG3D_FREE_CYCLES 3  // V-cycles of the free-stream check
#define MG3D_MAX_LEVELS 8

// Checks: the residual falls at least by this factor per V-cycle on average (multigrid's
// rate, independent of the mesh size; Jacobi alone on the 16^3 mesh manages 0.8); the residual's
// sum matches the right-hand side less the outflow to this fraction of their size (interior fluxes
// cancel); a uniform inflow leaves a uniform state to this relative deviation; the solution stays
// within the inflow's bounds (discrete maximum principle) up to this slack.
#define MG3D_RATE 0.5
#define MG3D_CONSERVATION_TOL 1e-11
#define MG3D_FREE_STREAM_TOL 1e-12
#define MG3D_BOUNDS_SLACK 1e-6

#endif
