/* SPDX-License-Identifier: BSD-3-Clause */
/* A kernel header's `#include "x"` that names something the library will not read (a FIFO, a
 * device) is not dropped without a word (issue 35, item 6): the compiler stops there with an
 * #error naming the file and why it was skipped, instead of a later "'ONE' undeclared" that says
 * nothing of the include. Nothing blocks on the FIFO. Usage: io_kernel_include */
#include <signal.h>
#include <sys/stat.h>

#include "errors_util.h"

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  CHECK(f != NULL && fputs(text, f) >= 0 && fclose(f) == 0);
}

int main(void) {
  alarm(60); /* a read blocked on the FIFO would end the test here, as a failure */
  char dir[4096], path[4300];
  eu_make_scratch(dir, sizeof dir, "kernel-include");
  snprintf(path, sizeof path, "%s/one.h", dir);
  CHECK(mkfifo(path, 0600) == 0);
  snprintf(path, sizeof path, "%s/inc_fifo.h", dir);
  write_text(path, "#include \"one.h\"\ninline void inc_fifo(double *v) { v[0] = ONE; }\n");
  snprintf(path, sizeof path, "%s/inc_dev.h", dir);
  write_text(path, "#include \"/dev/zero\"\ninline void inc_dev(double *v) { v[0] = 1; }\n");
  CHECK(setenv("OP2_KERNEL_PATH", dir, 1) == 0);

  test_catch_errors();
  op_init(0, NULL, 0);
  op_set s = op_decl_set(4, "s");
  double v[4] = {0};
  op_dat d = op_decl_dat(s, 1, "double", v, "v");
  op_arg arg = op_arg_dat(d, -1, OP_ID, 1, "double", OP_WRITE);
  EXPECT_ERROR(op_par_loop_header(__FILE__, "inc_fifo", s, 1, &arg),
               "cannot read header 'one.h' (it is not a regular file");
  fprintf(stderr, "%s\n", op_last_error());
  EXPECT_ERROR(op_par_loop_header(__FILE__, "inc_dev", s, 1, &arg),
               "cannot read header '/dev/zero' (it is not a regular file");
  op_exit();
  eu_remove_tree(dir);
  return 0;
}
