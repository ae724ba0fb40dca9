/* SPDX-License-Identifier: BSD-3-Clause */
/* A program's first run (issue 34.8): what stands between its first calls and optimised code.
 *   one-compile   at OP2_DIAGS=1 each kernel is compiled once by the system compiler, its
 *                 optimised build, which also gives the warnings check's warnings: no second
 *                 compile per kernel for the check, on the first call's path
 *   flags-refused a compiler that refuses the warning flags the optimised build is compiled with
 *                 (clang refused -fno-diagnostics-show-caret) still builds every kernel
 *   heavy-first   the background tier builds next the kernel that has run longest on TinyCC
 *                 code from its second call on, not the one queued first: a loop called on and
 *                 on over a big set is built before set-up loops called once and queued
 *                 earlier, even one whose single call took longer than all of its calls
 *   diags2-short  OP2_DIAGS=2 says one short line per kernel when it is ready, one when its
 *                 optimised code is in use, and one per plan; a run that ends before its builds
 *                 says one line for those it did not start, not one per kernel
 * The system compiler is a script named `cc` first on PATH that writes down the file it is given
 * (its last argument) and runs the real one. */
#include "cache_test.h"
#include "runtime/jit_use.h"
#include "runtime/op2_impl.h"

static char *fake_dir, *calls_log;

static void fake_cc(const char *before) {
  fake_dir = ct_str("%s/bin", ct_base);
  calls_log = ct_str("%s/calls", fake_dir);
  CHECK(mkdir(fake_dir, 0700) == 0);
  char *path = ct_str("%s/cc", fake_dir);
  char *text = ct_str(
      "#!/bin/sh\n"
      "for src in \"$@\"; do :; done\n"
      "echo \"${src##*/}\" >> '%s'\n"
      "%s\n"
      "exec /usr/bin/cc \"$@\"\n",
      calls_log, before);
  ct_write(path, text, strlen(text));
  CHECK(chmod(path, 0700) == 0);
}

static char *path_env(void) {
  return ct_str("PATH=%s:%s", fake_dir, getenv("PATH"));
}

static int count(const char *text, const char *what) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, what)) != NULL; p += strlen(what)) n++;
  return n;
}

static void one_compile(void) {
  fake_cc("");
  char *root = ct_str("%s/c", ct_base);
  CHECK(setenv("OP2_TEST_JIT", "tiered", 1) == 0);
  const char *env[] = {path_env(), "OP2_CC", "OP2_CFLAGS", NULL}, *args[] = {"wait=1", NULL};
  ct_prog_env(root, NULL, env, args); /* OP2_DIAGS=1 */
  char *calls = ct_read(calls_log, NULL);
  fprintf(stderr, "the compiler was given:\n%s", calls);
  CHECK_EQ_INT(ct_count_lines(calls), CT_NKERNELS);
  const char *kernels[] = {"init.c", "spread.c", "fill.c", "total.c"};
  for (int i = 0; i < CT_NKERNELS; i++) CHECK_EQ_INT(count(calls, kernels[i]), 1);
}

static void flags_refused(void) {
  fake_cc(
      "for a in \"$@\"; do case \"$a\" in -W*) echo \"cc: error: unknown argument: '$a'\" >&2; "
      "exit 1;; esac; done");
  char *root = ct_str("%s/c", ct_base);
  CHECK(setenv("OP2_TEST_JIT", "tiered", 1) == 0);
  const char *env[] = {path_env(), "OP2_CC", "OP2_CFLAGS", NULL}, *args[] = {"wait=1", NULL};
  ct_prog_env(root, NULL, env, args);
  const char *all[] = {ct_str("OP2_CACHE_DIR=%s", root),
                       "OP2_JIT=tiered",
                       "OP2_DIAGS=0",
                       path_env(),
                       "OP2_CC",
                       NULL};
  ct_output out = ct_spawn(ct_prog_path, NULL, all, 1);
  fprintf(stderr, "---- again:\n%s", out.text);
  CHECK_EQ_INT(out.status, 0);
  /* every kernel's optimised build was in the cache and ran its one call (calls tcc/opt 0/1):
   * nothing compiled, nothing failed before, nothing left on TinyCC code */
  CHECK_CONTAINS(out.text, "kernels compiled 0, from disk cache 4");
  CHECK_CONTAINS(out.text, "optimised builds 0, failed 0");
  CHECK_EQ_INT(count(out.text, " 0/1  disk cache"), CT_NKERNELS);
  CHECK(!strstr(out.text, "TinyCC code"));
  CHECK(!strstr(out.text, "failed before"));
}

/* ---- heavy-first: this file is also the program (--program) ---- */
enum { HEAVY_N = 200000, HEAVY_CALLS = 40 };

