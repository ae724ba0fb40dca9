/* SPDX-License-Identifier: BSD-3-Clause */
/* The first tier of a Fortran kernel: no compiler runs. The kernel is the program's own compiled
 * procedure; this precompiled element loop, generic over the loop (its closure), makes each
 * element's references (Fortran passes every argument by reference) and calls the procedure
 * through its address, inside the runtime's plans: a backend calls it on a range as it calls a
 * generated kernel (op2_kernel_call_range), with per-thread copies of the reduction arguments
 * in `args` (reduction.c). A vector argument (OP2's idx -k) is gathered into a dim x k array,
 * column j the element through map column j, and written back after the call unless it is
 * read only (added back for OP_INC, so two columns reaching one element both count). */
#include <string.h>

#include "runtime/fortran/fortran.h"

/* Adds the gathered values back into the dat's row (OP_INC). */
static void add_row(op2_type t, void *row, const void *add, int bytes) {
  switch (t) {
    case OP2_TYPE_DOUBLE:
      for (int k = 0; k < bytes / 8; k++) ((double *)row)[k] += ((const double *)add)[k];
      break;
    case OP2_TYPE_FLOAT:
      for (int k = 0; k < bytes / 4; k++) ((float *)row)[k] += ((const float *)add)[k];
      break;
    case OP2_TYPE_INT:
      for (int k = 0; k < bytes / 4; k++) ((int *)row)[k] += ((const int *)add)[k];
      break;
    default:
      for (int k = 0; k < bytes / 8; k++) ((long long *)row)[k] += ((const long long *)add)[k];
      break;
  }
}

void op2_fortran_first_tier(const void *closure, void *const *args, const int *const *maps,
                            int begin, int end) {
  const op2_fortran_closure *c = closure;
  const int nargs = c->nargs;
  void *p[OP2_FORTRAN_MAX_ARGS];
  int index[OP2_FORTRAN_MAX_ARGS]; /* op_arg_idx values */
  /* the gathered rows of one element (the closure's maker refuses loops needing more) */
  _Alignas(64) char rows[OP2_FORTRAN_GATHER_BYTES];
  for (int n = begin; n < end; n++) {
    char *gather = rows;
    for (int i = 0; i < nargs; i++) {
      const op2_fortran_arg *a = &c->args[i];
      if (a->off) {
        p[i] = NULL;
        continue;
      }
      switch (a->kind) {
        case OP2_ARG_GBL:
          p[i] = args[i];
          break;
        case OP2_ARG_IDX: {
          const int *table = args[i];
          int e = a->arity ? maps[i][(size_t)n * a->arity + a->idx] : n;
          /* OP2: the element's own index counts from 1, a map's value from the base index */
          index[i] = (table ? table[e] : e) + (a->arity ? c->map_base : 1);
          p[i] = &index[i];
          break;
        }
        default: {
          char *base = args[i];
          if (!a->arity) {
            p[i] = base + (size_t)n * a->row_bytes;
          } else if (!a->vec) {
            p[i] = base + (size_t)maps[i][(size_t)n * a->arity + a->idx] * a->row_bytes;
          } else {
            const int *m = maps[i] + (size_t)n * a->arity;
            for (int k = 0; k < a->vec; k++) {
              char *to = gather + (size_t)k * a->row_bytes;
              if (a->acc == OP_INC)
                memset(to, 0, (size_t)a->row_bytes);
              else
                memcpy(to, base + (size_t)m[k] * a->row_bytes, (size_t)a->row_bytes);
            }
            p[i] = gather;
            gather += (size_t)a->vec * a->row_bytes;
          }
        }
      }
    }
    op2_fortran_call(c->procedure, nargs, p);
    if (!c->vec_bytes) continue;
    for (int i = 0; i < nargs; i++) { /* the vector arguments written: back into their dats */
      const op2_fortran_arg *a = &c->args[i];
      if (a->kind != OP2_ARG_DAT || a->off || !a->vec || a->acc == OP_READ) continue;
      const int *m = maps[i] + (size_t)n * a->arity;
      const char *from = p[i];
      for (int k = 0; k < a->vec; k++) {
        char *row = (char *)args[i] + (size_t)m[k] * a->row_bytes;
        if (a->acc == OP_INC)
          add_row(a->type, row, from + (size_t)k * a->row_bytes, a->row_bytes);
        else
          memcpy(row, from + (size_t)k * a->row_bytes, (size_t)a->row_bytes);
      }
    }
  }
}
