/* SPDX-License-Identifier: BSD-3-Clause */
/* The C-compatible subset of C++ that OP2's kernels use, lowered to C (cxx_lower.c), so that
 * such kernels take TinyCC's tier at once instead of waiting for the system C++ compiler. */
#ifndef OP2_JIT_CXX_LOWER_H
#define OP2_JIT_CXX_LOWER_H

#include "base/base.h"

/* The kernel text `src` with reference parameters of its helper functions made pointers (their
 * uses dereferenced, their call sites passing the address, type-checked), functional casts of
 * arithmetic types (`double(x)`) made C casts and structures usable without `struct`
 * (`typedef struct S S;`). 1 when `out` holds the lowered text (lines kept); 0 when there was
 * nothing to lower or when any part of the text is not surely understood (it is then left as
 * it is, for TinyCC to reject and the C++ tier to build). `kernel` is the loop's kernel name:
 * its own parameters are never lowered. */
int op2_cxx_lower(const char *src, const char *kernel, op2_buf *out);

#endif
