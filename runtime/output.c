/* Getting data out: op_fetch_data*, op_print_dat_to_txtfile, op_diagnostic_output. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "op2_impl.h"

void op_fetch_data_idx(op_dat dat, void *out, int low, int high) {
  if (op2_require_init("op_fetch_data") != OP2_OK) return;
  if (!dat || !out) {
    op2_error(OP2_ERR_ARG, "op_fetch_data: %s is NULL", dat ? "output buffer" : "dat");
    return;
  }
  if (low > high + 1) {
    op2_error(OP2_ERR_ARG, "op_fetch_data_idx '%s': low %d is greater than high %d", dat->name,
              low, high);
    return;
  }
  if (low < 0 || high >= dat->set->size) {
    op2_error(OP2_ERR_ARG, "op_fetch_data_idx '%s': range [%d, %d] is outside [0, %d]",
              dat->name, low, high, dat->set->size - 1);
    return;
  }
  const int *rank = dat->set->rank;
  if (!rank) {
    memcpy(out, dat->data + (size_t)low * dat->elem_bytes,
           (size_t)(high - low + 1) * dat->elem_bytes);
    return;
  }
  for (int i = low; i <= high; i++) /* the user's element i lives at rank[i] */
    memcpy((char *)out + (size_t)(i - low) * dat->elem_bytes,
           dat->data + (size_t)rank[i] * dat->elem_bytes, dat->elem_bytes);
}

void op_fetch_data(op_dat dat, void *out) {
  if (dat && dat->set->size == 0) return;
  op_fetch_data_idx(dat, out, 0, dat ? dat->set->size - 1 : 0);
}

static void print_value(FILE *f, op2_type t, const char *p) {
  switch (t) {
    case OP2_TYPE_DOUBLE: fprintf(f, "%.17g", *(const double *)p); break;
    case OP2_TYPE_FLOAT: fprintf(f, "%.9g", (double)*(const float *)p); break;
    case OP2_TYPE_INT: fprintf(f, "%d", *(const int *)p); break;
    default: fprintf(f, "%lld", *(const long long *)p); break;
  }
}

void op_print_dat_to_txtfile(op_dat dat, const char *file_name) {
  if (op2_require_init("op_print_dat_to_txtfile") != OP2_OK) return;
  if (!dat || !file_name) {
    op2_error(OP2_ERR_ARG, "op_print_dat_to_txtfile: %s is NULL", dat ? "file name" : "dat");
    return;
  }
  /* Written beside the target and renamed, so a failure never leaves a half-written file. */
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp%d", file_name, (int)getpid());
  FILE *f = fopen(tmp, "w");
  if (!f) {
    op2_error(OP2_ERR_IO, "op_print_dat_to_txtfile '%s': cannot write %s: %s", dat->name,
              file_name, strerror(errno));
    return;
  }
  size_t tsize = op2_type_size(dat->type);
  fprintf(f, "%d %d\n", dat->set->size, dat->dim);
  for (int e = 0; e < dat->set->size; e++) {
    for (int k = 0; k < dat->dim; k++) {
      if (k) fputc(' ', f);
      size_t at = dat->set->rank ? (size_t)dat->set->rank[e] : (size_t)e;
      print_value(f, dat->type, dat->data + at * dat->elem_bytes + (size_t)k * tsize);
    }
    fputc('\n', f);
  }
  int failed = ferror(f);
  failed |= fclose(f) != 0;
  if (failed || rename(tmp, file_name) != 0) {
    unlink(tmp);
    op2_error(OP2_ERR_IO, "op_print_dat_to_txtfile '%s': writing %s failed: %s", dat->name,
              file_name, strerror(errno));
  }
}

void op_diagnostic_output(void) {
  op2_context *ctx = op2_ctx();
  if (op2_require_init("op_diagnostic_output") != OP2_OK) return;
  printf("\n  OP2 diagnostic output (backend %s)\n  sets:\n", ctx->backend->name);
  for (int i = 0; i < ctx->sets.count; i++) {
    op_set s = ctx->sets.items[i];
    printf("    %-20s size %d\n", s->name, s->size);
  }
  printf("  maps:\n");
  for (int i = 0; i < ctx->maps.count; i++) {
    op_map m = ctx->maps.items[i];
    printf("    %-20s %s -> %s, dim %d\n", m->name, m->from->name, m->to->name, m->dim);
  }
  printf("  dats:\n");
  for (int i = 0; i < ctx->dats.count; i++) {
    op_dat d = ctx->dats.items[i];
    printf("    %-20s on %s, %s[%d]\n", d->name, d->set->name, op2_type_name(d->type), d->dim);
  }
  printf("  constants:\n");
  for (int i = 0; i < ctx->consts.count; i++) {
    op2_const *c = ctx->consts.items[i];
    printf("    %-20s %s[%d]\n", c->name, op2_type_name(c->type), c->dim);
  }
}
