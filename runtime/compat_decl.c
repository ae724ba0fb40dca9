/* SPDX-License-Identifier: BSD-3-Clause */
/* OP2's declaration forms that op2jit's own API spells differently: temporary dats, the
 * three-argument op_decl_const (the name comes from the variable's spelling) and optional
 * globals. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/mesh.h"
#include "runtime/loop.h"
#include "runtime/backend.h"
#include "runtime/distributed.h"
#include "runtime/chain.h"

/* OP2 passes a typed NULL as `data` only so that C++ can check the type: a temporary starts as
 * zeros. Its name is recorded so op_free_dat_temp can tell it from a dat the program owns. */
op_dat op_decl_dat_temp(op_set set, int dim, const char *type, const void *data, const char *name) {
  (void)data;
  return op2_decl_dat(set, dim, type, NULL, name, true);
}

int op_free_dat_temp(op_dat dat) {
  op2_context *ctx = op2_ctx();
  if (op2_require_init("op_free_dat_temp") != OP2_OK) return -1;
  op2_chain_flush(ctx, "op_free_dat_temp"); /* lazy execution: queued loops first */
  int at = -1;
  for (int i = 0; dat && i < ctx->dats.count; i++)
    if (ctx->dats.items[i] == dat) at = i;
  if (at < 0) return op2_error(OP2_ERR_ARG, "op_free_dat_temp: not a declared dat"), -1;
  if (!dat->temp)
    return op2_error(OP2_ERR_ARG, "op_free_dat_temp '%s': not declared by op_decl_dat_temp",
                     dat->name),
           -1;
  /* the chain runs (this is the program's error handler, called by a queued call that failed)
   * and a call still to run uses the dat: it would read freed memory */
  if (op2_chain_will_use(ctx, dat))
    return op2_error(OP2_ERR_STATE,
                     "op_free_dat_temp '%s': a queued op_par_loop call that has not run yet uses "
                     "it (called from the error handler while the queued calls run); free it "
                     "after the call that reported the error returns",
                     dat->name),
           -1;
  /* an accelerator's copy first (it waits for the device): a failure leaves the dat whole */
  if (ctx->backend->free_dat && ctx->backend->free_dat(ctx, dat) != OP2_OK) return -1;
  /* Later dats move down one place; their index (an MPI tag) stays the same on every rank,
   * since every rank frees the same dats. */
  for (int i = at + 1; i < ctx->dats.count; i++) {
    op_dat d = ctx->dats.items[i];
    d->index = i - 1;
    ctx->dats.items[i - 1] = d;
  }
  ctx->dats.count--;
  op2_loops_forget_dat(ctx, dat);
  op2_exchange_release(ctx, dat);
  free(dat->data);
  free(dat->decl_name);
  free(dat->type_name);
  free(dat);
  return 0;
}

/* `&gam`, `gam`, `(&qinf[0])`: the variable's name, as OP2's translator takes it from the
 * call. Returns 0 when the expression names no variable. */
static int name_from_spelling(const char *spelling, char *name, size_t len) {
  const char *p = spelling;
  while (*p && (isspace((unsigned char)*p) || *p == '&' || *p == '(')) p++;
  size_t n = 0;
  while (p[n] && (isalnum((unsigned char)p[n]) || p[n] == '_')) n++;
  if (n == 0 || n >= len || isdigit((unsigned char)p[0])) return 0;
  memcpy(name, p, n);
  name[n] = 0;
  for (p += n; *p; p++) /* what may follow: [0] and closing parentheses */
    if (!isspace((unsigned char)*p) && *p != ')' && *p != '[' && *p != ']' && *p != '0') return 0;
  return 1;
}

void op_decl_const_spelled(int dim, const char *type, const void *data, const char *spelling) {
  char name[256];
  if (!spelling || !name_from_spelling(spelling, name, sizeof name)) {
    if (op2_require_init("op_decl_const") != OP2_OK) return;
    op2_error(OP2_ERR_ARG,
              "op_decl_const: cannot take a constant name from '%s' (the third argument must "
              "be a variable or its address; or give the name as a fourth argument)",
              spelling ? spelling : "(null)");
    return;
  }
  (op_decl_const)(dim, type, data, name);
}

/* Switched off (opt 0), the kernel receives NULL and nothing is reduced: op2jit describes such
 * an argument as an unused read (runtime/loop.c). */
op_arg op_opt_arg_gbl(int opt, void *data, int dim, const char *type, op_access acc) {
  op_arg a = op_arg_gbl(data, dim, type, acc);
  a.opt = opt != 0;
  return a;
}

/* OP2 reserves dim * type_size bytes per element whatever `type` says, and its loops use the
 * declared type: MG-CFD declares an "int" scratch counter with sizeof(double), and OP2's C++
 * op_decl_dat_temp passes sizeof(T) of whatever pointer it was given. op2jit's dat holds `dim`
 * values of `type` per element, which is what loops, fetches and files use, so any size is
 * accepted; one below the type's, with which OP2 would give its loops too little room, is
 * worth a warning. */
op_dat op_decl_dat_temp_char(op_set set, int dim, const char *type, int type_size,
                             const char *name) {
  op2_type t;
  if (op2_require_init("op_decl_dat_temp") != OP2_OK) return NULL;
  const char *label = name ? name : "(unnamed)";
  if (type_size < 1) {
    op2_error(OP2_ERR_ARG, "op_decl_dat_temp '%s': element size %d must be at least 1", label,
              type_size);
    return NULL;
  }
  if (op2_type_parse(type, &t) == OP2_OK && (size_t)type_size < op2_type_size(t))
    op2_diag(1,
             "warning: op_decl_dat_temp '%s': element size %d is less than type '%s''s %zu "
             "bytes (OP2 would reserve too little); the dat holds %d values of '%s' per element",
             label, type_size, type, op2_type_size(t), dim, type);
  return op2_decl_dat(set, dim, type, NULL, name, true);
}
