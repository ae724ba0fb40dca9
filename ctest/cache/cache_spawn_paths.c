/* SPDX-License-Identifier: BSD-3-Clause */
/* Every path the library gives a tool it runs (the optimising compiler, the C++ compiler, ptxas)
 * lies in a directory the library made: the cache (its entries) or a private directory it made
 * under TMPDIR for that run. Never /dev/null: a compiler that unlinks its output before writing
 * it (TinyCC's command line does) would replace the machine's /dev/null with a regular file,
 * which a later `ptxas -o /dev/null` fills with a CUDA object. Never a file directly in TMPDIR
 * either, whose name another user can guess.
 *
 * The tools are scripts that write down their arguments and run the real tool, or, given a path
 * under /dev, refuse it without running anything: this test never touches the real /dev/null.
 *   cc      OP2_CC and OP2_CXX: tiered with the warnings check (OP2_DIAGS=1), with the cache off
 *           (kernels built in private directories, the check on TinyCC's in-memory kernels), and
 *           a kernel with a syntax error (C++ tried, then the system compiler's syntax check)
 *   ptxas   OP2_CUDA_PTXAS on cuda-emu with OP2_CUDA_EMU_VERIFY, which checks each kernel's PTX
 * with it (skipped in a build without CUDA) */
#include "cache_test.h"

/* A tool that logs its arguments (one a line, "----" after each run) to `log`, refuses any
 * argument under /dev, and then runs `body`. */
static char *fake_tool(const char *dir, const char *name, const char *log, const char *body) {
  char *path = ct_str("%s/%s", dir, name);
  char *text = ct_str(
      "#!/bin/sh\n"
      "{ for a in \"$@\"; do printf '%%s\\n' \"$a\"; done; echo ----; } >> '%s'\n"
      "for a in \"$@\"; do case \"$a\" in /dev/*) echo \"%s: given $a\" >&2; "
      "exit 1;; esac; done\n"
      "%s\n",
      log, name, body);
  ct_write(path, text, strlen(text));
  CHECK(chmod(path, 0700) == 0);
  return path;
}

/* Whether `path` is inside `dir` (a directory path without a trailing slash). */
static int inside(const char *path, const char *dir) {
  size_t n = strlen(dir);
  return strncmp(path, dir, n) == 0 && path[n] == '/';
}

/* Checks every argument of every run in `log` that names a file: it must lie in the cache
 * `root` or in a directory below `tmp` (not directly in `tmp`). Returns the runs seen. */
static int check_paths(const char *log, const char *root, const char *tmp) {
  char *text = ct_read(log, NULL);
  int runs = 0, bad = 0, after_x = 0;
  for (char *line = text, *next; *line; line = next) {
    next = line + strcspn(line, "\n");
    if (*next) *next++ = '\0';
    if (strcmp(line, "----") == 0) {
      runs++, after_x = 0;
      continue;
    }
    int is_lang = after_x; /* the argument of -x (c++) names a language, not a file */
    after_x = strcmp(line, "-x") == 0;
    if (line[0] == '-' || is_lang) continue;
    const char *below = inside(line, tmp) ? line + strlen(tmp) + 1 : NULL;
    int ok = line[0] == '/' && (inside(line, root) || (below && strchr(below, '/')));
    if (!ok)
      fprintf(stderr, "run %d was given '%s': outside %s and below %s\n", runs + 1, line, root,
              tmp);
    bad += !ok;
  }
  free(text);
  CHECK_EQ_INT(bad, 0);
  return runs;
}

static void case_cc(void) {
  char *dir = ct_str("%s/cc", ct_base), *tmp = ct_str("%s/tmp", dir), *root = ct_str("%s/c", dir);
  char *log = ct_str("%s/args.log", dir);
  CHECK(mkdir(dir, 0700) == 0 && mkdir(tmp, 0700) == 0);
  const char *cc = fake_tool(dir, "fake-cc", log, "exec cc \"$@\"");
  const char *cxx = fake_tool(dir, "fake-cxx", log, "exec g++ \"$@\"");
  CHECK(setenv("OP2_TEST_JIT", "tiered", 1) == 0);
  const char *env[] = {ct_str("OP2_CC=%s", cc), ct_str("OP2_CXX=%s", cxx), ct_str("TMPDIR=%s", tmp),
                       NULL};
  const char *wait[] = {"wait=1", NULL};
  ct_prog_env(root, NULL, env, wait); /* OP2_DIAGS=1: the warnings check */
  int runs = check_paths(log, root, tmp);
  CHECK(runs >= CT_NKERNELS); /* the optimised builds at least */
  ct_prog_env(root, "off", env, wait);
  int runs_off = check_paths(log, root, tmp);
  CHECK(runs_off >= runs + CT_NKERNELS);
  /* TinyCC rejects it, so does C++; the system compiler's syntax check then names the line */
  const char *broken[] = {"kernel=broken", NULL};
  const char *all[] = {ct_str("OP2_CACHE_DIR=%s", root),
                       "OP2_DIAGS=1",
                       "OP2_JIT=tiered",
                       env[0],
                       env[1],
                       env[2],
                       NULL};
  ct_output out = ct_spawn(ct_prog_path, broken, all, 1);
  CHECK(out.status != 0);
  CHECK_CONTAINS(out.text, "op_par_loop 'spread': the kernel does not compile");
  CHECK_CONTAINS(out.text, "kernel:spread:2"); /* the syntax check's line */
  CHECK(check_paths(log, root, tmp) >= runs_off + 2);
  free(out.text);
}

static void case_ptxas(void) {
  const char *have = getenv("OP2_TEST_HAVE_CUDA");
  if (!have || strcmp(have, "1") != 0) {
    fprintf(stderr, "built without CUDA: skipped\n");
    exit(CT_SKIP);
  }
  char *dir = ct_str("%s/ptxas", ct_base), *tmp = ct_str("%s/tmp", dir);
  char *root = ct_str("%s/c", dir), *log = ct_str("%s/args.log", dir);
  CHECK(mkdir(dir, 0700) == 0 && mkdir(tmp, 0700) == 0);
  /* writes its output where -o says (never under /dev: refused above) and reports resources */
  const char *ptxas = fake_tool(dir, "fake-ptxas", log,
                                "out=; prev=\n"
                                "for a in \"$@\"; do [ \"$prev\" = -o ] && out=$a; prev=$a; done\n"
                                "[ -n \"$out\" ] && printf 'cubin' > \"$out\"\n"
                                "echo 'ptxas info    : Used 8 registers, 360 bytes cmem[0]'");
  const char *env[] = {"OP2_BACKEND=cuda-emu", "OP2_CUDA_EMU_VERIFY=sm_80",
                       ct_str("OP2_CUDA_PTXAS=%s", ptxas), ct_str("TMPDIR=%s", tmp), NULL};
  ct_prog_env(root, NULL, env, NULL);
  CHECK(check_paths(log, root, tmp) >= CT_NKERNELS);
}

int main(int argc, char **argv) {
  ct_setup(argc, argv);
  if (ct_want("cc")) case_cc();
  if (ct_want("ptxas")) case_ptxas();
  ct_cleanup();
  return 0;
}
