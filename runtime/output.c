/* SPDX-License-Identifier: BSD-3-Clause */
/* Getting data out: op_fetch_data*, op_print_dat_to_txtfile, op_diagnostic_output. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/mpi_state.h"
#include "runtime/mesh.h"
#include "runtime/output.h"
#include "runtime/backend.h"
#include "runtime/distributed.h"
#include "runtime/output_file.h"
#include "runtime/chain.h"

int op2_fetch_idx(op2_context *ctx, op_dat dat, void *out, int low, int high) {
  if (!dat || !out)
    return op2_error(OP2_ERR_ARG, "op_fetch_data: %s is NULL", dat ? "output buffer" : "dat");
  /* A whole mesh declared on every rank counts once only after this (collective). */
  if (ctx->mpi.size > 1) OP2_CALL(op2_mpi_prepare(ctx));
  if (low > high + 1)
    return op2_error(OP2_ERR_ARG, "op_fetch_data_idx '%s': low %d is greater than high %d",
                     dat->name, low, high);
  OP2_CALL(op2_dat_sync_host(ctx, dat));
  if (low < 0 || high >= dat->set->global_size)
    return op2_error(OP2_ERR_ARG, "op_fetch_data_idx '%s': range [%d, %d] is outside [0, %ld]",
                     dat->name, low, high, dat->set->global_size - 1);
  if (ctx->mpi.size > 1) /* the range in the user's numbering, gathered on every rank */
    return op2_mpi_fetch(ctx, dat, out, low, (long)high - low + 1, OP2_FETCH_ALL);
  const int *rank = dat->set->rank;
  if (!rank) {
    memcpy(out, dat->data + (size_t)low * dat->elem_bytes,
           (size_t)(high - low + 1) * dat->elem_bytes);
    return OP2_OK;
  }
  for (int i = low; i <= high; i++) /* the user's element i lives at rank[i] */
    memcpy((char *)out + (size_t)(i - low) * dat->elem_bytes,
           dat->data + (size_t)rank[i] * dat->elem_bytes, dat->elem_bytes);
  return OP2_OK;
}

/* Under MPI each public call below is one collective step (op2_mpi_step): a rank whose call
 * fails makes every rank's call fail, instead of leaving the others in a collective. */
void op_fetch_data_idx(op_dat dat, void *out, int low, int high) {
  if (op2_require_init("op_fetch_data") != OP2_OK) return;
  op2_context *ctx = op2_ctx();
  op2_chain_flush(ctx, "op_fetch_data_idx"); /* lazy execution: queued loops first */
  op2_mpi_step(ctx, "op_fetch_data_idx");
  op2_mpi_step_end(ctx, op2_fetch_idx(ctx, dat, out, low, high));
}

static int fetch(op2_context *ctx, op_dat dat, void *out) {
  if (!dat || !out)
    return op2_error(OP2_ERR_ARG, "op_fetch_data: %s is NULL", dat ? "output buffer" : "dat");
  OP2_CALL(op2_dat_sync_host(ctx, dat));
  if (ctx->mpi.size > 1) OP2_CALL(op2_mpi_prepare(ctx));
  if ((ctx->mpi_distributed && dat->set->halo) || (ctx->mpi_replicated && !ctx->mpi_distributed)) {
    op_set s = dat->set;
    return ctx->mpi_replicated ? op2_mpi_fetch(ctx, dat, out, 0, s->global_size, OP2_FETCH_ALL)
                               : op2_mpi_fetch(ctx, dat, out, s->decl_first - op2_gid_base(ctx),
                                               s->decl_count, OP2_FETCH_DECLARED);
  }
  if (dat->set->size == 0) return OP2_OK;
  if (ctx->mpi.size > 1) { /* not distributed: the rank still holds exactly what it declared */
    memcpy(out, dat->data, (size_t)dat->set->size * dat->elem_bytes);
    return OP2_OK;
  }
  return op2_fetch_idx(ctx, dat, out, 0, dat->set->size - 1);
}

/* What the rank declared comes back to it: its block, or under MPI with the whole mesh declared on
 * every rank, the whole dat. */
