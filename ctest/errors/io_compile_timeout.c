/* SPDX-License-Identifier: BSD-3-Clause */
/* Child compilers run under a time limit (OP2_COMPILE_TIMEOUT, issue 24 item 3). With a compiler
 * that never returns (a script that sleeps), or one whose grandchild keeps its output pipe open:
 *   - OP2_CC hanging, tiered: the loop runs on TinyCC's code, and the program ends in bounded time;
 *   - OP2_CC hanging, OP2_JIT=cc: the loop still runs (TinyCC's code) or fails with a message
 *     naming the compiler and the limit, in bounded time;
 *   - OP2_CXX hanging, a C++ kernel: the loop fails with a message naming the compiler and the
 *     limit, in bounded time;
 *   - a compiler that works but leaves a grandchild holding the pipe: the kernel is built and the
 *     loop runs at once, without waiting for the grandchild.
 * Each case runs in a child process (its own options); usage: io_compile_timeout */
#include <errno.h>
#include <signal.h>
#include <time.h>

#include "errors_util.h"

static char dir[4096], sleeper[4200], lingerer[4200];

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void script(const char *path, const char *body) {
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  fprintf(f, "#!/bin/sh\n%s", body);
  CHECK(fclose(f) == 0);
  CHECK(chmod(path, 0755) == 0);
}

typedef struct run_case {
  const char *jit, *cc, *cxx, *kernel, *name;
  int expect_ok; /* 1 runs, 0 fails, -1 either (then the message is checked when it fails) */
} run_case;

static int errors_seen;

/* Every error is printed (the parent checks the messages) and counted. */
static void print_error(const char *message, void *user) {
  (void)user;
  errors_seen++;
  fprintf(stderr, "op2 error: %s\n", message);
}

static void body(const void *arg) {
  const run_case *c = arg;
  setenv("OP2_COMPILE_TIMEOUT", "2", 1);
  setenv("OP2_JIT", c->jit, 1);
  setenv("OP2_CC", c->cc, 1);
  setenv("OP2_CXX", c->cxx, 1);
  setenv("OP2_CACHE", "off", 1);
  char *argv[] = {"io_compile_timeout", NULL};
  op_init(1, argv, 0);
  op_set_error_handler(print_error, NULL);
  op_set s = op_decl_set(3, "s");
  double v[3] = {1, 2, 3}, got[3] = {0, 0, 0};
  op_dat d = op_decl_dat(s, 1, "double", v, "v");
  op_par_loop(c->kernel, c->name, s, op_arg_dat(d, -1, OP_ID, 1, "double", OP_RW));
  test_run_queued(); /* lazy execution: the queued call compiles and runs now */
  int failed = errors_seen > 0;
  if (!failed) {
    op_fetch_data(d, got);
    for (int i = 0; i < 3; i++) CHECK(got[i] == 2 * v[i] + 1);
  }
  fprintf(stderr, "loop %s\n", failed ? "failed" : "ran");
  op_exit(); /* waits for the background tier: bounded too */
}

static void check_case(const run_case *c, double max_seconds) {
  double t0 = now();
  char *err;
  int status = eu_in_child(body, c, &err);
  double took = now() - t0;
  fprintf(stderr, "case %s (OP2_JIT=%s): %.2f s\n%s", c->name, c->jit, took, err);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK(took < max_seconds);
  int ran = strstr(err, "loop ran") != NULL;
  if (c->expect_ok >= 0) CHECK_EQ_INT(ran, c->expect_ok);
  if (!ran) {
    CHECK_CONTAINS(err, "did not finish within 2 s");
    CHECK_CONTAINS(err, strcmp(c->cxx, "off") ? c->cxx : c->cc);
  }
  free(err);
}

int main(void) {
  eu_make_scratch(dir, sizeof dir, "compile-timeout");
  snprintf(sleeper, sizeof sleeper, "%s/sleeping-cc", dir);
  snprintf(lingerer, sizeof lingerer, "%s/lingering-cc", dir);
  /* exec: the sleep is the child itself; its group is what is killed */
  script(sleeper, "exec sleep 1000\n");
  /* a grandchild in the background holding stdout and stderr, then the real compiler */
  script(lingerer, "sleep 1000 &\nexec cc \"$@\"\n");

  static const char *c_kernel = "void twice(double *v) { v[0] = 2 * v[0] + 1; }\n";
  static const char *cxx_kernel =
      "void twice_cxx(double *v) { double &r = v[0]; r = 2 * r + 1; }\n";
  const run_case cases[] = {
      {"tiered", sleeper, "off", c_kernel, "twice", 1},
      {"cc", sleeper, "off", c_kernel, "twice", -1},
      {"tcc", "cc", sleeper, cxx_kernel, "twice_cxx", 0},
      {"cc", lingerer, "off", c_kernel, "twice", 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_case(&cases[i], 8.0);
  eu_remove_tree(dir);
  printf("io_compile_timeout: ok\n");
  return 0;
}
