/* SPDX-License-Identifier: BSD-3-Clause */
/* Minimal test support for op2jit's tests: assertions that print file, line, the expression and
 * the values, and a way to catch library errors (the library's error handler is replaced by one
 * that jumps back to the test). Every test is its own executable; exit status 0 means pass. */
#ifndef OP2_TEST_H
#define OP2_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <op2.h>

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

#define CHECK_EQ_INT(a, b)                                                                         \
  do {                                                                                             \
    long long check_a_ = (long long)(a), check_b_ = (long long)(b);                                \
    if (check_a_ != check_b_) {                                                                    \
      fprintf(stderr, "%s:%d: CHECK_EQ_INT failed: %s == %s (%lld vs %lld)\n", __FILE__, __LINE__, \
              #a, #b, check_a_, check_b_);                                                         \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

/* |a - b| <= tol * max(1, |b|) */
#define CHECK_NEAR(a, b, tol)                                                                   \
  do {                                                                                          \
    double check_a_ = (double)(a), check_b_ = (double)(b);                                      \
    double check_s_ = fabs(check_b_) > 1 ? fabs(check_b_) : 1;                                  \
    if (!(fabs(check_a_ - check_b_) <= (tol)*check_s_)) {                                       \
      fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s ~ %s (%.17g vs %.17g, tol %g)\n", __FILE__, \
              __LINE__, #a, #b, check_a_, check_b_, (double)(tol));                             \
      exit(1);                                                                                  \
    }                                                                                           \
  } while (0)

#define CHECK_CONTAINS(haystack, needle)                                                          \
  do {                                                                                            \
    const char *check_h_ = (haystack), *check_n_ = (needle);                                      \
    if (!check_h_ || !strstr(check_h_, check_n_)) {                                               \
      fprintf(stderr, "%s:%d: CHECK_CONTAINS failed: \"%s\" does not contain \"%s\"\n", __FILE__, \
              __LINE__, check_h_ ? check_h_ : "(null)", check_n_);                                \
      exit(1);                                                                                    \
    }                                                                                             \
  } while (0)

/* Catching library errors: the handler records the error and returns, so the failing call
 * returns too (the library's "store and return" mode), and the test checks that it did. */
static int test_errors_expected, test_errors_seen;

static void test_error_handler(const char *message, void *user) {
  (void)user;
  test_errors_seen++;
  if (!test_errors_expected) {
    fprintf(stderr, "unexpected op2 error: %s\n", message);
    exit(1);
  }
}

static inline void test_catch_errors(void) {
  op_set_error_handler(test_error_handler, NULL);
}

/* Lazy execution (the default, runtime/chain.c): op_par_loop queues its call, and the call runs
 * (and reports its errors) when the program needs its results. The library's own flush, for
 * tests that look at what a call did before any public call would have run it. Collective under
 * MPI, like every call that runs the chain. */
typedef struct op2_context op2_context;
op2_context *op2_ctx(void);
void op2_chain_flush(op2_context *ctx, const char *why);
static inline void test_run_queued(void) {
  op2_chain_flush(op2_ctx(), "the test");
}

/* Runs `stmt`, which must raise exactly one library error whose message contains `needle`; a
 * call `stmt` queued runs before the count is checked, as the program's next use of its results
 * would run it. */
#define EXPECT_ERROR(stmt, needle)                                                              \
  do {                                                                                          \
    test_errors_expected = 1;                                                                   \
    test_errors_seen = 0;                                                                       \
    stmt;                                                                                       \
    test_run_queued();                                                                          \
    test_errors_expected = 0;                                                                   \
    if (test_errors_seen != 1) {                                                                \
      fprintf(stderr, "%s:%d: expected one error from %s, got %d\n", __FILE__, __LINE__, #stmt, \
              test_errors_seen);                                                                \
      exit(1);                                                                                  \
    }                                                                                           \
    CHECK_CONTAINS(op_last_error(), needle);                                                    \
  } while (0)

/* Runs `stmt`, which must raise exactly one library error whose message contains `needle`
 * before it returns: with lazy execution too, a call whose arguments need no data to be refused
 * is refused at the call, with the message of OP2_LAZY=off (no "(queued ...)" note), so the
 * handler has run before the program's next statement. Anything queued then runs, and must
 * report nothing more. */
#define EXPECT_ERROR_AT_CALL(stmt, needle)                                                        \
  do {                                                                                            \
    test_errors_expected = 1;                                                                     \
    test_errors_seen = 0;                                                                         \
    stmt;                                                                                         \
    if (test_errors_seen != 1) {                                                                  \
      fprintf(stderr, "%s:%d: expected one error from %s before it returned, got %d\n", __FILE__, \
              __LINE__, #stmt, test_errors_seen);                                                 \
      exit(1);                                                                                    \
    }                                                                                             \
    CHECK_CONTAINS(op_last_error(), needle);                                                      \
    if (strstr(op_last_error(), "(queued")) {                                                     \
      fprintf(stderr, "%s:%d: the error of %s was a queued call's: %s\n", __FILE__, __LINE__,     \
              #stmt, op_last_error());                                                            \
      exit(1);                                                                                    \
    }                                                                                             \
    test_run_queued();                                                                            \
    test_errors_expected = 0;                                                                     \
    if (test_errors_seen != 1) {                                                                  \
      fprintf(stderr, "%s:%d: %s: %d errors once the queued calls ran\n", __FILE__, __LINE__,     \
              #stmt, test_errors_seen);                                                           \
      exit(1);                                                                                    \
    }                                                                                             \
  } while (0)

/* Deterministic random numbers (xorshift) so failures repeat. */
static inline unsigned test_rand(unsigned *state) {
  unsigned x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *state = x;
}

#endif
