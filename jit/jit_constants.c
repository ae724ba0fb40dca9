/* Live constants: a kernel that reads a constant at run time declares a pointer per constant
 * (codegen.c); before the first call of each code object (TinyCC's, then the optimised one) the
 * pointer is set to the constant's own data, which op_decl_const updates in place. Set once per
 * code object, before any thread runs it, so calls pay one load and nothing is written during
 * a call. */
#include <dlfcn.h>
#include <libtcc.h>
#include <stdio.h>

#include "jit.h"

void op2_jit_bind_constants(op2_kernel *k, op2_const *const *consts, int nconsts) {
  for (int i = 0; i < nconsts; i++) {
    const op2_const *c = consts[i];
    if (!c->live) continue;
    char symbol[300];
    snprintf(symbol, sizeof symbol, "%s%s", OP2_LIVE_CONST_PREFIX, c->name);
    void *slot = k->dl_handle   ? dlsym(k->dl_handle, symbol)
                 : k->tcc_state ? tcc_get_symbol(k->tcc_state, symbol)
                                : NULL;
    if (slot) *(const void **)slot = c->data;
  }
  k->constants_bound = k->fn;
}
