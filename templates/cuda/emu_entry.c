/* SPDX-License-Identifier: BSD-3-Clause */
/* Emulation entry, appended after the generated kernel. The cuda-emu backend calls op2_loop once
 * after loading the module: args[0] is its environment, args[1] receives the kernel, args[2]
 * whether the kernel has barriers (threads then run as fibers). */
void op2_loop(void *const *op2_a, const int *const *op2_m, int op2_b, int op2_e) {
  (void)op2_m;
  (void)op2_b;
  (void)op2_e;
  op2_emu = (op2_emu_env *)op2_a[0];
  *(void (**)(op2_cuda_params))op2_a[1] = op2_cuda_kernel;
  *(int *)op2_a[2] = OP2_USES_BARRIERS;
}
