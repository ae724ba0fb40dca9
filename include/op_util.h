/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file op_util.h
 * @brief The helpers OP2's mesh converters take from OP2's op_util.h: the block of a global
 * count a rank reads, and allocation that exits with a message instead of returning NULL.
 */
#ifndef OP2_OP_UTIL_H
#define OP2_OP_UTIL_H

#include <stddef.h>

#include "op2.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Elements of `global_size` that rank `mpi_rank` of `mpi_comm_size` holds in OP2's block
 * distribution: global_size / mpi_comm_size, one more on the first global_size % mpi_comm_size
 * ranks. */
int compute_local_size(int global_size, int mpi_comm_size, int mpi_rank);
/** @brief malloc, calloc, realloc that print a message and exit(1) when memory runs out. */
void *xmalloc(size_t size);
void *xcalloc(size_t number, size_t size);
void *xrealloc(void *ptr, size_t size);
/** @brief 1 when `filename` exists, 0 otherwise. */
int file_exist(const char *filename);

#ifdef __cplusplus
}
#endif

#endif /* OP2_OP_UTIL_H */
