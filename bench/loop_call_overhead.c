/* SPDX-License-Identifier: BSD-3-Clause */
/* The fixed cost of one op_par_loop call, without MPI: a direct loop over 1 element (nothing but
 * the call's own work: finding the loop, binding the data, running the backend) and over 10,000
 * elements (what multigrid's coarse levels are made of), on the seq and openmp backends, beside
 * a plain `#pragma omp parallel for` over the same 10,000 elements compiled into this program
 * (its rounds interleaved with the openmp backend's). Each figure is the best of 5 rounds of N
 * calls (a busy machine slows some rounds, never speeds one up). Kernels are built by the system
 * compiler at once (OP2_JIT=cc) into a fresh cache that is removed afterwards, so every call runs
 * optimised code.
 *
 * usage: loop_call_overhead [N]        (N calls a round, default 20000) */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "op2.h"

#define ROUNDS 5
#define LARGE 10000

static const char *inc = "static void inc(double *x) { x[0] += 1.0; }";

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The same work as the 10,000-element loop, written as a plain OpenMP loop: n calls, seconds. */
static double run_plain_omp(double *x, int n) {
  double t0 = now();
  for (int i = 0; i < n; i++) {
#pragma omp parallel for
    for (int e = 0; e < LARGE; e++) x[e] += 1.0;
  }
  return now() - t0;
}

/* Seconds a call of op_par_loop on `set`, best of ROUNDS rounds of n calls. With `plain`, each
 * round also times the plain OpenMP loop right after (best in *plain_best): interleaved, a slow
 * spell of a shared machine falls on both alike. */
static double time_loop(op_set set, op_dat x, int n, double *plain, double *plain_best) {
  for (int i = 0; i < 200; i++) /* compiled, planned and warm */
    op_par_loop(inc, "inc", set, op_arg_dat(x, -1, OP_ID, 1, "double", OP_RW));
  double best = 1e30;
  if (plain) *plain_best = 1e30;
  for (int round = 0; round < ROUNDS; round++) {
    double t0 = now();
    for (int i = 0; i < n; i++)
      op_par_loop(inc, "inc", set, op_arg_dat(x, -1, OP_ID, 1, "double", OP_RW));
    double t = (now() - t0) / n;
    if (t < best) best = t;
    if (plain) {
      t = run_plain_omp(plain, n) / n;
      if (t < *plain_best) *plain_best = t;
    }
  }
  return best;
}

/* Both loops on one backend: `per_call[0]` the 1-element loop, `per_call[1]` the 10,000-element
 * one, in seconds. Returns 0 when every element saw every call. */
static int run_backend(const char *backend, const char *cache_dir, int n, double per_call[2],
                       double *plain, double *plain_best) {
  char opt_backend[64], opt_cache[4200];
  snprintf(opt_backend, sizeof opt_backend, "OP2_BACKEND=%s", backend);
  snprintf(opt_cache, sizeof opt_cache, "OP2_CACHE_DIR=%s", cache_dir);
  char *argv[] = {"loop_call_overhead", opt_backend, "OP2_JIT=cc", "OP2_TUNE=off", opt_cache, NULL};
  op_init(5, argv, 0);
  op_set one = op_decl_set(1, "one"), large = op_decl_set(LARGE, "large");
  op_dat x1 = op_decl_dat(one, 1, "double", NULL, "x1");
  op_dat xl = op_decl_dat(large, 1, "double", NULL, "xl");
  per_call[0] = time_loop(one, x1, n, NULL, NULL);
  per_call[1] = time_loop(large, xl, n, plain, plain_best);
  double calls = 200.0 + (double)ROUNDS * n, got1 = 0, *gotl = malloc(LARGE * sizeof *gotl);
  op_fetch_data(x1, &got1);
  op_fetch_data(xl, gotl);
  int bad = got1 != calls || !gotl || gotl[0] != calls || gotl[LARGE - 1] != calls;
  free(gotl);
  op_exit();
  return bad;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 20000;
  if (n < 1) return fprintf(stderr, "usage: %s [N]\n", argv[0]), 2;
  const char *tmp = getenv("TMPDIR");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/op2-call-overhead-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) return perror("mkdtemp"), 1;

  double seq[2], omp[2];
  double *x = calloc(LARGE, sizeof *x), plain = 0;
  if (!x) return perror("calloc"), 1;
  int rc = run_backend("seq", dir, n, seq, NULL, NULL);
  rc |= run_backend("openmp", dir, n, omp, x, &plain);
  if (x[0] != (double)ROUNDS * n) rc = 1;
  free(x);

  printf("op_par_loop call overhead, %d calls a round, best of %d rounds, %d OpenMP threads\n", n,
         ROUNDS, omp_get_max_threads());
  printf("  1 element,      seq:    %8.1f ns a call\n", 1e9 * seq[0]);
  printf("  1 element,      openmp: %8.1f ns a call   (openmp/seq %.2f)\n", 1e9 * omp[0],
         omp[0] / seq[0]);
  printf("  %d elements, seq:    %8.2f us a call\n", LARGE, 1e6 * seq[1]);
  printf("  %d elements, openmp: %8.2f us a call   (openmp/plain OpenMP %.2f)\n", LARGE,
         1e6 * omp[1], omp[1] / plain);
  printf("  %d elements, plain `#pragma omp parallel for`: %8.2f us a call\n", LARGE, 1e6 * plain);
  if (rc) fprintf(stderr, "loop_call_overhead: a loop did not run every call\n");

  char cmd[4200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) rc = 1;
  return rc;
}
