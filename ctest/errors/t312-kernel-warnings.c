/* SPDX-License-Identifier: BSD-3-Clause */
/* Kernel warnings that point at real bugs are shown at OP2_DIAGS=1, once per loop, at the kernel's
 * own line (kernel:NAME:LINE:COL) and naming the loop; at OP2_DIAGS=0 nothing is said. They come
 * from the kernel's optimised build (each run here waits for its builds), which keeps them in a
 * record: the first run at OP2_DIAGS=1 after a quiet one that built the kernels says them in
 * full, a later process gets one line per such kernel from the record, and no check. An op_arg_idx
 * argument the kernel takes as `int *` is no "OP_READ but not a pointer to const". A C++ kernel
 * (built by the C++ tier) gets no C compile's nonsense about its C++. A record that cannot be kept
 * is said at OP2_DIAGS=1. Each case runs in a child process whose stderr is captured. */
#include "errors_util.h"
#include "runtime/jit_use.h"
#include "runtime/op2_impl.h"

/* Line 2: getpid has no declaration in the kernel's file. */
static const char implicit_src[] =
    "static void implicit(double *x) {\n"
    "  x[0] += 0.0 * getpid();\n"
    "}\n";
/* Line 2: a comparison whose value is thrown away (meant `=`). */
static const char unused_src[] =
    "static void unused(double *x) {\n"
    "  x[0] == 1.0;\n"
    "}\n";
/* Line 3: y is read before it is set. */
static const char uninit_src[] =
    "static void uninit(double *x) {\n"
    "  double y;\n"
    "  x[0] += y;\n"
    "}\n";

static const struct {
  const char *src, *name, *where, *what;
} cases[] = {
    {implicit_src, "implicit", "loop 'implicit': kernel:implicit:2:", "getpid"},
    {unused_src, "unused", "loop 'unused': kernel:unused:2:", "[-Wunused-value]"},
    {uninit_src, "uninit", "loop 'uninit': kernel:uninit:3:", "uninitialized"},
};

static int count(const char *text, const char *what) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, what)); p += strlen(what)) n++;
  return n;
}

/* Each loop three times, at OP2_DIAGS=diags. */
static void calls(const void *diags) {
  setenv("OP2_DIAGS", diags, 1);
  op_init(0, NULL, 0);
  op_set s = op_decl_set(4, "cells");
  double v[4] = {0};
  op_dat d = op_decl_dat(s, 1, "double", v, "x");
  for (int call = 0; call < 3; call++)
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
      op_par_loop(cases[i].src, cases[i].name, s, op_arg_dat(d, -1, OP_ID, 1, "double", OP_RW));
  op_par_loop("void with_idx(double *x, int *i) { x[0] = i[0]; }\n", "with_idx", s,
              op_arg_dat(d, -1, OP_ID, 1, "double", OP_WRITE), op_arg_idx(-1, OP_ID));
  op_par_loop("static void cxx_only(double *x) { auto y = x[0] * 1.5; x[0] = y; }\n", "cxx_only", s,
              op_arg_dat(d, -1, OP_ID, 1, "double", OP_RW));
  test_run_queued();
  op2_jit_wait_all(op2_ctx()); /* the optimised builds, which bring the warnings */
  op_exit();
}

/* What the calls printed, run in a child process that must exit 0. */
static char *run(const char *diags) {
  char *err;
  int status = eu_in_child(calls, diags, &err);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return err;
}

int main(void) {
  /* a fresh cache: the first run with OP2_DIAGS=1 checks */
  char cache[] = "/tmp/op2-t312-XXXXXX", rm[64];
  CHECK(mkdtemp(cache) != NULL && setenv("OP2_CACHE_DIR", cache, 1) == 0);
  snprintf(rm, sizeof rm, "rm -rf %s", cache);
  char *quiet = run("0");
  char *told = run("1");
  char *again = run("1");
  CHECK(system(rm) == 0);
  /* A record that cannot be written (ROOT/warnings is a file) is said, not skipped silently. */
  CHECK(mkdtemp(strcpy(cache, "/tmp/op2-t312-XXXXXX")) != NULL &&
        setenv("OP2_CACHE_DIR", cache, 1) == 0);
  char blocker[64];
  snprintf(blocker, sizeof blocker, "%s/warnings", cache);
  FILE *f = fopen(blocker, "w");
  CHECK(f != NULL && fclose(f) == 0);
  snprintf(rm, sizeof rm, "rm -rf %s", cache);
  char *unkept = run("1");
  CHECK(system(rm) == 0);
  CHECK_EQ_INT(count(unkept, cases[0].where), 1); /* the check itself still ran */
  CHECK_CONTAINS(unkept, "loop 'implicit': the warnings check's result is not kept (");
  CHECK_CONTAINS(unkept, "/warnings");
  free(unkept);
  CHECK(!strstr(told, "is OP_READ but"));
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    CHECK(!strstr(quiet, cases[i].where));
    /* one line: at the kernel's line, naming the loop and the warning, once for three calls */
    CHECK_EQ_INT(count(told, cases[i].where), 1);
    const char *line = strstr(told, cases[i].where);
    const char *end = strchr(line, '\n');
    CHECK(end != NULL);
    char text[1000];
    snprintf(text, sizeof text, "%.*s", (int)(end - line), line);
    CHECK_CONTAINS(text, cases[i].what);
    /* the second process: the record's count, not the check's lines */
    CHECK(!strstr(again, cases[i].where));
    snprintf(text, sizeof text,
             "loop '%s': 1 compiler warning about its kernel when it was first "
             "checked",
             cases[i].name);
    CHECK_EQ_INT(count(again, text), 1);
  }
  CHECK(!strstr(again, "'with_idx': ") || !strstr(strstr(again, "'with_idx': "), "warning"));
  CHECK(!strstr(told, "loop 'cxx_only': kernel:") && !strstr(again, "loop 'cxx_only': 1"));
  printf("at OP2_DIAGS=1:\n%s\nagain:\n%s", told, again);
  free(quiet), free(told), free(again);
  return 0;
}
