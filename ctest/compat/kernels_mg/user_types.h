/* SPDX-License-Identifier: BSD-3-Clause */
// What OP2's translator puts before every kernel (t754): without an include guard, as OP2's
// user_types.h files are; the calling file includes it too.
typedef struct t754_range {
  double lo, hi;
} t754_range;
