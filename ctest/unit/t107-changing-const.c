/* SPDX-License-Identifier: BSD-3-Clause */
/* A constant declared with a new value before every call (an adaptive time step): after
 * OP2_CONST_BAKED_VALUES values it is read at run time, so 10,000 values compile at most three
 * kernels for the loop, write at most three cache entries for it in all tiers (OP2_JIT=tiered
 * included: superseded shapes are neither optimised nor stored), keep the context's
 * loop and kernel lists from growing, and give bit for bit what plain C gives with the same values.
 * A constant set once stays a literal in the generated source. Run with OP2_BACKEND and OP2_JIT
 * from meson. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "runtime/op2_impl.h"
#include "jit/jit.h"

static const char *dt_axpy_src =
    "void dt_axpy(const double *x, double *y) { y[0] += dt * x[0]; }\n";
static const char *scaled_src =
    "void scaled(const double *x, double *y) { y[0] = scale * x[0]; }\n";

enum { N = 1000, VALUES = 10000 };

/* Kernel objects of loop `name` (every loop when NULL) in the cache: files NAME.so anywhere
 * below, one per cache entry. */
static int count_objects(const char *dir, const char *name) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    size_t len = strlen(e->d_name);
    if (e->d_type == DT_DIR)
      n += count_objects(path, name);
    else if (len > 3 && strcmp(e->d_name + len - 3, ".so") == 0 &&
             (!name || (strncmp(e->d_name, name, len - 3) == 0 && !name[len - 3])))
      n++;
  }
  closedir(d);
  return n;
}

static char *read_text(const char *path) {
  FILE *f = fopen(path, "r");
  CHECK(f != NULL);
  static char text[1 << 16];
  size_t n = fread(text, 1, sizeof text - 1, f);
  text[n] = 0;
  fclose(f);
  return text;
}

int main(void) {
  const char *cache = getenv("OP2_CACHE_DIR");
  CHECK(cache != NULL);
  int objects_before = count_objects(cache, NULL); /* a cache kept from an earlier run */
  int dt_before = count_objects(cache, "dt_axpy");
  op_init(0, NULL, 0);
  op2_context *ctx = op2_ctx();
  static double x[N], y[N], ref[N];
  for (int i = 0; i < N; i++) x[i] = 0.001 * i - 0.37, y[i] = ref[i] = 0.25 * (i % 7);
  op_set s = op_decl_set(N, "s");
  op_dat dx = op_decl_dat(s, 1, "double", x, "x"), dy = op_decl_dat(s, 1, "double", y, "y");
  double scale = 1.75;
  op_decl_const(1, "double", &scale, "scale");
  int loops_after_first_values = 0, kernels_after_first_values = 0;
  for (int v = 0; v < VALUES; v++) {
    double dt = 1e-3 * (1.0 + 0.5 * ((v * 7919) % 1000) / 1000.0) + 1e-9 * v;
    op_decl_const(1, "double", &dt, "dt");
    op_par_loop(dt_axpy_src, "dt_axpy", s, op_arg_dat(dx, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(dy, -1, OP_ID, 1, "double", OP_RW));
    for (int i = 0; i < N; i++) ref[i] += dt * x[i];
    if (v == 5)
      loops_after_first_values = ctx->loops.count, kernels_after_first_values = ctx->kernels.count;
    if (v % 1000 == 0 || v == VALUES - 1) {
      op_fetch_data(dy, y);
      CHECK(memcmp(y, ref, sizeof y) == 0);
    }
  }
  const op2_loop_stats *st = op2_stats_for(ctx, "dt_axpy");
  printf("dt_axpy: %d kernels compiled, %d from disk, %d loop shapes, %d kernels, %d objects\n",
         st->kernels_compiled, st->kernels_from_disk, ctx->loops.count, ctx->kernels.count,
         count_objects(cache, NULL));
  CHECK(st->kernels_compiled + st->kernels_from_disk <= OP2_CONST_BAKED_VALUES + 1);
  CHECK(op2_const_find("dt")->live);
  /* superseded shapes are freed: one shape remains; a superseded kernel whose optimised build
   * was still running when it was superseded stays until the next sweep, never more of them */
  CHECK_EQ_INT(ctx->loops.count, 1);
  CHECK(ctx->kernels.count <= OP2_CONST_BAKED_VALUES + 1);
  CHECK_EQ_INT(ctx->loops.count, loops_after_first_values);
  CHECK_EQ_INT(ctx->kernels.count, kernels_after_first_values);

  /* a constant set once stays a literal */
  double out[N];
  op_par_loop(scaled_src, "scaled", s, op_arg_dat(dx, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(dy, -1, OP_ID, 1, "double", OP_WRITE));
  op_fetch_data(dy, out);
  for (int i = 0; i < N; i++) CHECK(out[i] == scale * x[i]);
  CHECK(!op2_const_find("scale")->live);
  op2_loop *scaled = ctx->loops.items[ctx->loops.count - 1];
  if (op2_kernel_source_path(scaled->kernel))
    CHECK(strstr(read_text(op2_kernel_source_path(scaled->kernel)),
                 "static const double scale = ") != NULL);
  op2_jit_wait_all(ctx);
  int objects = count_objects(cache, NULL) - objects_before;
  int dt_objects = count_objects(cache, "dt_axpy") - dt_before;
  op_exit();
  /* written by this process: at most three entries for dt_axpy in all tiers (TinyCC, optimised),
   * and the scaled loop's two */
  printf("cache objects: %d, of dt_axpy: %d\n", objects, dt_objects);
  CHECK(dt_objects <= OP2_CONST_BAKED_VALUES + 1);
  CHECK(objects <= OP2_CONST_BAKED_VALUES + 1 + 2);
  return 0;
}
