/* SPDX-License-Identifier: BSD-3-Clause */
/* The kernel's copy for component-major lane arrays (kernel_lanes.c explains why). */
#ifndef OP2_KERNEL_LANES_H
#define OP2_KERNEL_LANES_H

#include <stdint.h>

#include "base/base.h"
#include "kernel_facts.h"

/* Appends to `out` a definition `static void op2_lanes_NAME(...)`: the kernel (its text and name
 * in `kernel`, read once: kernel_facts.h) with every parameter p whose bit is set in `want` (bit i:
 * parameter i) and that is only ever used as p[e] or *p indexed p[(e) * OP2_SIMD_W] and p[0].
 * Returns the bits of the parameters rewritten; 0, with nothing appended, when none could be (or
 * the definition is not understood). */
uint64_t op2_kernel_lanes(const op2_kernel_facts *kernel, uint64_t want, op2_buf *out);

/* The bits of `which` (bit i: parameter i) whose parameter the kernel provably adds to at most
 * once per component on every path, each addition a statement `p[N] += e;`, `p[N] -= e;` or
 * `*p += e;` (N a constant: literals and the text's macros), or `p[v] += e;` in a counted loop over
 * v, and p used nowhere else; parameters with one `group` value >= 0 (one dat: they may reach one
 * element) must also add in parameter order on every component they share. In groups of lanes such
 * OP_INC arguments get the scalar loop's sums bit for bit (kernel_lanes.c says why). `group` may be
 * NULL; else it has an entry per parameter. */
uint64_t op2_kernel_adds_once(const op2_kernel_facts *kernel, uint64_t which, const int *group);

#endif
