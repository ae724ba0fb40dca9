/* SPDX-License-Identifier: BSD-3-Clause */
/* OP2_TUNE: per-loop parameters tried on a loop's first calls and kept in records under
 * ROOT/tune/ (tune.c). Which parameters a backend has, and what they do, is the backend's
 * (op2_backend's tune_* entries). */
#ifndef OP2_RUNTIME_TUNE_H
#define OP2_RUNTIME_TUNE_H

#include "jit/jit.h"

typedef struct op2_context op2_context;
typedef struct op2_loop op2_loop;

/* Per-loop parameters auto-tuning may choose; 0 means the option's value. Each backend fills
 * and reads its own fields only (tune.c copies, compares and records them, by these names). */
typedef struct op2_tune_params {
  int part_size;  /* openmp: plan block size (OP2_PART_SIZE) */
  int coloured;   /* openmp: block colouring instead of the thread-owned layout */
  int block_size; /* cuda: threads per block (OP2_CUDA_BLOCK_SIZE), at most the option's */
} op2_tune_params;
typedef enum { OP2_TUNED_NOT, OP2_TUNED_NOW, OP2_TUNED_RECORD } op2_tune_source;

/* Auto-tuning this process (tune.c): records read, written and ignored, trial calls. */
typedef struct op2_tune_counters {
  int records_read, records_written, records_ignored, loops_tuned;
  long trial_calls;
  char cpu[128]; /* the CPU model, part of a record's key; "" until read */
} op2_tune_counters;

/* Auto-tuning (tune.c). op2_tune_init discards the records under OP2_TUNE=reset; around each
 * call of a loop not yet tuned, op2_tune_before picks its parameters (a record, or the next
 * trial) and op2_tune_after counts the call's time. */
int op2_tune_init(op2_context *ctx);
int op2_tune_before(op2_context *ctx, op2_loop *loop, const char *kernel, const op2_kernel *k);
int op2_tune_after(op2_context *ctx, op2_loop *loop, double seconds);
void op2_tune_free(op2_loop *loop);

#endif /* OP2_RUNTIME_TUNE_H */
