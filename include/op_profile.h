/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file op_profile.h
 * @brief The header OP2 programs include for application profiling (op_profile_start, _enter,
 * _exit, _next, _end, _output). op2jit declares these calls in op2.h with the rest of its API,
 * so this header only brings op2.h in: the include line stays as OP2 programs write it.
 */
#ifndef OP2_OP_PROFILE_H
#define OP2_OP_PROFILE_H

#include "op2.h"

#endif /* OP2_OP_PROFILE_H */
