/* SPDX-License-Identifier: BSD-3-Clause */
/* OP2's call form from C: op_par_loop(kernel_function, "name", ...) is told apart from a source
 * string by _Generic (string literal, char array, const char pointer, NULL all stay strings);
 * a function's source is read from its header name.h along OP2_KERNEL_PATH. */
#include "op_seq.h"

#include "test.h"
#include "fn_scale.h"

static const char scale_array[] = "void by_array(double *y) { y[0] *= 3.0; }\n";
/* As `xxd -i` writes a header (plus the NUL one adds). */
static unsigned char xxd_array[] = "void by_xxd(double *y) { y[0] += 0.5; }\n";

static void keep_going(const char *message, void *user) {
  (void)message;
  (void)user;
}

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  enum { N = 500 };
  double y[N], want[N], got[N], factor = 0.25;
  for (int i = 0; i < N; i++) want[i] = y[i] = i % 9 - 4.0;
  op_set set = op_decl_set(N, "elements");
  op_dat py = op_decl_dat(set, 1, "double", y, "y");
  const char *pointer = "void by_pointer(double *y) { y[0] += 1.0; }\n";
  for (int call = 0; call < 2; call++) {
    op_par_loop(fn_scale, "fn_scale", set, op_arg_dat(py, -1, OP_ID, 1, "double", OP_RW),
                op_arg_gbl(&factor, 1, "double", OP_READ));
    op_par_loop("void by_literal(double *y) { y[0] -= 2.0; }\n", "by_literal", set,
                op_arg_dat(py, -1, OP_ID, 1, "double", OP_RW));
    op_par_loop(scale_array, "by_array", set, op_arg_dat(py, -1, OP_ID, 1, "double", OP_RW));
    op_par_loop(pointer, "by_pointer", set, op_arg_dat(py, -1, OP_ID, 1, "double", OP_RW));
    /* unsigned char: still a string (C warns about its sign, as it always did). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpointer-sign"
    op_par_loop(xxd_array, "by_xxd", set, op_arg_dat(py, -1, OP_ID, 1, "double", OP_RW));
#pragma GCC diagnostic pop
    for (int i = 0; i < N; i++) want[i] = (want[i] * factor - 2.0) * 3.0 + 1.0 + 0.5;
  }
  op_fetch_data(py, got);
  for (int i = 0; i < N; i++) CHECK(got[i] == want[i]);

  /* NULL is still a (missing) source string: the string form's error, no header search. */
  op_set_error_handler(keep_going, NULL);
  op_par_loop(NULL, "fn_scale", set, op_arg_dat(py, -1, OP_ID, 1, "double", OP_RW),
              op_arg_gbl(&factor, 1, "double", OP_READ));
  fprintf(stderr, "expected error: %s\n", op_last_error());
  CHECK(strstr(op_last_error(), "fn_scale") && !strstr(op_last_error(), "header"));
  op_fetch_data(py, got);
  for (int i = 0; i < N; i++) CHECK(got[i] == want[i]);
  op_exit();
  printf("kernel functions from C: passed\n");
  return 0;
}
