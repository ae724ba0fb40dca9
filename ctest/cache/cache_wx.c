/* SPDX-License-Identifier: BSD-3-Clause */
/* W^X: no mapping of the process is writable and executable at once, and the stack is not
 * executable, while kernels are loaded and run, in every loader (argv[1]: OP2_LOADER auto,
 * direct or dlopen; argv[2] "cuda-emu" when the build has it), every cache mode (on, then readonly
 * on what it stored, then off) and every tier: TinyCC, the system compiler, C++ (a kernel using
 * `auto`) and the CUDA emulator's C build (by TinyCC and by the system compiler). Each run is a
 * child process that reads its own /proc/self/maps after its loop ran, before op_exit. Before:
 * TinyCC's in-memory code (OP2_CACHE=off and readonly) left its pages rwx, and dlopen of TinyCC's
 * objects, which had no PT_GNU_STACK header, made every thread's stack executable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"

static const char *const c_kernel = "void wx_c(double *x) { x[0] = 2.0 * x[0] + 1.0; }\n";
static const char *const cxx_kernel =
    "void wx_cxx(double *x) { auto y = x[0]; x[0] = 2.0 * y + 1.0; }\n";

/* The lines of /proc/self/maps that break W^X, printed; their count. */
static int wx_breaks(const char *what) {
  FILE *f = fopen("/proc/self/maps", "r");
  CHECK(f != NULL);
  char line[1024];
  int breaks = 0;
  while (fgets(line, sizeof line, f)) {
    char perms[8] = "";
    if (sscanf(line, "%*s %7s", perms) != 1) continue;
    if ((perms[1] == 'w' && perms[2] == 'x') || (strstr(line, "[stack]") && perms[2] == 'x')) {
      fprintf(stderr, "%s: breaks W^X: %s", what, line);
      breaks++;
    }
  }
  fclose(f);
  return breaks;
}

/* One run in a child: the loop under the given options, its result checked, the maps read. */
static int run(const char *what, const char *backend, const char *jit, const char *cache,
               const char *kernel, const char *name) {
  fflush(NULL);
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    setenv("OP2_BACKEND", backend, 1);
    setenv("OP2_JIT", jit, 1);
    setenv("OP2_CACHE", cache, 1);
    op_init(0, NULL, 1);
    enum { N = 64 };
    double x[N];
    for (int i = 0; i < N; i++) x[i] = i;
    op_set s = op_decl_set(N, "cells");
    op_dat d = op_decl_dat(s, 1, "double", x, "x");
    op_par_loop(kernel, name, s, op_arg_dat(d, -1, OP_ID, 1, "double", OP_RW));
    op_fetch_data(d, x);
    for (int i = 0; i < N; i++) CHECK(x[i] == 2.0 * i + 1.0);
    int breaks = wx_breaks(what);
    op_exit();
    _exit(breaks ? 3 : 0);
  }
  int status = 0;
  CHECK(waitpid(pid, &status, 0) == pid);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    fprintf(stderr, "%s: exit status %d\n", what, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(int argc, char **argv) {
  CHECK(argc >= 3);
  int emu = strcmp(argv[2], "cuda-emu") == 0;
  if (!emu) fprintf(stderr, "no CUDA in this build: the emulator's tiers are not tried\n");
  const char *tmp = getenv("OP2_TEST_TMPDIR");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/op2-wx-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  CHECK(mkdtemp(dir) != NULL);
  CHECK(setenv("OP2_CACHE_DIR", dir, 1) == 0);
  CHECK(setenv("OP2_LOADER", argv[1], 1) == 0);
  CHECK(setenv("OP2_DIAGS", "0", 1) == 0);
  static const char *const caches[] = {"on", "readonly", "off"};
  static const struct {
    const char *label, *backend, *jit, *kernel, *name;
  } tiers[] = {{"TinyCC", "seq", "tcc", NULL, "wx_c"},
               {"cc", "seq", "cc", NULL, "wx_c"},
               {"C++", "seq", "cc", NULL, "wx_cxx"},
               {"cuda-emu TinyCC", "cuda-emu", "tcc", NULL, "wx_c"},
               {"cuda-emu cc", "cuda-emu", "cc", NULL, "wx_c"}};
  int failed = 0;
  for (size_t c = 0; c < sizeof caches / sizeof *caches; c++)
    for (size_t t = 0; t < sizeof tiers / sizeof *tiers; t++) {
      if (!emu && strcmp(tiers[t].backend, "cuda-emu") == 0) continue;
      char what[200];
      snprintf(what, sizeof what, "OP2_LOADER=%s OP2_CACHE=%s %s", argv[1], caches[c],
               tiers[t].label);
      const char *kernel = strcmp(tiers[t].name, "wx_cxx") == 0 ? cxx_kernel : c_kernel;
      int ok = run(what, tiers[t].backend, tiers[t].jit, caches[c], kernel, tiers[t].name);
      fprintf(stderr, "%s: %s\n", what, ok ? "no mapping writable and executable" : "FAILED");
      failed += !ok;
    }
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
  CHECK_EQ_INT(failed, 0);
  return 0;
}
