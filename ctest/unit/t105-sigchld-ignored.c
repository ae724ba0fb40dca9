/* SPDX-License-Identifier: BSD-3-Clause */
/* A program that ignores SIGCHLD: the system reaps the compiler itself, so the library cannot
 * learn whether the optimising compile succeeded. That compile must count as failed (never as a
 * success), the loops stay right on TinyCC code, and the diagnostic says why. */
#include <signal.h>
#include <unistd.h>

#include "test.h"
#include "runtime/op2_impl.h"
#include "jit/jit.h"

static const char *scale_src =
    "void scale(const double *x, double *y, double *sum) {\n"
    "  y[0] = 2.0 * x[0] + 1.0;\n"
    "  *sum += y[0];\n"
    "}\n";

enum { N = 5000 };

/* Runs `calls` loops under OP2_JIT=`jit` with stderr captured into `log`; returns the tier of
 * the last call's kernel. */
static op2_tier_id run(const char *cache_dir, const char *jit, int calls, char *log, size_t len) {
  setenv("OP2_CACHE_DIR", cache_dir, 1);
  setenv("OP2_JIT", jit, 1);
  setenv("OP2_CC", "cc", 1);
  fflush(stderr);
  FILE *capture = tmpfile();
  CHECK(capture != NULL);
  int saved = dup(fileno(stderr));
  CHECK(saved >= 0 && dup2(fileno(capture), fileno(stderr)) >= 0);

  op_init(0, NULL, 1);
  double x[N], y[N];
  for (int i = 0; i < N; i++) x[i] = 0.25 * i, y[i] = 0;
  op_set s = op_decl_set(N, "s");
  op_dat dx = op_decl_dat(s, 1, "double", x, "x"), dy = op_decl_dat(s, 1, "double", y, "y");
  op2_context *ctx = op2_ctx();
  op2_tier_id tier = OP2_TIER_TCC;
  for (int c = 0; c < calls; c++) {
    double sum = 0, expect_sum = 0;
    op_par_loop(scale_src, "scale", s, op_arg_dat(dx, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(dy, -1, OP_ID, 1, "double", OP_WRITE),
                op_arg_gbl(&sum, 1, "double", OP_INC));
    tier = op2_kernel_tier(((op2_loop *)ctx->loops.items[0])->kernel);
    op_fetch_data(dy, y);
    for (int i = 0; i < N; i++) {
      CHECK(y[i] == 2.0 * x[i] + 1.0);
      expect_sum += y[i];
    }
    CHECK_NEAR(sum, expect_sum, 1e-12);
    op2_jit_wait_all(ctx);
  }
  op_exit();

  fflush(stderr);
  CHECK(dup2(saved, fileno(stderr)) >= 0);
  close(saved);
  rewind(capture);
  size_t got = fread(log, 1, len - 1, capture);
  log[got] = '\0';
  fclose(capture);
  fputs(log, stderr); /* shown when a check below fails */
  return tier;
}

int main(void) {
  char base[] = "/tmp/op2-sigchld-XXXXXX";
  CHECK(mkdtemp(base) != NULL);
  CHECK(signal(SIGCHLD, SIG_IGN) != SIG_ERR);
  char dir[4096], log[16384];

  snprintf(dir, sizeof dir, "%s/tiered", base);
  CHECK_EQ_INT(run(dir, "tiered", 3, log, sizeof log), OP2_TIER_TCC);
  CHECK_CONTAINS(log, "optimising compile of 'scale' failed");
  CHECK_CONTAINS(log, "ignores SIGCHLD");

  snprintf(dir, sizeof dir, "%s/cc", base);
  CHECK_EQ_INT(run(dir, "cc", 2, log, sizeof log), OP2_TIER_TCC);
  CHECK_CONTAINS(log, "optimising compile of 'scale' failed");

  CHECK(signal(SIGCHLD, SIG_DFL) != SIG_ERR); /* system() must see its child end */
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
  CHECK(system(cmd) == 0);
  return 0;
}
