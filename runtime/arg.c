/* SPDX-License-Identifier: BSD-3-Clause */
/* Argument builders. They only record what the user said: op_par_loop validates every argument
 * against the loop before anything runs, so errors can name the loop and the argument number. */
#include "runtime/mesh.h"
#include "runtime/loop.h"

op_arg op_opt_arg_dat(int opt, op_dat dat, int idx, op_map map, int dim, const char *type,
                      op_access acc) {
  op_arg a = {.kind = OP2_ARG_DAT,
              .opt = opt != 0,
              .dat = dat,
              .map = map,
              .idx = idx,
              .dim = dim,
              .type = type,
              .acc = acc,
              .data = 0,
              .tag = OP2_ARG_TAG};
  return a;
}

op_arg op_arg_dat(op_dat dat, int idx, op_map map, int dim, const char *type, op_access acc) {
  return op_opt_arg_dat(1, dat, idx, map, dim, type, acc);
}

op_arg op_arg_gbl(void *data, int dim, const char *type, op_access acc) {
  op_arg a = {.kind = OP2_ARG_GBL,
              .opt = 1,
              .dat = 0,
              .map = 0,
              .idx = -1,
              .dim = dim,
              .type = type,
              .acc = acc,
              .data = data,
              .tag = OP2_ARG_TAG};
  return a;
}

/* op_arg_info: a global the kernel writes beside reduction argument `ref`, whose winning part's
 * value it takes (OP2_ACC_INFO, jit/desc.h); `ref` is checked with the loop (validate.c). */
op_arg op_arg_info(void *data, int dim, const char *type, int ref) {
  op_arg a = op_arg_gbl(data, dim, type, OP_READ);
  a.acc = (op_access)OP2_ACC_INFO;
  a.idx = ref;
  return a;
}

op_arg op_arg_idx(int idx, op_map map) {
  op_arg a = {.kind = OP2_ARG_IDX,
              .opt = 1,
              .dat = 0,
              .map = map,
              .idx = idx,
              .dim = 1,
              .type = "int",
              .acc = OP_READ,
              .data = 0,
              .tag = OP2_ARG_TAG};
  return a;
}
