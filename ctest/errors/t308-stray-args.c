/* SPDX-License-Identifier: BSD-3-Clause */
/* Loop arguments that are not op_arg values at all: a NULL argument array with a positive count,
 * and op_arg structs filled with garbage bytes (pointers that point nowhere). These must be
 * refused with a message naming the loop and the argument, never read as dats, maps or strings;
 * afterwards the library still runs a correct loop. */
#include "errors_util.h"

static const char *add_src = "static void add_one(double *e) { e[0] += 1.0; }\n";
static const char *two_src =
    "static void two(double *e, const void *a) { (void)a; e[0] = 2.0 * e[0]; }\n";

int main(void) {
  test_catch_errors();
  op_init(0, NULL, 0);
  op_set edges = op_decl_set(3, "edges");
  const double e_v[] = {10, 20, 30};
  op_dat e = op_decl_dat(edges, 1, "double", e_v, "e");

  EXPECT_ERROR(op_par_loop_args(add_src, "add_one", edges, 1, NULL),
               "op_par_loop 'add_one': no arguments (the argument array is NULL)");

  op_arg garbage[2];
  memset(garbage, 0xA5, sizeof garbage);
  EXPECT_ERROR(op_par_loop_args(add_src, "add_one", edges, 1, garbage),
               "op_par_loop 'add_one', argument 0: not built by op_arg_dat, op_arg_gbl or "
               "op_arg_idx");

  /* Random bytes after a good argument: the message names the second one. */
  unsigned rng = 308;
  for (int round = 0; round < 20; round++) {
    op_arg args[2] = {op_arg_dat(e, -1, OP_ID, 1, "double", OP_RW)};
    unsigned char *bytes = (unsigned char *)&args[1];
    for (size_t k = 0; k < sizeof args[1]; k++) bytes[k] = (unsigned char)test_rand(&rng);
    EXPECT_ERROR(op_par_loop_args(two_src, "two", edges, 2, args),
                 "op_par_loop 'two', argument 1: not built by op_arg_dat");
  }

  /* A copy of a real op_arg is still one. */
  op_arg good = op_arg_dat(e, -1, OP_ID, 1, "double", OP_RW), copy;
  memcpy(&copy, &good, sizeof copy);
  op_par_loop_args(add_src, "add_one", edges, 1, &copy);
  double got[3];
  op_fetch_data(e, got);
  for (int i = 0; i < 3; i++) CHECK(got[i] == e_v[i] + 1.0);
  op_exit();
  return 0;
}
