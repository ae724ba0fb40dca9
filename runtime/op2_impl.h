/* SPDX-License-Identifier: BSD-3-Clause */
/* Every runtime header at once, for the project's tests and tools that look inside the library.
 * Library files include the headers they use, each one concern:
 *   runtime/error.h        op2_error, op2_diag: the one error mechanism
 *   runtime/alloc.h        aligned arrays of the mesh, halo room, pointer lists
 *   runtime/mesh.h         sets (halo lists), maps, dats, declared names and constants
 *   runtime/loop.h         loop shapes, their arguments and statistics
 *   runtime/plan.h         execution plans: blocks, colours, thread-owned runs
 *   runtime/tune.h         per-loop auto-tuning (OP2_TUNE)
 *   runtime/options.h      the user's options
 *   runtime/mpi_state.h    the context's distributed-memory state (no MPI types)
 *   runtime/fault.h        kernels dying by a signal
 *   runtime/context.h      the one context (includes the state headers above)
 *   runtime/jit_use.h      asking jit/ for a loop's kernel
 *   runtime/kernel_source.h  kernels given as functions: their source
 *   runtime/output.h       fetches and profiles
 *   runtime/backend.h      the backend API; runtime/distributed.h what runtime/ asks of MPI
 * What jit/ shares with runtime/ is in base/base.h and jit/jit.h. */
#ifndef OP2_IMPL_H
#define OP2_IMPL_H

#include "runtime/error.h"
#include "runtime/alloc.h"
#include "runtime/mesh.h"
#include "runtime/loop.h"
#include "runtime/plan.h"
#include "runtime/tune.h"
#include "runtime/options.h"
#include "runtime/mpi_state.h"
#include "runtime/fault.h"
#include "runtime/context.h"
#include "runtime/jit_use.h"
#include "runtime/kernel_source.h"
#include "runtime/output.h"
#include "runtime/backend.h"

#endif /* OP2_IMPL_H */
