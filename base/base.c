/* SPDX-License-Identifier: BSD-3-Clause */
/* Element types as the generated code spells them, properties of argument descriptors, the clock
 * jit/ and runtime/ time with, and the failure record (base.h). */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "base/base.h"

static const struct {
  const char *name;
  size_t size;
} types[OP2_TYPE_COUNT] = {
    [OP2_TYPE_DOUBLE] = {"double", sizeof(double)},
    [OP2_TYPE_FLOAT] = {"float", sizeof(float)},
    [OP2_TYPE_INT] = {"int", sizeof(int)},
    [OP2_TYPE_LONGLONG] = {"long long", sizeof(long long)},
};

size_t op2_type_size(op2_type t) {
  return types[t].size;
}

const char *op2_type_name(op2_type t) {
  return types[t].name;
}

int op2_is_reduction(const op2_arg_desc *d) {
  return d->kind == OP2_ARG_GBL &&
         (d->acc == OP_INC || d->acc == OP_MIN || d->acc == OP_MAX || (int)d->acc == OP2_ACC_INFO);
}

int op2_has_info(const op2_arg_desc *desc, int nargs, int i) {
  for (int j = 0; j < nargs; j++)
    if (desc[j].kind == OP2_ARG_GBL && (int)desc[j].acc == OP2_ACC_INFO && desc[j].info_of == i)
      return 1;
  return 0;
}

int op2_is_indirect_dat(const op2_arg_desc *d) {
  return d->kind == OP2_ARG_DAT && !d->opt_off && d->map_arity > 0;
}

void op2_arg_columns(const op2_arg_desc *d, int *lo, int *hi) {
  *lo = d->idx < 0 ? 0 : d->idx;
  *hi = d->idx < 0 ? -d->idx : d->idx + 1;
}

double op2_wall_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int op2_jit_error_vset(op2_jit_error *e, const char *file, int line, const char *func, int code,
                       const char *fmt, va_list ap) {
  if (!e) return code;
  e->code = code, e->file = file, e->line = line, e->func = func;
  vsnprintf(e->msg, sizeof e->msg, fmt, ap);
  return code;
}

int op2_jit_error_set_at(op2_jit_error *e, const char *file, int line, const char *func, int code,
                         const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  op2_jit_error_vset(e, file, line, func, code, fmt, ap);
  va_end(ap);
  return code;
}
