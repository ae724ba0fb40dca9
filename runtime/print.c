/* OP2's printing calls: op_printf (one voice under MPI) and op_print_dat_to_binfile. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "op2_impl.h"

void op_printf(const char *format, ...) {
  op2_context *ctx = op2_ctx();
  if (!format || ctx->mpi.rank != 0) return;
  va_list ap;
  va_start(ap, format);
  vprintf(format, ap);
  va_end(ap);
  fflush(stdout);
}

/* OP2's layout: int element count, int dim, then count * dim values, element after element.
 * Written to a temporary name and renamed, so a failure leaves no partial file. */
static int write_bin(const char *file_name, int count, int dim, const void *data, size_t bytes) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp%d", file_name, (int)getpid());
  FILE *f = fopen(tmp, "wb");
  if (!f) return -1;
  int failed = fwrite(&count, sizeof count, 1, f) != 1 || fwrite(&dim, sizeof dim, 1, f) != 1 ||
               (bytes && fwrite(data, bytes, 1, f) != 1);
  return op2_file_commit(f, failed, tmp, file_name);
}

void op_print_dat_to_binfile(op_dat dat, const char *file_name) {
  if (op2_require_init("op_print_dat_to_binfile") != OP2_OK) return;
  if (!dat || !file_name) {
    op2_error(OP2_ERR_ARG, "op_print_dat_to_binfile: %s is NULL", dat ? "file name" : "dat");
    return;
  }
  op2_context *ctx = op2_ctx();
  int count = op_get_size(dat->set);
  size_t bytes = (size_t)count * dat->elem_bytes;
  char *all = malloc(bytes + 1);
  if (!all) {
    op2_error(OP2_ERR_MEM, "op_print_dat_to_binfile '%s': out of memory", dat->name);
    return;
  }
  /* every element in the user's order (collective under MPI) */
  op_fetch_data_idx(dat, all, 0, count - 1);
  int failed = 0, saved = 0;
  if (ctx->mpi.rank == 0) {
    failed = write_bin(file_name, count, dat->dim, all, bytes);
    saved = errno;
  }
  if (ctx->mpi.size > 1) MPI_Bcast(&failed, 1, MPI_INT, 0, ctx->mpi.comm);
  free(all);
  if (failed)
    op2_error(OP2_ERR_IO, "op_print_dat_to_binfile '%s': cannot write %s%s%s", dat->name, file_name,
              ctx->mpi.rank == 0 ? ": " : "", ctx->mpi.rank == 0 ? strerror(saved) : "");
}
