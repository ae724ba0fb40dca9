/* SPDX-License-Identifier: BSD-3-Clause */
/* Options the CUDA backends check at op_init, and OP2_BACKEND=cuda where the driver cannot be
 * used: a clear error from op_init, naming the library and the way out (cuda-emu). A missing
 * library, and NVIDIA's stub libcuda.so (present in every toolkit, its cuInit always fails). Where
 * a real driver and GPU are present, the default library starts and a loop runs on the GPU: then
 * its result is checked instead. */
#include "test.h"

static void expect_init_error(const char *driver, const char *needle) {
  setenv("OP2_CUDA_DRIVER", driver, 1);
  char *argv[] = {"t603", "OP2_BACKEND=cuda", NULL};
  EXPECT_ERROR(op_init(2, argv, 0), needle);
  CHECK_CONTAINS(op_last_error(), "OP2_BACKEND=cuda-emu");
  op_exit();
}

static void expect_option_error(const char *name, const char *value) {
  setenv(name, value, 1);
  char *argv[] = {"t603", "OP2_BACKEND=cuda-emu", NULL};
  char needle[256];
  snprintf(needle, sizeof needle, "%s=%s", name, value);
  EXPECT_ERROR(op_init(2, argv, 0), needle);
  op_exit();
  unsetenv(name);
}

int main(void) {
  test_catch_errors();
  expect_option_error("OP2_CUDA_STRATEGY", "fastest");
  expect_option_error("OP2_CUDA_BLOCK_SIZE", "100");
  expect_option_error("OP2_CUDA_ARCH", "compute_90");
  expect_option_error("OP2_CUDA_EMU_SECTORS", "yes");
  expect_init_error("/nonexistent/libcuda.so.1", "cannot load the CUDA driver /nonexistent");
  expect_init_error("libm.so.6", "libm.so.6 has no cuInit"); /* a library, but not the driver */
  const char *stub = getenv("OP2_TEST_CUDA_STUB_DRIVER");
  FILE *f = stub ? fopen(stub, "rb") : NULL;
  if (f) {
    fclose(f);
    expect_init_error(stub, "cuInit");
  }
  unsetenv("OP2_CUDA_DRIVER");
  char *argv[] = {"t603", "OP2_BACKEND=cuda", NULL};
  test_errors_expected = 1;
  test_errors_seen = 0;
  op_init(2, argv, 0);
  test_errors_expected = 0;
  if (test_errors_seen) { /* no GPU here: the same clear error */
    CHECK_CONTAINS(op_last_error(), "OP2_BACKEND=cuda");
    CHECK_CONTAINS(op_last_error(), "cuda-emu");
    printf("no usable CUDA driver: %s\n", op_last_error());
    op_exit();
    return 0;
  }
  enum { N = 100000 };
  double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
  for (int i = 0; i < N; i++) a[i] = i * 0.5;
  op_set s = op_decl_set(N, "s");
  op_dat da = op_decl_dat(s, 1, "double", a, "a"), db = op_decl_dat(s, 1, "double", NULL, "b");
  double sum = 0;
  op_par_loop(
      "void twice(const double *a, double *b, double *s) { b[0] = 2.0 * a[0]; *s += a[0]; }",
      "twice", s, op_arg_dat(da, -1, OP_ID, 1, "double", OP_READ),
      op_arg_dat(db, -1, OP_ID, 1, "double", OP_WRITE), op_arg_gbl(&sum, 1, "double", OP_INC));
  op_fetch_data(db, b);
  for (int i = 0; i < N; i++) CHECK(b[i] == 2.0 * a[i]);
  CHECK_NEAR(sum, 0.25 * (double)N * (N - 1), 1e-12);
  printf("ran on the GPU\n");
  free(a), free(b);
  op_exit();
  return 0;
}
