/* SPDX-License-Identifier: BSD-3-Clause */
// Two includes deep from a kernel header (misc.h -> const.h -> dims.h).
#ifndef T754_DIMS_H
#define T754_DIMS_H
#define NDIM 3
#endif
