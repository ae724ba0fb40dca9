/* SPDX-License-Identifier: BSD-3-Clause */
// The program's constants, which t766's calling file includes before the kernel headers.
#ifndef T766_CONST_H
#define T766_CONST_H
#define NCOMP 3
#endif
