/* SPDX-License-Identifier: BSD-3-Clause */
// The program's constants, as MG-CFD's const.h: included by the calling file and again by the
// kernel headers; it includes another header itself.
#ifndef T754_CONST_H
#define T754_CONST_H
#include "dims.h"
#define NVAR (NDIM + 2)
#endif
