/* SPDX-License-Identifier: BSD-3-Clause */
/* The Fortran target's optimised tier, private to jit/: the loop generated in Fortran around the
 * kernel's source (fortran_codegen.c) and gfortran, the compiler that builds it
 * (fortran_tier.c). */
#ifndef OP2_JIT_FORTRAN_CODEGEN_H
#define OP2_JIT_FORTRAN_CODEGEN_H

#include "jit_internal.h"
#include "base/fortran_unit.h"
#include "emit.h"

/* The line between the modules compiled only for their interfaces and the loop module. */
#define OP2_FORTRAN_LOOP_MARKER "!op2jit:loop"
/* The line after the Fortran module of a loop whose element loop is C's: the C compiler's command
 * (without -shared), then the C source to the end. */
#define OP2_FORTRAN_C_MARKER "!op2jit:c"

/* Whether a loop's elements may run in groups of lanes (loop_lanes.F90): no argument writes
 * through a map but by increments. */
bool op2_fortran_lanes_possible(const op2_loop_desc *loop);

/* A copy of the kernel for the C element loop (fortran_copy.c): named `name`, its C name too
 * (BIND(C)), the host variables after the loop's arguments as dummies declared by host_decls;
 * with `laned`, each dummy i with laned[i] takes a group's component-major lane array (op2_w,
 * its dimensions) at its first lane. */
typedef struct op2_fortran_copy {
  const char *name;
  const bool *laned; /* NULL: the kernel as it is */
  int ndummies;      /* the loop's arguments */
  int nhost;
  char *const *host_names;
  char *const *host_decls;
} op2_fortran_copy;

/* Writes the copy into out: OP2_OK, or why not. *once (when not NULL): the dummies (bit i) each
 * of whose components the kernel provably adds to at most once, by `x(N) = x(N) + term`. */
int op2_fortran_kernel_copy(const char *kernel, const op2_fortran_copy *c, op2_buf *out,
                            uint64_t *once, char *why, size_t whylen);

/* Which of the kernel's first n dummies are declared LOGICAL (the loop's descriptors know them as
 * 4-byte integers). OP2_OK or OP2_ERR_MEM. */
int op2_fortran_logical_dummies(const char *kernel, bool *logical, int n);

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
