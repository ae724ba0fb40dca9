/* SPDX-License-Identifier: BSD-3-Clause */
/* op2jit loop template for CPU backends. The code generator defines, before this text:
 *   OP2_KERNEL     the user's kernel function
 *   OP2_DECLARE    typed base pointers of every argument, map pointers
 *   OP2_ELEMENT    per-element work before the call: map indices, vector argument arrays
 *   OP2_CALL_ARGS  the kernel's arguments for element op2_n
 *   OP2_FINISH     after the range: reductions written back from their local copies
 * The runtime calls op2_loop on element ranges (one per thread or per plan block), so this code
 * needs no threading support from the compiler. */
void op2_loop(void *const *op2_args, const int *const *op2_maps, int op2_begin, int op2_end) {
  (void)op2_args;
  (void)op2_maps;
  OP2_DECLARE
  for (int op2_n = op2_begin; op2_n < op2_end; op2_n++) {
    OP2_ELEMENT
    OP2_KERNEL(OP2_CALL_ARGS);
  }
  OP2_FINISH
}
