/* SPDX-License-Identifier: BSD-3-Clause */
/* Loading kernels from a warm cache costs each one a constant amount of work, not work that
 * grows with the kernels already loaded. Each kernel is loaded from its verified descriptor
 * (/proc/self/fd/N) and descriptor numbers are reused: a loader that asked /proc/self/maps who
 * holds every taken name read it once per loaded kernel for each new one, O(kernels^2) reads,
 * up to 1.5 ms per loop. Nor dlopen: glibc's walks the list of every object loaded before (and
 * was called twice a kernel), so past a few hundred kernels (OP2_LOADER=auto; all of them with
 * OP2_LOADER=direct) kernels are mapped by the library's direct loader, which opens only their
 * needed libraries, once each. A first process warms the cache with 20 distinct kernels, a
 * second loads all 20 from disk; this file's fopen and dlopen count the reads of /proc/self/maps
 * and the calls of dlopen in each. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jit/jit.h"
#include "runtime/op2_impl.h"
#include "test.h"

enum { NKERNELS = 20 };

static int maps_reads, dlopens; /* this test's own interposer state, not the library's */

void *dlopen(const char *path, int flags) {
  void *(*real)(const char *, int) = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
  dlopens++;
  return real(path, flags);
}

FILE *fopen(const char *path, const char *mode) {
  FILE *(*real)(const char *, const char *) =
      (FILE * (*)(const char *, const char *)) dlsym(RTLD_NEXT, "fopen");
  if (path && strcmp(path, "/proc/self/maps") == 0) maps_reads++;
  return real(path, mode);
}

/* Runs the 20 loops and checks their results; returns the library's disk hits. */
static int run_all(void) {
  op_init(0, NULL, 0);
  enum { N = 8 };
  op_set s = op_decl_set(N, "cells");
  op_dat x = op_decl_dat(s, 1, "double", NULL, "x");
  for (int k = 0; k < NKERNELS; k++) {
    char src[200], name[32];
    snprintf(name, sizeof name, "set%d", k);
    snprintf(src, sizeof src, "void %s(double *x) { x[0] = %d.0; }\n", name, k + 1);
    op_par_loop(src, name, s, op_arg_dat(x, -1, OP_ID, 1, "double", OP_WRITE));
    double got[N];
    op_fetch_data(x, got);
    for (int i = 0; i < N; i++) CHECK_EQ_INT(got[i] == k + 1, 1);
  }
  int hits = op2_ctx()->jit.disk_hits;
  op_exit();
  return hits;
}

int main(void) {
  const char *tmp = getenv("OP2_TEST_TMPDIR");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/op2-warm-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  CHECK(mkdtemp(dir) != NULL);
  CHECK(setenv("OP2_CACHE_DIR", dir, 1) == 0);

  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) { /* the cold run, in its own process: nothing of it stays loaded */
    run_all();
    _exit(0);
  }
  int status = 0;
  CHECK(waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);

  maps_reads = dlopens = 0;
  CHECK(setenv("OP2_LOADER", "direct", 1) == 0);
  CHECK_EQ_INT(run_all(), NKERNELS); /* every kernel came from the disk cache */
  fprintf(stderr, "/proc/self/maps read %d times, dlopen called %d times for %d kernels\n",
          maps_reads, dlopens, NKERNELS);
  CHECK(maps_reads <= 2);
  CHECK(dlopens <= 3); /* libc and libm at most, whatever the number of kernels */

  /* OP2_LOADER=dlopen (for gdb and perf), and the default for a program's first few hundred
   * kernels: every kernel through glibc, the same results */
  CHECK(setenv("OP2_LOADER", "dlopen", 1) == 0);
  dlopens = 0;
  CHECK_EQ_INT(run_all(), NKERNELS);
  CHECK(dlopens >= NKERNELS);
  CHECK(unsetenv("OP2_LOADER") == 0);
  dlopens = 0;
  CHECK_EQ_INT(run_all(), NKERNELS);
  CHECK(dlopens >= NKERNELS);

  char cmd[4200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
  return 0;
}
