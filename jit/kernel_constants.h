/* SPDX-License-Identifier: BSD-3-Clause */
/* Integer constant expressions in a kernel's text (kernel_constants.c explains why). */
#ifndef OP2_KERNEL_CONSTANTS_H
#define OP2_KERNEL_CONSTANTS_H

#include <stddef.h>

#include "base/c_lexis.h"

/* The value of the integer constant expression starting at code + *at: decimal literals (u/l
 * suffixes allowed), object-like macros of `macros` (the text's, base/c_lexis.h) that have one
 * replacement and are never #undef'd, unary and binary + and -, *, and parentheses, with blanks
 * between. Moves *at past the expression (it ends before the first character that cannot
 * continue it: ']', ';', '<', ...). -1, with *at unchanged, when there is none, a part is not
 * understood, or the value is negative. `code` is a kernel text with comments and literals
 * blanked (op2_c_blank). */
long op2_kernel_constant(const char *code, size_t *at, const op2_c_macros *macros);

#endif
