/* SPDX-License-Identifier: BSD-3-Clause */
/* A C++ kernel (TinyCC rejects its reference) baking a constant that keeps changing follows the
 * C kernels' rule (docs/API.md, Constants): while the constant's value is baked and has changed,
 * the kernel is built but not stored; once it is read at run time its one build is stored. With
 * a value per call, the loop leaves two C++ objects in the cache: the first value's and the
 * live one, never one per value. The test makes its own kernel cache. */
#include <dirent.h>

#include "capture.h"

static const char *cxx_dt_src =
    "void cxx_dt(const double *x, double *y) {\n"
    "  const double &s = dt;\n"
    "  y[0] += s * x[0];\n"
    "}\n";

enum { N = 100, CALLS = 6 };

/* Shared objects of loop `name` below `dir`, one per cache entry. */
static int count_objects(const char *dir, const char *name) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  struct dirent *e;
  char want[300];
  snprintf(want, sizeof want, "%s.so", name);
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (e->d_type == DT_DIR)
      n += count_objects(path, name);
    else
      n += strcmp(e->d_name, want) == 0;
  }
  closedir(d);
  return n;
}

int main(int argc, char **argv) {
  char cache[] = "/tmp/op2-t749-XXXXXX", rm[64];
  CHECK(mkdtemp(cache) != NULL && setenv("OP2_CACHE_DIR", cache, 1) == 0);
  snprintf(rm, sizeof rm, "rm -rf %s", cache);
  op_init(argc, argv, 1);
  double x[N], y[N], want[N];
  for (int i = 0; i < N; i++) x[i] = 0.5 + i, y[i] = want[i] = 0;
  op_set s = op_decl_set(N, "s");
  op_dat dx = op_decl_dat(s, 1, "double", x, "x");
  op_dat dy = op_decl_dat(s, 1, "double", y, "y");
  for (int call = 0; call < CALLS; call++) {
    double dt = 0.25 * (call + 1);
    op_decl_const(1, "double", &dt, "dt");
    op_par_loop(cxx_dt_src, "cxx_dt", s, op_arg_dat(dx, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(dy, -1, OP_ID, 1, "double", OP_INC));
    for (int i = 0; i < N; i++) want[i] += dt * x[i];
  }
  double got[N];
  op_fetch_data(dy, got);
  for (int i = 0; i < N; i++) CHECK(got[i] == want[i]);
  int objects = count_objects(cache, "cxx_dt");
  op_exit();
  printf("t749: C++ objects of cxx_dt in the cache: %d\n", objects);
  CHECK_EQ_INT(objects, 2);
  CHECK(system(rm) == 0);
  return 0;
}
