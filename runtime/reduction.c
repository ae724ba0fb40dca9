/* SPDX-License-Identifier: BSD-3-Clause */
/* Global reductions. Partials (per thread, per GPU block, per rank) start from zero for INC and
 * from the caller's value for MIN/MAX, and are folded in a fixed order so runs repeat. The
 * threaded backends' per-thread partials live here too. */
#include <stdlib.h>
#include <string.h>

#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/alloc.h"
#include "runtime/loop.h"
#include "runtime/backend.h"

void op2_reduction_start(const op2_arg_desc *d, void *partial, const void *caller) {
  size_t bytes = (size_t)d->dim * op2_type_size(d->type);
  if (d->acc == OP_INC)
    memset(partial, 0, bytes);
  else
    memcpy(partial, caller, bytes);
}

#define FOLD(T)                                                \
  do {                                                         \
    T *o = (T *)out;                                           \
    const T *p = (const T *)partial;                           \
    for (int k = 0; k < d->dim; k++)                           \
      o[k] = d->acc == OP_INC   ? o[k] + p[k]                  \
             : d->acc == OP_MIN ? (p[k] < o[k] ? p[k] : o[k])  \
                                : (p[k] > o[k] ? p[k] : o[k]); \
  } while (0)

void op2_reduction_fold(const op2_arg_desc *d, void *out, const void *partial) {
  switch (d->type) {
    case OP2_TYPE_DOUBLE:
      FOLD(double);
      break;
    case OP2_TYPE_FLOAT:
      FOLD(float);
      break;
    case OP2_TYPE_INT:
      FOLD(int);
      break;
    default:
      FOLD(long long);
      break;
  }
}

static size_t padded(size_t bytes) {
  return (bytes + 63) / 64 * 64;
}

int op2_reduction_begin(op2_context *ctx, const op2_exec *exec, int nthreads,
                        void ***thread_arg_ptrs) {
  const op2_loop *loop = exec->loop;
  int nargs = loop->nargs;
  size_t need = padded((size_t)nthreads * (size_t)nargs * sizeof(void *));
  for (int i = 0; i < nargs; i++)
    if (op2_is_reduction(&loop->desc[i]))
      need +=
          (size_t)nthreads * padded((size_t)loop->desc[i].dim * op2_type_size(loop->desc[i].type));
  if (need > ctx->reduction_scratch_bytes) {
    free(ctx->reduction_scratch);
    ctx->reduction_scratch = op2_aligned_alloc(need);
    ctx->reduction_scratch_bytes = ctx->reduction_scratch ? need : 0;
    if (!ctx->reduction_scratch)
      return op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory for reductions", loop->name);
  }
  void **table = ctx->reduction_scratch;
  char *partial =
      (char *)ctx->reduction_scratch + padded((size_t)nthreads * (size_t)nargs * sizeof(void *));
  for (int t = 0; t < nthreads; t++)
    memcpy(table + (size_t)t * nargs, exec->arg_ptrs, (size_t)nargs * sizeof(void *));
  for (int i = 0; i < nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (!op2_is_reduction(d)) continue;
    size_t bytes = (size_t)d->dim * op2_type_size(d->type);
    for (int t = 0; t < nthreads; t++) {
      op2_reduction_start(d, partial, exec->arg_ptrs[i]);
      table[(size_t)t * nargs + i] = partial;
      partial += padded(bytes);
    }
  }
  *thread_arg_ptrs = table;
  return OP2_OK;
}

/* Whether two values of a reduction are the same, bit for bit. */
static bool same_value(const op2_arg_desc *d, const void *a, const void *b) {
  return memcmp(a, b, (size_t)d->dim * op2_type_size(d->type)) == 0;
}

void op2_reduction_fold_parts(const op2_loop *loop, void *const *out, void *const *parts,
                              int nparts) {
  int nargs = loop->nargs;
  for (int i = 0; i < nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (!op2_is_reduction(d) || op2_info_ref(d) >= 0) continue;
    for (int p = 0; p < nparts; p++) op2_reduction_fold(d, out[i], parts[(size_t)p * nargs + i]);
  }
  /* op_arg_info: the value of the first part whose reference partial is the result (a part that
   * never improved on the start value holds the start value of both) */
  for (int i = 0; i < nargs; i++) {
    int r = op2_info_ref(&loop->desc[i]);
    if (r < 0) continue;
    for (int p = 0; p < nparts; p++)
      if (same_value(&loop->desc[r], parts[(size_t)p * nargs + r], out[r])) {
        memcpy(out[i], parts[(size_t)p * nargs + i],
               (size_t)loop->desc[i].dim * op2_type_size(loop->desc[i].type));
        break;
      }
  }
}

void op2_reduction_end(op2_context *ctx, const op2_exec *exec, int nthreads,
                       void **thread_arg_ptrs) {
  (void)ctx;
  op2_reduction_fold_parts(exec->loop, exec->arg_ptrs, thread_arg_ptrs, nthreads);
}
