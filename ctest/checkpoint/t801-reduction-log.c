/* SPDX-License-Identifier: BSD-3-Clause */
/* The loop log a checkpoint carries (runtime/checkpoint_log.c): reductions of every kind (INC,
 * MIN, MAX) and type (double, float, int, long long) are logged, survive serialising and come
 * back in order; read-only globals are not logged; a call that differs in name or arguments, a
 * call beyond the log and a damaged log are errors. */
#include "test.h"

#include "runtime/checkpoint.h"

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  test_catch_errors();
  op_set cells = op_decl_set(4, "cells");
  op_dat q = op_decl_dat(cells, 1, "double", NULL, "q");

  double dsum[2] = {1.5, -2.25}, dmin = 0.125, dmax = 1e300, dread = 7.0;
  float fsum = 3.5f, fmin = -1.0f, fmax = 2.5f;
  int isum[3] = {1, -2, 3}, imin = -7, imax = 42;
  long long lsum = 1LL << 40;
  op_arg call_a[] = {
      op_arg_dat(q, -1, OP_ID, 1, "double", OP_RW), op_arg_gbl(dsum, 2, "double", OP_INC),
      op_arg_gbl(&dmin, 1, "double", OP_MIN),       op_arg_gbl(&dread, 1, "double", OP_READ),
      op_arg_gbl(&dmax, 1, "double", OP_MAX),       op_arg_gbl(&fsum, 1, "float", OP_INC),
      op_arg_gbl(&fmin, 1, "float", OP_MIN),        op_arg_gbl(&fmax, 1, "float", OP_MAX)};
  op_arg call_b[] = {op_arg_gbl(isum, 3, "int", OP_INC), op_arg_gbl(&imin, 1, "int", OP_MIN),
                     op_arg_gbl(&imax, 1, "int", OP_MAX),
                     op_arg_gbl(&lsum, 1, "long long", OP_INC)};
  op_arg call_c[] = {op_arg_dat(q, -1, OP_ID, 1, "double", OP_WRITE)}; /* returns nothing */
  uint64_t ha = op2_ckpt_loop_hash("a", cells, 8, call_a);
  uint64_t hb = op2_ckpt_loop_hash("b", cells, 4, call_b);
  uint64_t hc = op2_ckpt_loop_hash("c", cells, 1, call_c);
  CHECK(ha != hb && ha != hc && hb != hc);
  /* The hash sees the access mode and the dat, not only the name. */
  op_arg call_c_read[] = {op_arg_dat(q, -1, OP_ID, 1, "double", OP_READ)};
  CHECK(op2_ckpt_loop_hash("c", cells, 1, call_c_read) != hc);

  op2_ckpt_log log = {0};
  CHECK(op2_ckpt_log_append(&log, "a", ha, 8, call_a) == 0);
  CHECK(op2_ckpt_log_append(&log, "b", hb, 4, call_b) == 0);
  CHECK(op2_ckpt_log_append(&log, "c", hc, 1, call_c) == 0);
  dsum[0] = 100; /* the second call of "a" returns other values */
  dmin = -0.5;
  fmax = 9.75f;
  CHECK(op2_ckpt_log_append(&log, "a", ha, 8, call_a) == 0);
  CHECK_EQ_INT(log.count, 4);
  CHECK_EQ_INT(log.nnames, 3);
  /* 2+1+1 doubles and 3 floats, then 3+1+1 ints and a long long, nothing, and "a" again. */
  size_t a_bytes = 4 * sizeof(double) + 3 * sizeof(float);
  CHECK_EQ_INT(log.red_len, 2 * a_bytes + 5 * sizeof(int) + sizeof(long long));

  op2_ckpt_meta meta = {.ranks = 2, .position = 4, .number = 3}, back;
  char *blob;
  size_t len;
  CHECK(op2_ckpt_log_serialise(&log, &meta, &blob, &len) == 0);
  op2_ckpt_log parsed;
  CHECK(op2_ckpt_log_parse(blob, len, "f.h5", &parsed, &back) == 0);
  CHECK_EQ_INT(back.ranks, 2);
  CHECK_EQ_INT(back.position, 4);
  CHECK_EQ_INT(back.number, 3);
  CHECK(back.mesh && !strcmp(back.mesh, "")); /* none given: an empty summary */
  free(back.mesh);
  CHECK_EQ_INT(parsed.count, 4);

  /* Replay into cleared variables: every value comes back, read-only globals stay untouched. */
  memset(dsum, 0, sizeof dsum), dmin = dmax = 0, dread = -1;
  fsum = fmin = fmax = 0;
  memset(isum, 0, sizeof isum), imin = imax = 0, lsum = 0;
  CHECK(op2_ckpt_log_replay(&parsed, 0, "f.h5", "a", ha, 8, call_a) == 0);
  CHECK(dsum[0] == 1.5 && dsum[1] == -2.25 && dmin == 0.125 && dmax == 1e300 && dread == -1);
  CHECK(fsum == 3.5f && fmin == -1.0f && fmax == 2.5f);
  CHECK(op2_ckpt_log_replay(&parsed, 1, "f.h5", "b", hb, 4, call_b) == 0);
  CHECK(isum[0] == 1 && isum[1] == -2 && isum[2] == 3 && imin == -7 && imax == 42);
  CHECK(lsum == 1LL << 40);
  CHECK(op2_ckpt_log_replay(&parsed, 2, "f.h5", "c", hc, 1, call_c) == 0);
  CHECK(op2_ckpt_log_replay(&parsed, 3, "f.h5", "a", ha, 8, call_a) == 0);
  CHECK(dsum[0] == 100 && dmin == -0.5 && fmax == 9.75f);

  /* Another program: other name, other arguments, more calls than logged. */
  EXPECT_ERROR(op2_ckpt_log_replay(&parsed, 1, "f.h5", "a", ha, 8, call_a),
               "loop call 1 is 'a' in this run but was 'b'");
  EXPECT_ERROR(op2_ckpt_log_replay(&parsed, 2, "f.h5", "c", hc + 1, 1, call_c),
               "('c') has other arguments");
  EXPECT_ERROR(op2_ckpt_log_replay(&parsed, 4, "f.h5", "a", ha, 8, call_a), "f.h5");
  /* A damaged log: cut short, or a length field changed. */
  op2_ckpt_log broken;
  EXPECT_ERROR(op2_ckpt_log_parse(blob, len - 1, "f.h5", &broken, &back), "f.h5");
  EXPECT_ERROR(op2_ckpt_log_parse(blob, 12, "f.h5", &broken, &back), "malformed");
  /* the byte count of the reduction values, before them and the (empty) mesh summary's count */
  blob[len - 8 - log.red_len - 8] ^= 1;
  EXPECT_ERROR(op2_ckpt_log_parse(blob, len, "f.h5", &broken, &back), "malformed");

  free(blob);
  op2_ckpt_log_free(&log);
  op2_ckpt_log_free(&parsed);
  op_exit();
  return 0;
}
