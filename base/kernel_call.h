/* SPDX-License-Identifier: BSD-3-Clause */
/* How a compiled kernel is called over a range of elements, shared by jit/ (which makes kernels)
 * and runtime/'s backends (which call them): the generated loop's entry, or a generic entry with
 * its closure, for a procedure the program compiled itself (a Fortran kernel run by its address,
 * the first tier of OP2's Fortran API); and what such a procedure brings to its optimised build. */
#ifndef OP2_KERNEL_CALL_H
#define OP2_KERNEL_CALL_H

#include <stddef.h>

typedef void (*op2_kernel_fn)(void *const *args, const int *const *maps, int begin, int end);
/* A kernel whose code is generic over its loop (the first tier of a kernel the program compiled,
 * a Fortran procedure run by its address): the same entry with the loop's description first,
 * which the kernel owns (no state outside it). */
typedef void (*op2_kernel_closure_fn)(const void *closure, void *const *args,
                                      const int *const *maps, int begin, int end);
/* What a backend calls for a range: the kernel's own entry, or its generic entry with its
 * closure. Read once per run (op2_kernel_callable), called per range (op2_kernel_call_range). */
typedef struct op2_kernel_call {
  op2_kernel_fn fn; /* NULL when the generic entry runs */
  op2_kernel_closure_fn closure_fn;
  const void *closure;
} op2_kernel_call;
static inline void op2_kernel_call_range(const op2_kernel_call *c, void *const *args,
                                         const int *const *maps, int begin, int end) {
  if (c->fn)
    c->fn(args, maps, begin, end);
  else
    c->closure_fn(c->closure, args, maps, begin, end);
}

/* A kernel that is a procedure of the program (jit.h's OP2_TARGET_FORTRAN request). */
struct op2_fortran_unit;
typedef struct op2_compiled_procedure {
  op2_kernel_closure_fn first_tier; /* runs it by its address over a range */
  const void *closure;              /* what first_tier reads, copied into the kernel */
  size_t closure_size;
  /* the kernel as every rank and run names it (symbol, source file): with the loop's
   * signature, its key when no optimised build is possible */
  const char *identity;
  /* the optimised tier's inputs (jit/fortran_unit.h), or NULL: the first tier only */
  const struct op2_fortran_unit *unit;
  int map_base; /* OP2's base index: what op_arg_idx adds to a map's value */
  /* variables of the program the optimised code reads by address (host association) */
  const char *const *host_names;
  void *const *host_addrs;
  int nhost;
} op2_compiled_procedure;

#endif /* OP2_KERNEL_CALL_H */
