/* SPDX-License-Identifier: BSD-3-Clause */
// Read by op_kernel_file: its const.h lies in another OP2_KERNEL_PATH directory.
#include "const.h"
void by_file(double *f) {
  f[0] += NVAR;
}
