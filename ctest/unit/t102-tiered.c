/* SPDX-License-Identifier: BSD-3-Clause */
/* Tiered compilation: the first call runs TinyCC code, the optimised build is swapped in between
 * calls with identical results, a later process starts on the optimised build from the disk cache,
 * and a missing or failing system compiler leaves loops correct on TinyCC. */
#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"
#include "runtime/op2_impl.h"
#include "jit/jit.h"

static const char *axpy_src =
    "void axpy(const double *x, double *y, double *sum) {\n"
    "  y[0] = a * x[0] + y[0];\n"
    "  *sum += y[0];\n"
    "}\n";

enum { N = 5000 };

/* One process's worth of work: returns the sum and checks every y. */
static void run(const char *cache_dir, const char *jit, const char *cc, const char *cache_mode,
                int calls, op2_tier_id *first_tier, op2_tier_id *last_tier, int wait_between) {
  setenv("OP2_CACHE_DIR", cache_dir, 1);
  setenv("OP2_JIT", jit, 1);
  if (cc)
    setenv("OP2_CC", cc, 1);
  else
    unsetenv("OP2_CC"); /* the default, "cc" on PATH */
  setenv("OP2_CACHE", cache_mode, 1);
  op_init(0, NULL, 0);
  double x[N], y[N], expect[N];
  for (int i = 0; i < N; i++) x[i] = 0.5 * i, y[i] = 1.0, expect[i] = 1.0;
  double a = 3.0;
  op_decl_const(1, "double", &a, "a");
  op_set s = op_decl_set(N, "s");
  op_dat dx = op_decl_dat(s, 1, "double", x, "x"), dy = op_decl_dat(s, 1, "double", y, "y");
  op2_context *ctx = op2_ctx();
  for (int c = 0; c < calls; c++) {
    double sum = 0, expect_sum = 0;
    op_par_loop(axpy_src, "axpy", s, op_arg_dat(dx, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(dy, -1, OP_ID, 1, "double", OP_RW),
                op_arg_gbl(&sum, 1, "double", OP_INC));
    op2_loop *l = ctx->loops.items[0];
    if (c == 0) *first_tier = op2_kernel_tier(l->kernel);
    *last_tier = op2_kernel_tier(l->kernel);
    for (int i = 0; i < N; i++) expect[i] = a * x[i] + expect[i], expect_sum += expect[i];
    op_fetch_data(dy, y);
    CHECK(memcmp(y, expect, sizeof y) == 0); /* both tiers compute bit for bit the same */
    CHECK_NEAR(sum, expect_sum, 1e-12);
    if (wait_between) op2_jit_wait_all(ctx);
  }
  op_exit();
}

static int count_entries(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) n += strncmp(e->d_name, "axpy-", 5) == 0;
  closedir(d);
  return n;
}

int main(void) {
  char base[] = "/tmp/op2-tiered-XXXXXX";
  CHECK(mkdtemp(base) != NULL);
  char dir[4096];
  op2_tier_id first, last;

  /* Tiered: TinyCC first, optimised after the background build, same numbers. */
  snprintf(dir, sizeof dir, "%s/tiered", base);
  run(dir, "tiered", "cc", "on", 3, &first, &last, 1);
  CHECK_EQ_INT(first, OP2_TIER_TCC);
  CHECK_EQ_INT(last, OP2_TIER_CC);
  CHECK_EQ_INT(count_entries(dir), 2); /* the TinyCC and the optimised entry */

  /* A later process starts on the optimised build from disk, compiling nothing. */
  run(dir, "tiered", "cc", "on", 1, &first, &last, 0);
  CHECK_EQ_INT(first, OP2_TIER_CC);
  CHECK_EQ_INT(count_entries(dir), 2);

  /* A failing compiler: everything stays on TinyCC and stays right. */
  snprintf(dir, sizeof dir, "%s/failing", base);
  run(dir, "tiered", "false", "on", 3, &first, &last, 1);
  CHECK_EQ_INT(first, OP2_TIER_TCC);
  CHECK_EQ_INT(last, OP2_TIER_TCC);

  /* No compiler at all: the default cc is not on PATH (a compiler named with OP2_CC that does
   * not exist is refused at op_init instead: t313-option-values). */
  snprintf(dir, sizeof dir, "%s/missing", base);
  char *path = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
  CHECK(path && setenv("PATH", "/proc/op2-none", 1) == 0);
  run(dir, "tiered", NULL, "on", 2, &first, &last, 1);
  CHECK(setenv("PATH", path, 1) == 0);
  free(path);
  CHECK_EQ_INT(last, OP2_TIER_TCC);

  /* OP2_JIT=cc: optimised from the first call; OP2_JIT=tcc: never. */
  snprintf(dir, sizeof dir, "%s/cc-only", base);
  run(dir, "cc", "cc", "on", 1, &first, &last, 0);
  CHECK_EQ_INT(first, OP2_TIER_CC);
  snprintf(dir, sizeof dir, "%s/tcc-only", base);
  run(dir, "tcc", "cc", "on", 2, &first, &last, 1);
  CHECK_EQ_INT(last, OP2_TIER_TCC);
  CHECK_EQ_INT(count_entries(dir), 1);

  /* Cache off: the optimised build happens in a private directory and nothing is cached. */
  snprintf(dir, sizeof dir, "%s/off", base);
  run(dir, "tiered", "cc", "off", 3, &first, &last, 1);
  CHECK_EQ_INT(last, OP2_TIER_CC);
  CHECK_EQ_INT(count_entries(dir), 0);

  char cmd[4200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
  CHECK(system(cmd) == 0);
  return 0;
}
