/* SPDX-License-Identifier: BSD-3-Clause */
/* What of a C++ kernel text the kernel uses (cxx_prune.c): a real application's kernel header
 * often includes the program's C++ header (MG-CFD's config.h: <iostream>, templates, a
 * namespace, std::string helpers) for nothing the kernel calls. Without what the kernel does
 * not reach, such a text is C, so TinyCC runs its first calls and the optimising compiler
 * builds it in the background, instead of the C++ compiler on the loop's first call. */
#ifndef OP2_JIT_CXX_PRUNE_H
#define OP2_JIT_CXX_PRUNE_H

#include <stddef.h>

#include "kernel_tokens.h"

/* Whether the standard header <name> has a C form (the caller's rewrite supplies it). */
typedef int (*op2_header_has_c_form)(const char *name, size_t len);

/* T, a kernel text holding C++ (a C++-only word, `::` or a C++ standard header), with the
 * file-scope declarations that `kernel` (the kernel function's name) does not reach, directly or
 * through what it reaches, left out, and the C++ standard headers that have no C form: 1 when
 * what stays holds no C++ word or `::` any more. A left-out token is blank (its newlines only,
 * so lines keep their numbers) and space to the passes after this one; the first of each left-out
 * declaration carries a note saying so. 0, and T as it was, when the text holds no C++, when a
 * part is not surely understood (T->odd, unbalanced braces, the kernel not found) or when what
 * the kernel uses is C++ itself. */
int op2_cxx_prune_toks(op2_toks *T, const char *kernel, op2_header_has_c_form has_c_form);

#endif
