/* SPDX-License-Identifier: BSD-3-Clause */
/* Lazy execution's call sites (runtime/chain.c, runtime/loop_site.c): a queued call is looked up
 * at its site once, when it is queued, with the program's own pointers, and carries the loop
 * found to its replay.
 * - a string literal kernel queued again is found at its site when queued (one lookup a call),
 *   and its replay neither looks it up again nor compares any kernel text (before, each replay
 *   looked up the chain's copy of the text, which the site table cannot trust by pointer, and
 *   compared it whole: lazy execution's cost per call);
 * - a kernel buffer rewritten between two calls queued before the chain runs (same pointer,
 *   another text) runs each call's own kernel, in order, round after round: the site compares a
 *   buffer's text when the call is queued, while the buffer holds it;
 * - a call site not seen before is checked when queued (its errors come at the call), once:
 *   its next calls, queued before the first has run, find it checked; a kernel in a buffer,
 *   which may change, is checked at each call until its site has a loop;
 * - freeing a temporary dat forgets the sites that pass it, not the others: a loop on other dats
 *   is still found at its site, unchecked. */
#include "lazy_test.h"
#include "runtime/op2_impl.h"

enum { N = 50, CALLS = 20, ROUNDS = 4 };

static const char add1_src[] = "static void add1(double *a) { a[0] += 1.0; }";
static const char add2_src[] = "static void add2(double *a) { a[0] += 2.0; }";

static void add1(op_set s, op_dat a) {
  op_par_loop(add1_src, "add1", s, op_arg_dat(a, -1, OP_ID, 1, "double", OP_RW));
}

static double value(op_dat d) {
  double v[N];
  op_fetch_data(d, v); /* runs the chain */
  return v[N - 1];
}

int main(void) {
  lazy_init("OP2_LAZY=on", "OP2_FUSE=off", "OP2_LAZY_CHAIN=1000", NULL);
  op2_loop_sites *sites = &op2_ctx()->loop_sites;
  op_set s = op_decl_set(N, "cells");
  op_dat a = op_decl_dat(s, 1, "double", NULL, "a");

  /* the first call builds the loop at its replay, which remembers the program's site */
  add1(s, a);
  CHECK(value(a) == 1.0);
  unsigned long hits = sites->hits, misses = sites->misses, compares = sites->compares;
  for (int i = 0; i < CALLS; i++) add1(s, a);
  CHECK(lazy_peek(a, N - 1) == 1.0);       /* queued, not run */
  CHECK_EQ_INT(sites->hits - hits, CALLS); /* each found at its site when queued */
  CHECK_EQ_INT(sites->misses - misses, 0);
  CHECK(value(a) == 1.0 + CALLS);
  CHECK_EQ_INT(sites->hits - hits, CALLS); /* the replays looked nothing up */
  CHECK_EQ_INT(sites->misses - misses, 0);
  CHECK_EQ_INT(sites->compares - compares, 0); /* and compared no text */

  /* a new site, called CALLS times before the chain first runs: checked once, when its first
   * call is queued; once its loop exists, never again */
  unsigned long checks = sites->checks;
  double before = value(a);
  for (int i = 0; i < CALLS; i++)
    op_par_loop(add2_src, "add2", s, op_arg_dat(a, -1, OP_ID, 1, "double", OP_RW));
  CHECK(lazy_peek(a, N - 1) == before); /* queued */
  CHECK_EQ_INT(sites->checks - checks, 1);
  CHECK(value(a) == before + 2.0 * CALLS);
  for (int i = 0; i < CALLS; i++)
    op_par_loop(add2_src, "add2", s, op_arg_dat(a, -1, OP_ID, 1, "double", OP_RW));
  CHECK(value(a) == before + 4.0 * CALLS);
  CHECK_EQ_INT(sites->checks - checks, 1);
  /* a buffer's text may change between calls: each call checked until the site has a loop */
  char buf[64];
  snprintf(buf, sizeof buf, "%s", add2_src);
  checks = sites->checks;
  for (int i = 0; i < 3; i++)
    op_par_loop(buf, "add2", s, op_arg_dat(a, -1, OP_ID, 1, "double", OP_RW));
  CHECK_EQ_INT(sites->checks - checks, 3);
  CHECK(value(a) == before + 4.0 * CALLS + 6.0);

  /* a temporary used and freed: add1's site stays; the temporary's own loop is made again */
  op_dat t = op_decl_dat_temp(s, 1, "double", NULL, "t");
  for (int round = 0; round < 2; round++) {
    op_par_loop(add2_src, "add2", s, op_arg_dat(t, -1, OP_ID, 1, "double", OP_RW));
    CHECK(value(t) == 2.0 * (round + 1));
  }
  add1(s, a);
  CHECK(value(a) == before + 4.0 * CALLS + 7.0);
  CHECK_EQ_INT(op_free_dat_temp(t), 0);
  hits = sites->hits, checks = sites->checks;
  add1(s, a);
  CHECK_EQ_INT(sites->hits - hits, 1);
  CHECK_EQ_INT(sites->checks - checks, 0);
  CHECK(value(a) == before + 4.0 * CALLS + 8.0);

  /* one buffer, two texts, both queued before the chain runs: x*2 then +3, never one text
   * twice. Round by round the site's loop (the last remembered) is the first text's or the
   * second's, so one round queues the first text found at the site and then the second, which
   * the site must not take for the first (its text compared) */
  char src[96];
  static const char *texts[2] = {"static void step(double *a) { a[0] = a[0] * 2.0; }",
                                 "static void step(double *a) { a[0] = a[0] + 3.0; }"};
  double want = value(a);
  for (int round = 0; round < ROUNDS; round++) {
    for (int t = 0; t < 2; t++) {
      snprintf(src, sizeof src, "%s", texts[t]);
      op_par_loop(src, "step", s, op_arg_dat(a, -1, OP_ID, 1, "double", OP_RW));
    }
    CHECK(lazy_peek(a, N - 1) == want); /* both queued */
    want = want * 2.0 + 3.0;
    CHECK(value(a) == want);
  }
  /* and the other order: +3 then x2 */
  for (int t = 1; t >= 0; t--) {
    snprintf(src, sizeof src, "%s", texts[t]);
    op_par_loop(src, "step", s, op_arg_dat(a, -1, OP_ID, 1, "double", OP_RW));
  }
  want = (want + 3.0) * 2.0;
  CHECK(value(a) == want);
  CHECK(sites->compares > compares); /* the counter counts: a buffer's text is compared */
  op_exit();
  puts("t274-lazy-call-site: ok");
  return 0;
}
