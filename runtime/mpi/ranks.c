/* SPDX-License-Identifier: BSD-3-Clause */
/* The rank agreement of a loop call: every rank must run the same loop. Ranks that describe a
 * loop differently (a rank-dependent constant is baked into the generated source; a different
 * dat or map means different messages) all get an error naming the loop before anything runs,
 * instead of running different code or waiting for messages that never come. */
#include <stdio.h>

#include "runtime/mpi/op2_mpi.h"
#include "runtime/context.h"
#include "runtime/loop.h"

int op2_mpi_agree_loop(op2_context *ctx, int status, const op2_loop *loop, const char *name) {
  static const uint64_t none[2] = {0, 0};
  return op2_mpi_agree_on(ctx, status, status == OP2_OK && loop ? loop->rank_key : none,
                          "op_par_loop", name);
}
