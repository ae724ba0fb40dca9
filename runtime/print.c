/* SPDX-License-Identifier: BSD-3-Clause */
/* OP2's printing calls: op_printf (one voice under MPI) and op_print_dat_to_binfile. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/mpi_state.h"
#include "runtime/mesh.h"
#include "runtime/output.h"
#include "runtime/distributed.h"
#include "runtime/output_file.h"
#include "runtime/chain.h"

void op_printf(const char *format, ...) {
  op2_context *ctx = op2_ctx();
  op2_chain_flush_local(ctx, "op_printf"); /* output in the order of the calls */
  if (!format || ctx->mpi.rank != 0) return;
  va_list ap;
  va_start(ap, format);
  vprintf(format, ap);
  va_end(ap);
  fflush(stdout);
}

/* OP2's layout: int element count, int dim, then count * dim values, element after element.
 * Through op2_output: a regular file is replaced whole or not at all; a device, FIFO or link is
 * written through. 0, or -1 with *why. */
static int write_bin(const char *file_name, int count, int dim, const void *data, size_t bytes,
                     op2_jit_error *why) {
  op2_output o;
  if (op2_output_open(&o, file_name, why) != 0) return -1;
  FILE *f = o.f;
  int failed = fwrite(&count, sizeof count, 1, f) != 1 || fwrite(&dim, sizeof dim, 1, f) != 1 ||
               (bytes && fwrite(data, bytes, 1, f) != 1);
  return op2_output_close(&o, failed, why);
}

/* Gathered on every rank, written by rank 0; under MPI one collective step, whose agreement tells
 * every rank when rank 0 could not write. */
static int print_bin(op2_context *ctx, op_dat dat, const char *file_name) {
  if (!dat || !file_name)
    return op2_error(OP2_ERR_ARG, "op_print_dat_to_binfile: %s is NULL", dat ? "file name" : "dat");
  int count = op_get_size(dat->set);
  size_t bytes = (size_t)count * dat->elem_bytes;
  char *all = malloc(bytes + 1);
  int rc = all ? OP2_OK
               : op2_error(OP2_ERR_MEM, "op_print_dat_to_binfile '%s': out of memory", dat->name);
  rc = op2_mpi_agree(ctx, rc, "op_print_dat_to_binfile"); /* before the collective fetch */
  /* every element in the user's order (collective under MPI) */
  if (rc == OP2_OK) rc = op2_fetch_idx(ctx, dat, all, 0, count - 1); /* its failure: no file */
  op2_jit_error why;
  if (rc == OP2_OK && ctx->mpi.rank == 0 &&
      write_bin(file_name, count, dat->dim, all, bytes, &why) != 0)
    rc = op2_error_record(&why, "op_print_dat_to_binfile '%s': %s", dat->name, why.msg);
  free(all);
  return rc;
}

void op_print_dat_to_binfile(op_dat dat, const char *file_name) {
  if (op2_require_init("op_print_dat_to_binfile") != OP2_OK) return;
  op2_context *ctx = op2_ctx();
  op2_chain_flush(ctx, "op_print_dat_to_binfile"); /* lazy execution: queued loops first */
  op2_mpi_step(ctx, "op_print_dat_to_binfile");
  op2_mpi_step_end(ctx, print_bin(ctx, dat, file_name));
}
