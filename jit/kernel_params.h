/* SPDX-License-Identifier: BSD-3-Clause */
/* The kernel function's parameter list, read from its C source, and its comparison with the
 * loop's arguments before the first run. */
#ifndef OP2_KERNEL_PARAMS_H
#define OP2_KERNEL_PARAMS_H

#include "jit/jit.h"

enum { OP2_PARAMS_MAX = 64 };

typedef struct op2_kernel_param {
  char base[32];      /* "double", "float", "int", "long long", or another spelling */
  int depth;          /* pointer depth, an array declarator counting as one */
  bool pointee_const; /* const applies to what the first pointer points at */
  char name[64];
} op2_kernel_param;

/* Reads the parameters of the function `name` defined in `code`, a kernel text blanked by
 * op2_c_blank (kernel_facts.c reads them once per text). OP2_OK (*count set), or OP2_ERR_ARG when
 * the declaration is not understood (macros, typedefs, no definition found) with the reason in
 * *why (OP2_ERR_MEM: out of memory; why may be NULL). */
int op2_kernel_params_parse_blank(const char *code, const char *name, op2_kernel_param *out,
                                  int *count, op2_jit_error *why);

/* op2_kernel_params_check (jit.h) compares them with the loop's arguments, counting arguments
 * from 0 as every loop message does; a declaration that cannot be read is skipped (said at
 * OP2_DIAGS=2). */
/* op2_kernel_params_verify (jit.h): the same comparison, silent, for a call checked when it is
 * queued. */

/* Reading kernel source, shared with kernel_lanes.c, in code blanked by base/c_lexis.h's
 * op2_c_blank (comments and the contents of literals), so that neither can be mistaken for code. */
/* In blanked code: just after the '(' of the definition of `name` (its matching ')' at *close,
 * followed by '{'), or NULL. */
const char *op2_kernel_find_definition(const char *code, const char *name, const char **close);

#endif
