/* SPDX-License-Identifier: BSD-3-Clause */
/* OP2_ASSERT: invariants of the library's own structures (plans and their colourings, halo
 * lists), checked where they are built in the sanitizer build (meson's b_sanitize set, which
 * defines OP2_CHECK_INVARIANTS) and compiled out of the others, where the checks would cost time
 * on every plan and halo built. A broken invariant is a bug of the library, not an error of the
 * program: it names the file, line and condition and aborts, so the sanitizer prints the stack.
 * Checks that need a loop or scratch memory go in `if (OP2_INVARIANTS) { ... }`. */
#ifndef OP2_RUNTIME_INVARIANT_H
#define OP2_RUNTIME_INVARIANT_H

#ifdef OP2_CHECK_INVARIANTS
#define OP2_INVARIANTS 1
#else
#define OP2_INVARIANTS 0
#endif

_Noreturn void op2_invariant_broken(const char *file, int line, const char *cond, const char *fmt,
                                    ...) __attribute__((format(printf, 4, 5)));

#if OP2_INVARIANTS
#define OP2_ASSERT(cond, ...) \
  ((cond) ? (void)0 : op2_invariant_broken(__FILE__, __LINE__, #cond, __VA_ARGS__))
#else
/* Not evaluated, but its variables still count as used. */
#define OP2_ASSERT(cond, ...) ((void)sizeof(!(cond)))
#endif

#endif /* OP2_RUNTIME_INVARIANT_H */
