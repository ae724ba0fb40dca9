/* SPDX-License-Identifier: BSD-3-Clause */
/* Eight processes start together on one empty cache and run the same loops: each entry is built
 * once, by whichever process takes its build lock first; the others wait for the lock and load
 * what it stored. No process refuses another's half-written entry ("manifest.json is missing;
 * building it again") and none builds a kernel a second time. Counted from each process's own
 * counters (compiles, disk hits, refused entries) and its OP2_DIAGS=1 output.
 * OP2_TEST_JIT picks the JIT mode (default tcc: one entry per kernel). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jit/jit.h"
#include "runtime/op2_impl.h"
#include "test.h"

enum { NPROC = 8, NKERNELS = 10 };

static int run_child(const char *dir, int go_fd, int i) {
  char log[4200], out[4200];
  snprintf(log, sizeof log, "%s/log%d.txt", dir, i);
  snprintf(out, sizeof out, "%s/counts%d.txt", dir, i);
  if (!freopen(log, "w", stderr)) return 2;
  setvbuf(stderr, NULL, _IONBF, 0); /* freopen made it buffered, and the child ends in _exit */
  char c;
  if (read(go_fd, &c, 1) != 0) return 3; /* every process waits here until the pipe closes */
  op_init(0, NULL, getenv("RACE_DIAGS") ? 2 : 1);
  op_set s = op_decl_set(16, "cells");
  op_dat x = op_decl_dat(s, 1, "double", NULL, "x");
  for (int k = 0; k < NKERNELS; k++) {
    char src[200], name[32];
    snprintf(name, sizeof name, "race%d", k);
    snprintf(src, sizeof src, "void %s(double *x) { x[0] = %d.0 + x[0] * 0.0; }\n", name, k + 1);
    op_par_loop(src, name, s, op_arg_dat(x, -1, OP_ID, 1, "double", OP_RW));
    double got[16];
    op_fetch_data(x, got);
    for (int e = 0; e < 16; e++)
      if (got[e] != k + 1) return 4;
  }
  op2_jit_counters n = op2_ctx()->jit;
  op_exit();
  FILE *f = fopen(out, "w");
  if (!f) return 5;
  fprintf(f, "%d %d %d\n", n.compiles, n.disk_hits, n.disk_rejects);
  return fclose(f) == 0 ? 0 : 6;
}

int main(void) {
  const char *tmp = getenv("OP2_TEST_TMPDIR"), *jit = getenv("OP2_TEST_JIT");
  char dir[4096], cache[4200];
  snprintf(dir, sizeof dir, "%s/op2-race-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  CHECK(mkdtemp(dir) != NULL);
  snprintf(cache, sizeof cache, "%s/cache", dir);
  CHECK(setenv("OP2_CACHE_DIR", cache, 1) == 0);
  CHECK(setenv("OP2_JIT", jit && *jit ? jit : "tcc", 1) == 0);
  CHECK(setenv("OP2_BACKEND", "seq", 1) == 0);
  int go[2];
  CHECK(pipe(go) == 0);
  pid_t pids[NPROC];
  for (int i = 0; i < NPROC; i++) {
    fflush(NULL);
    pids[i] = fork();
    CHECK(pids[i] >= 0);
    if (pids[i] == 0) {
      close(go[1]);
      _exit(run_child(dir, go[0], i));
    }
  }
  close(go[0]);
  close(go[1]); /* all start */
  int compiles = 0, hits = 0, rejects = 0, refusals = 0;
  for (int i = 0; i < NPROC; i++) {
    int status = 0;
    CHECK(waitpid(pids[i], &status, 0) == pids[i]);
    char path[4200];
    snprintf(path, sizeof path, "%s/log%d.txt", dir, i);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    char line[4096];
    while (fgets(line, sizeof line, f)) {
      if (strstr(line, "refused") || strstr(line, "building it again")) {
        refusals++;
        fprintf(stderr, "process %d: %s", i, line);
      }
    }
    fclose(f);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      fprintf(stderr, "process %d ended with status %d\n", i, status);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    snprintf(path, sizeof path, "%s/counts%d.txt", dir, i);
    f = fopen(path, "r");
    CHECK(f != NULL);
    int c = 0, h = 0, r = 0;
    CHECK(fscanf(f, "%d %d %d", &c, &h, &r) == 3);
    fclose(f);
    compiles += c, hits += h, rejects += r;
  }
  fprintf(stderr,
          "%d processes, %d kernels: compiles %d, disk hits %d, refused %d, refusals "
          "told %d\n",
          NPROC, NKERNELS, compiles, hits, rejects, refusals);
  CHECK_EQ_INT(rejects, 0);
  CHECK_EQ_INT(refusals, 0);
  CHECK_EQ_INT(compiles, NKERNELS);           /* every entry built once */
  CHECK_EQ_INT(hits, (NPROC - 1) * NKERNELS); /* and loaded by every other process */
  char cmd[4300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
  return 0;
}
