/* SPDX-License-Identifier: BSD-3-Clause */
/* Fusion of consecutive direct loops over one set (OP2_FUSE=on, with OP2_LAZY=on): the queued
 * calls run as one loop whose kernel calls each call's kernel in turn on the same element, so an
 * element's data is read from memory once for all of them. Element e of each loop reads and
 * writes only element e of its dats, so the fused pass computes exactly what the calls compute
 * one after the other, bit for bit. */
#ifndef OP2_CHAIN_FUSE_H
#define OP2_CHAIN_FUSE_H

#include <stdbool.h>

#include "op2.h"
#include "runtime/loop_call.h"

/* The fused call: kernel text, loop name ("fused_" and the loops' names) and arguments (each
 * call's, in order), malloc'ed. */
typedef struct op2_fused {
  char *kernel;
  char *name;
  int nargs;
  op_arg *args;
} op2_fused;

/* How many of parts[0..n) (n >= 1) run as one fused pass: 1 when parts[0] runs alone. Fused
 * calls are direct (every argument a dat without a map, or an OP_READ global, with plain types),
 * on one set, with kernel texts that declare no file-scope name another of them declares (the
 * same text twice is one text) and hold no preprocessor line but #line. */
int op2_fuse_span(const op2_loop_call *parts, int n);

/* The fused call of parts[0..k); OP2_OK or OP2_ERR_MEM (nothing reported: the calls then run one
 * by one). */
int op2_fuse_build(const op2_loop_call *parts, int k, op2_fused *out);
void op2_fused_free(op2_fused *f);

#endif /* OP2_CHAIN_FUSE_H */
