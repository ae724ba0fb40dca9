/* SPDX-License-Identifier: BSD-3-Clause */
/* How the cost of loading a kernel from a warm disk cache grows with the kernels already loaded.
 * A first process (forked, so nothing of it stays loaded) warms a fresh cache with N distinct
 * kernels (default 3000, TinyCC only); a second loads every one of them from disk and reports the
 * mean cost of a loop's first call for the first and the last 500 kernels, in wall time and in the
 * thread's CPU time (which other work on a shared machine does not inflate), and their ratio. A
 * loader whose cost per kernel is constant shows a ratio near 1; Hydra-sized programs load
 * thousands.
 *
 * With BLOCK, it also prints the mean CPU time per kernel of each block of BLOCK kernels, to see
 * where a loader's cost starts to grow (OP2_LOADER=dlopen against direct: where the default
 * OP2_LOADER=auto hands over to the direct loader, docs/CACHE.md).
 *
 * usage: kernel_loads [N [CACHE_PARENT_DIR [BLOCK]]]      (the cache is removed afterwards) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "op2.h"

static double clock_s(clockid_t id) {
  struct timespec t;
  clock_gettime(id, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static double now(void) {
  return clock_s(CLOCK_MONOTONIC);
}

/* Runs kernels 0..n-1 once each; `cost[k]` and `cpu[k]` get the wall and CPU seconds of kernel
 * k's first call. */
static int run_all(int n, double *cost, double *cpu) {
  op_init(0, NULL, 0);
  op_set s = op_decl_set(4, "cells");
  op_dat x = op_decl_dat(s, 1, "double", NULL, "x");
  for (int k = 0; k < n; k++) {
    char src[200], name[32];
    snprintf(name, sizeof name, "set%d", k);
    snprintf(src, sizeof src, "void %s(double *x) { x[0] = %d.0; }\n", name, k + 1);
    double t0 = now(), c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
    op_par_loop(src, name, s, op_arg_dat(x, -1, OP_ID, 1, "double", OP_WRITE));
    if (cost) cost[k] = now() - t0, cpu[k] = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
  }
  double got[4];
  op_fetch_data(x, got);
  op_exit();
  return got[0] == n ? 0 : 1;
}

static double mean_ms(const double *v, int from, int to) {
  double sum = 0;
  for (int i = from; i < to; i++) sum += v[i];
  return to > from ? 1e3 * sum / (to - from) : 0;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 3000;
  const char *parent = argc > 2 && *argv[2] ? argv[2] : getenv("TMPDIR");
  int block = argc > 3 ? atoi(argv[3]) : 0;
  if (n < 1) return fprintf(stderr, "usage: %s [N [CACHE_PARENT_DIR]]\n", argv[0]), 2;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/op2-kernel-loads-XXXXXX", parent && *parent ? parent : "/tmp");
  if (!mkdtemp(dir)) return perror("mkdtemp"), 1;
  setenv("OP2_CACHE_DIR", dir, 1);
  setenv("OP2_JIT", "tcc", 1);
  setenv("OP2_BACKEND", "seq", 1);

  double t0 = now();
  pid_t child = fork();
  if (child == 0) _exit(run_all(n, NULL, NULL));
  int status = 0;
  if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0)
    return fprintf(stderr, "the cold run failed\n"), 1;
  double cold = now() - t0;

  double *cost = calloc((size_t)n, sizeof *cost), *cpu = calloc((size_t)n, sizeof *cpu);
  if (!cost || !cpu) return fprintf(stderr, "out of memory\n"), 1;
  t0 = now();
  int rc = run_all(n, cost, cpu);
  double warm = now() - t0;
  int w = n < 500 ? n : 500;
  double first = mean_ms(cost, 0, w), last = mean_ms(cost, n - w, n);
  double cfirst = mean_ms(cpu, 0, w), clast = mean_ms(cpu, n - w, n);
  printf(
      "kernel loads: %d kernels, cold run %.2f s, warm run %.2f s; warm first call per kernel: "
      "first %d %.3f ms, last %d %.3f ms (x%.2f); CPU first %.3f ms, last %.3f ms (x%.2f)\n",
      n, cold, warm, w, first, w, last, last / first, cfirst, clast, clast / cfirst);
  for (int b = 0; block > 0 && b < n; b += block)
    printf("kernels %d-%d: CPU %.3f ms per kernel\n", b + 1, b + block < n ? b + block : n,
           mean_ms(cpu, b, b + block < n ? b + block : n));
  free(cost), free(cpu);
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) rc = 1;
  return rc;
}
