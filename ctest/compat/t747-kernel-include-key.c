/* SPDX-License-Identifier: BSD-3-Clause */
/* A kernel header's quoted include is resolved against the header's own directory, and what the
 * included file holds is part of the kernel's cache key: after the included file changes, a new
 * process (same kernel cache) computes with the new text, not with the cached build. The same
 * for a kernel function's header and for one read by op_kernel_file. */
#include <sys/stat.h>

#include "op_seq.h"

#include "test.h"

static void write_file(const char *dir, const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  CHECK(f != NULL && fputs(text, f) >= 0 && fclose(f) == 0);
}

/* One process's loops: y = 1 scaled by the header's FACTOR, z = 1 by the other header's. */
static double run_once(int argc, char **argv, double *z_out) {
  op_init(argc, argv, 0);
  double y[4] = {1, 1, 1, 1}, z[4] = {1, 1, 1, 1};
  op_set set = op_decl_set(4, "elements");
  op_dat py = op_decl_dat(set, 1, "double", y, "y");
  op_dat pz = op_decl_dat(set, 1, "double", z, "z");
  op_arg args[] = {op_arg_dat(py, -1, OP_ID, 1, "double", OP_RW)};
  op_par_loop_header(__FILE__, "inc_scale", set, 1, args);
  op_par_loop(op_kernel_file("by_file.h"), "by_file", set,
              op_arg_dat(pz, -1, OP_ID, 1, "double", OP_RW));
  op_fetch_data(py, y);
  op_fetch_data(pz, z);
  op_exit();
  *z_out = z[0];
  return y[0];
}

int main(int argc, char **argv) {
  char dir[] = "/tmp/op2-t747-XXXXXX", sub[64], cache[64], rm[64];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(sub, sizeof sub, "%s/sub", dir);
  snprintf(cache, sizeof cache, "%s/cache", dir);
  snprintf(rm, sizeof rm, "rm -rf %s", dir);
  CHECK(mkdir(sub, 0700) == 0);
  write_file(dir, "inc_scale.h",
             "#include \"sub/factor.h\"\ninline void inc_scale(double *y) { y[0] *= FACTOR; }\n");
  write_file(dir, "by_file.h",
             "#include \"sub/base.h\"\nvoid by_file(double *z) { z[0] *= BASE + 1.0; }\n");
  write_file(sub, "factor.h", "#include \"base.h\"\n#define FACTOR (BASE * 2.0)\n");
  write_file(sub, "base.h", "#define BASE 1.0\n");
  CHECK(setenv("OP2_KERNEL_PATH", dir, 1) == 0 && setenv("OP2_CACHE_DIR", cache, 1) == 0);
  double z;
  CHECK(run_once(argc, argv, &z) == 2.0 && z == 2.0);
  write_file(sub, "base.h", "#define BASE 1.5\n"); /* two includes deep */
  CHECK(run_once(argc, argv, &z) == 3.0 && z == 2.5);
  CHECK(system(rm) == 0);
  printf("includes of kernel headers: passed\n");
  return 0;
}
