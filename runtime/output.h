/* SPDX-License-Identifier: BSD-3-Clause */
/* Data and statistics out of the library: fetches in the user's order (output.c), the per-loop
 * profile (timing.c, profile.c). */
#ifndef OP2_RUNTIME_OUTPUT_H
#define OP2_RUNTIME_OUTPUT_H

#include "op2.h"

typedef struct op2_context op2_context;

/* Elements low..high of `dat` in the user's order into `out` (output.c; collective under MPI,
 * inside the caller's step). Reports its failure; the caller propagates it. */
int op2_fetch_idx(op2_context *ctx, op_dat dat, void *out, int low, int high);
int op2_profile_write(op2_context *ctx, const char *path);
/* Releases the op_profile_* sections (profile.c); op_exit calls it. */
void op2_profile_free(op2_context *ctx);

#endif /* OP2_RUNTIME_OUTPUT_H */
