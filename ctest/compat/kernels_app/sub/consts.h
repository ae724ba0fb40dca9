/* SPDX-License-Identifier: BSD-3-Clause */
// The program's constants, declared for the kernels as OP2's programs do.
extern double ff[2];
