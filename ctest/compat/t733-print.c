/* SPDX-License-Identifier: BSD-3-Clause */
/* op_printf prints once (on rank 0 under MPI); op_print_dat_to_binfile writes OP2's layout (int
 * count, int dim, then every value in declaration order) for each type, the whole dat from rank 0
 * under MPI, after a loop has changed it. Every rank declares the whole mesh. */
#include "capture.h"

enum { N = 777 };

static const char *bump_src = "static void bump(double *d, int *i) { d[1] += 1.0; i[0] -= 3; }\n";

static void check_bin(const char *path, int count, int dim, const void *want, size_t bytes) {
  long size;
  char *got = read_whole_file(path, &size);
  CHECK(got != NULL);
  CHECK_EQ_INT(size, (long)(2 * sizeof(int) + bytes));
  int head[2];
  memcpy(head, got, sizeof head);
  CHECK_EQ_INT(head[0], count);
  CHECK_EQ_INT(head[1], dim);
  CHECK(memcmp(got + sizeof head, want, bytes) == 0);
  free(got);
}

int main(int argc, char **argv) {
  test_catch_errors();
  op_init(argc, argv, 0);
  capture c;
  capture_begin(&c, 1);
  op_printf("iteration %d rms %.3e%s\n", 7, 0.125, "");
  char *out = capture_end(&c);
  if (op_is_root())
    CHECK(strcmp(out, "iteration 7 rms 1.250e-01\n") == 0);
  else
    CHECK(strcmp(out, "") == 0);
  free(out);

  static double d[2 * N];
  static int iv[N];
  static float fv[3 * N];
  static long long lv[N];
  for (int e = 0; e < N; e++) {
    d[2 * e] = e * 0.1, d[2 * e + 1] = -e / 3.0;
    iv[e] = e * 11 - 4000;
    for (int k = 0; k < 3; k++) fv[3 * e + k] = (float)(e + k) / 7.0f;
    lv[e] = (long long)e * 100000000000LL;
  }
  op_set s = op_decl_set(N, "s");
  op_dat dd = op_decl_dat(s, 2, "double", d, "d"), di = op_decl_dat(s, 1, "int", iv, "i");
  op_dat df = op_decl_dat(s, 3, "float", fv, "f"), dl = op_decl_dat(s, 1, "long long", lv, "l");
  op_par_loop(bump_src, "bump", s, op_arg_dat(dd, -1, OP_ID, 2, "double", OP_RW),
              op_arg_dat(di, -1, OP_ID, 1, "int", OP_RW));
  for (int e = 0; e < N; e++) d[2 * e + 1] += 1.0, iv[e] -= 3;

  char path[64];
  snprintf(path, sizeof path, "/tmp/t733-%d.bin", (int)getpid());
  op_print_dat_to_binfile(dd, path);
  if (op_is_root()) check_bin(path, N, 2, d, sizeof d);
  op_print_dat_to_binfile(di, path);
  if (op_is_root()) check_bin(path, N, 1, iv, sizeof iv);
  op_print_dat_to_binfile(df, path);
  if (op_is_root()) check_bin(path, N, 3, fv, sizeof fv);
  op_print_dat_to_binfile(dl, path);
  if (op_is_root()) check_bin(path, N, 1, lv, sizeof lv);
  if (op_is_root()) unlink(path);

  EXPECT_ERROR(op_print_dat_to_binfile(dd, "/nonexistent-dir/x.bin"),
               "op_print_dat_to_binfile 'd': cannot write /nonexistent-dir/x.bin");
  EXPECT_ERROR(op_print_dat_to_binfile(NULL, path), "op_print_dat_to_binfile: dat is NULL");
  op_exit();
  return 0;
}
