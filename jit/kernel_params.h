/* SPDX-License-Identifier: BSD-3-Clause */
/* The kernel function's parameter list, read from its C source, and its comparison with the
 * loop's arguments before the first run. */
#ifndef OP2_KERNEL_PARAMS_H
#define OP2_KERNEL_PARAMS_H

#include "jit.h"

enum { OP2_PARAMS_MAX = 64 };

typedef struct op2_kernel_param {
  char base[32];      /* "double", "float", "int", "long long", or another spelling */
  int depth;          /* pointer depth, an array declarator counting as one */
  bool pointee_const; /* const applies to what the first pointer points at */
  char name[64];
} op2_kernel_param;

/* Reads the parameters of the function `name` defined in `source`. OP2_OK (*count set), or
 * OP2_ERR_ARG when the declaration is not understood (macros, typedefs, no definition found)
 * with the reason in *why (OP2_ERR_MEM: out of memory; why may be NULL). */
int op2_kernel_params_parse(const char *source, const char *name, op2_kernel_param *out, int *count,
                            op2_jit_error *why);

/* Compares the kernel's parameters with the loop's arguments: OP2_OK, or an OP2_ERR_ARG error
 * naming the loop, the argument (counting from 0, as every loop message does) and the parameter.
 * A declaration that cannot be read is skipped (said at OP2_DIAGS=2). */
int op2_kernel_params_check(op2_jit *jit, const char *source, const op2_loop_desc *loop);
/* The same comparison, silent (no failure recorded, no diagnostic): OP2_OK when the check above
 * would pass, OP2_ERR_ARG when it would fail, OP2_ERR_MEM. For a call checked when it is queued
 * (lazy execution): one that fails runs at once, and the check above reports it. */
int op2_kernel_params_verify(const char *source, const op2_loop_desc *loop);

/* Reading kernel source, shared with kernel_lanes.c. */
/* The source with comments and the contents of string and character literals blanked, so that
 * neither can be mistaken for code; same length as the source. NULL when out of memory. */
char *op2_kernel_source_blank(const char *src);
int op2_is_ident_char(char c);
/* In blanked code: just after the '(' of the definition of `name` (its matching ')' at *close,
 * followed by '{'), or NULL. */
const char *op2_kernel_find_definition(const char *code, const char *name, const char **close);

#endif
