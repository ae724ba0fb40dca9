/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef T754_WEIGHTS_H
#define T754_WEIGHTS_H
#define FLUX_WEIGHT 0.5
#endif