static void program(void) {
  op_init(0, NULL, 0);
  op_set small = op_decl_set(10, "small"), big = op_decl_set(HEAVY_N, "big");
  op_dat a = op_decl_dat(small, 1, "double", NULL, "a");
  op_dat b = op_decl_dat(big, 1, "double", NULL, "b");
  /* queued first; its build (slowed down by the compiler script) keeps the worker busy while the
   * two others are queued and run */
  op_par_loop("void first(double *x) { x[0] = 1.0; }", "first", small,
              op_arg_dat(a, -1, OP_ID, 1, "double", OP_WRITE));
  op_par_loop(
      "void setup(double *x) {\n"
      "  double s = 0;\n"
      "  for (int i = 0; i < 20; i++) s += sin(s + i);\n"
      "  x[0] = s * 1e-300;\n"
      "}\n",
      "setup", big, op_arg_dat(b, -1, OP_ID, 1, "double", OP_WRITE));
  op_par_loop("void light(double *x) { x[0] += 2.0; }", "light", small,
              op_arg_dat(a, -1, OP_ID, 1, "double", OP_RW));
  for (int i = 0; i < HEAVY_CALLS; i++)
    op_par_loop("void heavy(double *x) { x[0] = x[0] * 0.5 + 1.0; }", "heavy", big,
                op_arg_dat(b, -1, OP_ID, 1, "double", OP_RW));
  double v[10];
  op_fetch_data(a, v);
  CHECK(v[9] == 3.0);
  op2_jit_wait_all(op2_ctx());
  op_exit();
}

static void heavy_first(const char *self) {
  /* the first build takes three seconds: the others wait in the queue meanwhile */
  fake_cc("case \"$src\" in */first.c) sleep 3;; esac");
  const char *env[] = {ct_str("OP2_CACHE_DIR=%s/c", ct_base),
                       "OP2_JIT=tiered",
                       "OP2_DIAGS=0",
                       "OP2_BACKEND=seq",
                       path_env(),
                       "OP2_CC",
                       NULL};
  const char *args[] = {"--program", NULL};
  ct_output out = ct_spawn(self, args, env, 1);
  fprintf(stderr, "%s", out.text);
  CHECK_EQ_INT(out.status, 0);
  char *calls = ct_read(calls_log, NULL);
  fprintf(stderr, "built in this order:\n%s", calls);
  CHECK(strcmp(calls, "first.c\nheavy.c\nsetup.c\nlight.c\n") == 0);
}

static void diags2_short(void) {
  fake_cc("");
  char *root = ct_str("%s/c", ct_base);
  const char *env[] = {ct_str("OP2_CACHE_DIR=%s", root),
                       "OP2_JIT=tiered",
                       "OP2_DIAGS=2",
                       path_env(),
                       "OP2_CC",
                       NULL};
  const char *args[] = {"wait=1", NULL};
  for (int run = 0; run < 2; run++) { /* cold, then warm */
    ct_output out = ct_spawn(ct_prog_path, args, env, 1);
    fprintf(stderr, "---- run %d:\n%s", run + 1, out.text);
    CHECK_EQ_INT(out.status, 0);
    int lines = 0, plans = count(out.text, "op2: plan ");
    for (const char *p = out.text; (p = strstr(p, "op2: ")) != NULL; p++) {
      size_t len = strcspn(p, "\n");
      /* the per-kernel and per-plan lines (the others name the cache directory, of any length) */
      if (strncmp(p, "op2: kernel ", 12) == 0 || strncmp(p, "op2: loop ", 10) == 0 ||
          strncmp(p, "op2: plan ", 10) == 0) {
        lines++;
        if (len > 120) fprintf(stderr, "a line of %zu characters: %.*s\n", len, (int)len, p);
        CHECK(len <= 120);
      }
    }
    CHECK(plans >= 1);
    /* ready, then optimised in use (cold); ready (warm) */
    CHECK(lines <= (run == 0 ? 2 : 1) * CT_NKERNELS + plans);
  }
  /* a cold run that does not wait: the builds it leaves, in one line */
  env[0] = ct_str("OP2_CACHE_DIR=%s-nowait", root);
  ct_output out = ct_spawn(ct_prog_path, NULL, env, 1);
  fprintf(stderr, "---- without waiting:\n%s", out.text);
  CHECK_EQ_INT(out.status, 0);
  CHECK(!strstr(out.text, "not started before exit)"));
  CHECK(count(out.text, "not started before exit") <= 1);
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--program") == 0) {
    program();
    return 0;
  }
  ct_setup(argc, argv);
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  CHECK(n > 0);
  self[n] = '\0';
  if (ct_want("one-compile")) one_compile();
  if (ct_want("flags-refused")) flags_refused();
  if (ct_want("heavy-first")) heavy_first(self);
  if (ct_want("diags2-short")) diags2_short();
  ct_cleanup();
  return 0;
}
