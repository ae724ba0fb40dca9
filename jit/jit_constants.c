/* SPDX-License-Identifier: BSD-3-Clause */
/* Live constants: a C kernel that reads a constant at run time declares a pointer per constant
 * (codegen.c; a CUDA kernel declares a __constant__ variable, which runtime/cuda/core.c fills);
 * before the first call of each code object (TinyCC's, then the optimised one) the
 * pointer is set to the constant's own data, which op_decl_const updates in place. Set once per
 * code object, before any thread runs it, so calls pay one load and nothing is written during
 * a call. */
#include <stdio.h>

#include "jit_internal.h"

void *op2_jit_symbol(void *dl_handle, const char *symbol, size_t *bytes) {
  return op2_object_symbol(dl_handle, symbol, bytes);
}

bool op2_kernel_constants_bound(const op2_kernel *k) {
  return k->constants_bound == k->fn;
}

void op2_jit_bind_constants(op2_kernel *k, op2_const *const *consts, int nconsts) {
  for (int i = 0; i < nconsts; i++) {
    const op2_const *c = consts[i];
    if (!c->live) continue;
    char symbol[300];
    snprintf(symbol, sizeof symbol, "%s%s", OP2_LIVE_CONST_PREFIX, c->name);
    void *slot = op2_jit_symbol(k->dl_handle, symbol, NULL);
    if (slot) *(const void **)slot = c->data;
  }
  /* a Fortran kernel's optimised code: the program variables it reads by host association */
  for (int i = 0; i < k->nhost; i++) {
    char symbol[300];
    snprintf(symbol, sizeof symbol, "%s%s", OP2_HOST_VAR_PREFIX, k->host_names[i]);
    void *slot = op2_jit_symbol(k->dl_handle, symbol, NULL);
    if (slot) *(void **)slot = k->host_addrs[i];
  }
  k->constants_bound = k->fn;
}
