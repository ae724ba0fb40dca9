/* SPDX-License-Identifier: BSD-3-Clause */
/* The Fortran target's optimised tier, private to jit/: the loop generated in Fortran around the
 * kernel's source (fortran_codegen.c) and gfortran, the compiler that builds it
 * (fortran_tier.c). */
#ifndef OP2_JIT_FORTRAN_CODEGEN_H
#define OP2_JIT_FORTRAN_CODEGEN_H

#include "jit_internal.h"
#include "fortran_unit.h"

/* The line between the modules compiled only for their interfaces and the loop module. */
#define OP2_FORTRAN_LOOP_MARKER "!op2jit:loop"

/* Whether a loop's elements may run in groups of lanes (loop_lanes.F90): no argument writes
 * through a map but by increments. */
bool op2_fortran_lanes_possible(const op2_loop_desc *loop);

/* The generated source: signature and identity, interface modules, marker, loop module. */
int op2_codegen_fortran(op2_jit *jit, const op2_loop_desc *loop, const op2_fortran_unit *u,
                        int map_base, op2_generated *out);

/* The gfortran tier (OP2_FC, OP2_FFLAGS; -1 when there is no such compiler), whose compile step
 * builds the interface modules (syntax only, for their .mod files) and then the loop into a
 * shared object. `moddirs` (':'-separated) are where OP2's and MPI's modules are. */
int op2_fortran_tier(const char *fc, const char *flags, const char *moddirs, int timeout_s,
                     op2_tier *t);

/* The kernel's optimised build: loaded from the cache if there, else queued on the background
 * tier (its compiler runs after the first call returned). */
void op2_fortran_upgrade(op2_jit *jit, const op2_jit_request *rq, op2_jit_counters *cnt,
                         op2_kernel *k, const op2_generated *gen);

#endif /* OP2_JIT_FORTRAN_CODEGEN_H */
