/* SPDX-License-Identifier: BSD-3-Clause */
/* An error in a queued loop (here a kernel that does not compile: found when it is built) is
 * reported when the chain runs, naming the loop, which op_par_loop call it was, where the
 * program made it and what ran the chain; the calls queued after it still run, as they would
 * have after the failed call returned. Arguments that cannot even be queued (a NULL argument
 * array), or that its checks refuse without data (a type that is not its dat's), are refused
 * at the call itself, after the calls queued before it have run, as eagerly. */
#include "lazy_test.h"

enum { N = 100 };

static const char add1_src[] = "static void add1(double *a) { a[0] += 1.0; }";
static const char bad_src[] = "static void bad(double *a) { a[0] = undeclared_name; }";

int main(void) {
  lazy_init("OP2_LAZY=on", "OP2_FUSE=off", NULL);
  test_catch_errors();
  op_set s = op_decl_set(N, "cells");
  op_dat a = op_decl_dat(s, 1, "double", NULL, "a");
  double got[N];

  test_errors_expected = 1; /* counted, not fatal: each must come where it is checked below */
  op_par_loop(add1_src, "add1", s, op_arg_dat(a, -1, OP_ID, 1, "double", OP_RW));
  op_par_loop(bad_src, "bad", s, op_arg_dat(a, -1, OP_ID, 1, "double", OP_WRITE)); /* call 2 */
  op_par_loop(add1_src, "add1", s, op_arg_dat(a, -1, OP_ID, 1, "double", OP_RW));
  CHECK_EQ_INT(test_errors_seen, 0); /* queued: nothing checked yet */
  op_fetch_data(a, got);
  CHECK_EQ_INT(test_errors_seen, 1);
  const char *msg = op_last_error();
  CHECK_CONTAINS(msg, "op_par_loop 'bad': the kernel does not compile");
  CHECK_CONTAINS(msg, "(queued: op_par_loop call 2 from ");
  CHECK_CONTAINS(msg, "t261-lazy-error+0x"); /* the program, at the call's address */
  CHECK_CONTAINS(msg, "the chain ran at op_fetch_data)");
  for (int i = 0; i < N; i++) CHECK(got[i] == 2.0); /* both add1 calls ran */

  /* a call that cannot be queued is checked at once, after the queued ones have run */
  op_par_loop(add1_src, "add1", s, op_arg_dat(a, -1, OP_ID, 1, "double", OP_RW));
  op_par_loop_args(add1_src, "add1", s, 1, NULL);
  CHECK_EQ_INT(test_errors_seen, 2);
  CHECK_CONTAINS(op_last_error(), "op_par_loop 'add1': no arguments (the argument array is NULL)");
  CHECK(strstr(op_last_error(), "queued") == NULL);
  CHECK(lazy_peek(a, 0) == 3.0);

  /* a bad argument, found without data: refused at the call, after the queued calls */
  op_par_loop(add1_src, "add1", s, op_arg_dat(a, -1, OP_ID, 1, "double", OP_RW));
  op_par_loop(add1_src, "add1", s, op_arg_dat(a, -1, OP_ID, 1, "float", OP_RW));
  CHECK_EQ_INT(test_errors_seen, 3);
  CHECK_CONTAINS(op_last_error(), "op_par_loop 'add1', argument 0: type 'float' does not match");
  CHECK(strstr(op_last_error(), "queued") == NULL);
  CHECK(lazy_peek(a, 0) == 4.0);
  test_errors_expected = 0;
  op_exit();
  return 0;
}
