/* SPDX-License-Identifier: BSD-3-Clause */
/* OP2's allocation calls and the helpers of OP2's op_util.h that OP2's mesh converters use;
 * op_arg_info and op_halo_create. Plain functions of their arguments: no library state. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "op_util.h"

enum { OP2_USER_ALIGN = 64 };

void *op_malloc(size_t size) {
  size_t rounded = (size + OP2_USER_ALIGN - 1) / OP2_USER_ALIGN * OP2_USER_ALIGN;
  return aligned_alloc(OP2_USER_ALIGN, rounded ? rounded : OP2_USER_ALIGN);
}

void *op_calloc(size_t number, size_t size) {
  if (size && number > SIZE_MAX / size) return NULL;
  void *p = op_malloc(number * size);
  if (p) memset(p, 0, number * size);
  return p;
}

/* realloc keeps the contents (not necessarily the 64-byte alignment), as OP2's does. */
void *op_realloc(void *ptr, size_t size) {
  return ptr ? realloc(ptr, size) : op_malloc(size);
}

void op_free(void *ptr) {
  free(ptr);
}

int compute_local_size(int global_size, int mpi_comm_size, int mpi_rank) {
  if (mpi_comm_size < 1 || mpi_rank < 0 || mpi_rank >= mpi_comm_size || global_size < 0) return 0;
  return global_size / mpi_comm_size + (mpi_rank < global_size % mpi_comm_size ? 1 : 0);
}

/* The x-allocators exit: OP2's converters never check what they return. */
static void *checked(void *p, size_t bytes, const char *what) {
  if (!p && bytes) {
    fprintf(stderr, "op2: error: %s: out of memory for %zu bytes\n", what, bytes);
    exit(1);
  }
  return p;
}

void *xmalloc(size_t size) {
  return checked(malloc(size), size, "xmalloc");
}

void *xcalloc(size_t number, size_t size) {
  return checked(calloc(number, size), number * size, "xcalloc");
}

void *xrealloc(void *ptr, size_t size) {
  return checked(realloc(ptr, size), size, "xrealloc");
}

int file_exist(const char *filename) {
  return filename && access(filename, F_OK) == 0;
}

/* A maximum whose value is the one of the part (thread, rank) that won reduction `ref` (its
 * reference, a MIN or MAX global of the loop): the global's index holds ref (reduction.c). */
op_arg op_arg_info(void *data, int dim, const char *type, int ref) {
  op_arg a = op_arg_gbl(data, dim, type, OP_MAX);
  a.idx = ref >= 0 ? ref : -2; /* -2: no valid reference (refused by the loop's checks) */
  return a;
}

/* op2jit's halos come with the distribution (op_partition or the first loop). */
void op_halo_create(void) {}
