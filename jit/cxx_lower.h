/* SPDX-License-Identifier: BSD-3-Clause */
/* The C-compatible subset of C++ that OP2's kernels use, lowered to C (cxx_lower.c), so that
 * such kernels take TinyCC's tier at once instead of waiting for the system C++ compiler. */
#ifndef OP2_JIT_CXX_LOWER_H
#define OP2_JIT_CXX_LOWER_H

#include "kernel_tokens.h"

/* The kernel text T with reference parameters of its helper functions made pointers (their
 * uses dereferenced, their call sites passing the address, type-checked), functional casts of
 * arithmetic types (`double(x)`) made C casts and structures usable without `struct`
 * (`typedef struct S S;`), as rewrites of its tokens (lines kept). 1 when it rewrote; 0 when
 * there was nothing to lower or when any part of the text is not surely understood (T is then
 * left as it was, for TinyCC to reject and the C++ tier to build). All or nothing: it takes
 * back every rewrite of T when it refuses, so it runs before any other pass that rewrites
 * (cxx_prune.c only leaves out). `kernel` is the loop's kernel name: its own parameters are
 * never lowered. */
int op2_cxx_lower_toks(op2_toks *T, const char *kernel);

#endif
