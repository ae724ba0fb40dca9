/* SPDX-License-Identifier: BSD-3-Clause */
/* OP2 programs include this name too: the same as op_seq.h. */
#include "op_seq.h"
