/* SPDX-License-Identifier: BSD-3-Clause */
/* One op_par_loop call as the runtime passes it along: par_loop.c's steps, the chain (chain.c,
 * chain_fuse.c, chain_mpi.c), the call sites (loop_site.c), the loop lookup (loop.c), the checks
 * (validate.c) and the checkpoint log take this record by pointer, instead of the same eight
 * values as eight parameters through every function on the way. */
#ifndef OP2_RUNTIME_LOOP_CALL_H
#define OP2_RUNTIME_LOOP_CALL_H

#include <stdbool.h>

#include "op2.h"

typedef struct op2_loop op2_loop;

/* A queued call, as the program made it (chain.c): its kernel and name pointers, under which a
 * loop found at its replay is remembered (so that the site's next call finds it when queued),
 * and the loop its site led to when it was queued, if any: valid while the sites' epoch is
 * `epoch` (no loop freed since) and the constants' generation is the loop's. */
typedef struct op2_call_origin {
  const char *kernel, *name;
  bool kernel_kept;
  op2_loop *loop;
  unsigned long epoch;
} op2_call_origin;

/* What one call carries. The strings and arguments are the caller's (or, for a queued call's
 * replay, the chain's copies); the record is only read, and lives no longer than the call. */
typedef struct op2_loop_call {
  const char *kernel; /* the kernel's text (a compiled procedure's: its marker text) */
  const char *name;
  op_set set;
  int nargs;
  const op_arg *args;
  /* the library holds the kernel text, unchanged until op_exit (a kernel header's, a Fortran
   * procedure's): trusted by pointer like a string literal */
  bool kernel_kept;
  /* the program's call (its return address), named in messages about a queued call
   * (OP2_LAZY); NULL when unknown */
  const void *site;
  /* NULL: the program's call. Otherwise the chain replays a queued call (runtime/chain.c): it
   * is not queued again, and runs the loop the origin carries instead of a lookup */
  const op2_call_origin *origin;
} op2_loop_call;

#endif /* OP2_RUNTIME_LOOP_CALL_H */
