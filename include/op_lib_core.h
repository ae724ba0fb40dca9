/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file op_lib_core.h
 * @brief The header OP2 programs include for OP2's core declarations. op2jit declares its whole
 * API in op2.h; this header brings it in with what OP2's core header gives a program besides:
 * the C (and, in C++, the C++) headers it includes, the shorthand types (`uint`, `ll`, `ull`,
 * `idx_l_t`; `idx_g_t` is op2.h's), MIN/MAX, the rounding macros, OP2_ALIGNMENT, and
 * op_timers_core and op_print as OP2 names them. OP2's internal state (OP_set_list,
 * OP_dat_list, ...) and its loop and halo machinery are not part of op2jit's API.
 */
#ifndef OP2_OP_LIB_CORE_H
#define OP2_OP_LIB_CORE_H

#include <stdarg.h>
#include <stdbool.h>
#include <strings.h>
#include <sys/queue.h>

#include "op_seq.h"

#ifdef __cplusplus
#include <cstddef>
#include <iostream>
#include <limits>
#include <stdexcept>
#endif

/* op_malloc's alignment, in bytes. */
#ifndef OP2_ALIGNMENT
#define OP2_ALIGNMENT 64
#endif

typedef unsigned int uint;
typedef long long ll;
typedef unsigned long long ull;
/** @brief A rank's local element index (OP2's idx_l_t). */
typedef int idx_l_t;

/* Rounded up to a multiple of 16 and of 64 bytes. */
#define ROUND_UP(bytes) (((bytes) + 15) & ~15)
#define ROUND_UP_64(bytes) (((bytes) + 63) & ~63)

/** @brief OP2's name for op_timers(): CPU and wall-clock seconds. */
static inline void op_timers_core(double *cpu, double *et) {
  op_timers(cpu, et);
}
/** @brief Prints `line` and a newline on the rank that prints (OP2's op_print). */
static inline void op_print(const char *line) {
  op_printf("%s\n", line);
}

#ifdef __cplusplus
/** @brief `x` rounded up to a multiple of 32. */
constexpr size_t round32(size_t x) {
  return (x + 31) & ~(size_t)31;
}
#endif

#endif /* OP2_OP_LIB_CORE_H */