void op_fetch_data(op_dat dat, void *out) {
  op2_context *ctx = op2_ctx();
  if (op2_require_init("op_fetch_data") != OP2_OK) return;
  op2_chain_flush(ctx, "op_fetch_data"); /* lazy execution: queued loops first */
  op2_mpi_step(ctx, "op_fetch_data");
  op2_mpi_step_end(ctx, fetch(ctx, dat, out));
}

/* OP2's number format, so a file can be compared with OP2's by diff: every value preceded by a
 * space and signed; doubles with 16 significant digits (negative zero as +0), floats in %f. */
static void print_value(FILE *f, op2_type t, const char *p) {
  switch (t) {
    case OP2_TYPE_DOUBLE: {
      double v = *(const double *)p;
      fprintf(f, " %+2.15E", v == 0.0 ? 0.0 : v);
      break;
    }
    case OP2_TYPE_FLOAT:
      fprintf(f, " %+f", (double)*(const float *)p);
      break;
    case OP2_TYPE_INT:
      fprintf(f, " %+d", *(const int *)p);
      break;
    default:
      fprintf(f, " %+lld", *(const long long *)p);
      break;
  }
}

static int write_txt(op_dat dat, const char *file_name, const char *data, long n, const int *rank,
                     op2_jit_error *why);

static int print_dat(op2_context *ctx, op_dat dat, const char *file_name) {
  if (!dat || !file_name)
    return op2_error(OP2_ERR_ARG, "op_print_dat_to_txtfile: %s is NULL", dat ? "file name" : "dat");
  if (ctx->mpi.size > 1) OP2_CALL(op2_mpi_prepare(ctx));
  OP2_CALL(op2_dat_sync_host(ctx, dat));
  if (ctx->mpi.size > 1) { /* gathered everywhere, written by rank 0 */
    char *gathered = malloc((size_t)dat->set->global_size * dat->elem_bytes + 1);
    int rc = gathered
                 ? OP2_OK
                 : op2_error(OP2_ERR_MEM, "op_print_dat_to_txtfile '%s': out of memory", dat->name);
    rc = op2_mpi_agree(ctx, rc, "op_print_dat_to_txtfile");
    if (rc == OP2_OK)
      rc = op2_mpi_fetch(ctx, dat, gathered, 0, dat->set->global_size, OP2_FETCH_ALL);
    op2_jit_error why;
    if (rc == OP2_OK && ctx->mpi.rank == 0 &&
        write_txt(dat, file_name, gathered, dat->set->global_size, NULL, &why) != 0)
      rc = op2_error_record(&why, "op_print_dat_to_txtfile '%s': %s", dat->name, why.msg);
    free(gathered);
    return rc; /* the step's agreement tells every rank */
  }
  op2_jit_error why;
  if (write_txt(dat, file_name, dat->data, dat->set->size, dat->set->rank, &why) != 0)
    return op2_error_record(&why, "op_print_dat_to_txtfile '%s': %s", dat->name, why.msg);
  return OP2_OK;
}

void op_print_dat_to_txtfile(op_dat dat, const char *file_name) {
  if (op2_require_init("op_print_dat_to_txtfile") != OP2_OK) return;
  op2_context *ctx = op2_ctx();
  op2_chain_flush(ctx, "op_print_dat_to_txtfile"); /* lazy execution: queued loops first */
  op2_mpi_step(ctx, "op_print_dat_to_txtfile");
  op2_mpi_step_end(ctx, print_dat(ctx, dat, file_name));
}

/* Writes n elements as text, element e taken from row rank[e] (or e), through op2_output: a
 * regular file is never left half-written; a device, FIFO or link is written through. Returns 0
 * on success, else -1 with *why. */
static int write_txt(op_dat dat, const char *file_name, const char *data, long n, const int *rank,
                     op2_jit_error *why) {
  op2_output o;
  if (op2_output_open(&o, file_name, why) != 0) return -1;
  FILE *f = o.f;
  size_t tsize = op2_type_size(dat->type);
  fprintf(f, "%ld %d\n", n, dat->dim);
  for (long e = 0; e < n; e++) {
    for (int k = 0; k < dat->dim; k++) {
      size_t at = rank ? (size_t)rank[e] : (size_t)e;
      print_value(f, dat->type, data + at * dat->elem_bytes + (size_t)k * tsize);
    }
    fputc('\n', f);
  }
  return op2_output_close(&o, 0, why);
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
