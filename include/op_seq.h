/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file op_seq.h
 * @brief The header OP2 programs include ("op_seq.h", or "op_lib_cpp.h" / "op_lib_c.h"), so their
 * include lines stay as written: op2.h plus what OP2's header brings with it, which OP2 programs
 * and their kernel headers rely on (the C headers below, MIN and MAX).
 */
#ifndef OP2_OP_SEQ_H
#define OP2_OP_SEQ_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op2.h"

/* Kernel headers are also compiled into the program itself; OP2 defines these for them (the
 * kernel prelude defines the same macros for the generated code). */
#ifndef MIN
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#endif
#ifndef MAX
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#endif

#endif /* OP2_OP_SEQ_H */
