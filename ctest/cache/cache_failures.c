/* SPDX-License-Identifier: BSD-3-Clause */
/* No silent slow path: an optimised build the compiler rejects leaves its loop on TinyCC code.
 * That is said once at OP2_DIAGS=0 (the loop, the compiler, its first error line, what runs
 * instead), recorded in the cache so that the next run does not build the same source with the
 * same compiler and flags again (it says, once, that the loop runs TinyCC code), shown by
 * `op2-cache list`, and forgotten by `op2-cache retry`; other flags are another build, tried.
 * The compiler is a script named `cc` first on PATH (so OP2_CC keeps its default and the message
 * owes nothing to the user having chosen a compiler) that rejects 'spread' and compiles the
 * rest with the real compiler, writing down each kernel it is given.
 *   tiered  the optimised build in the background (OP2_JIT=tiered)
 *   cc      OP2_JIT=cc: the optimised build at once; C++ (a script too) rejects it as well */
#include "cache_test.h"

static char *fake_dir, *calls_log;

/* `name` in fake_dir: logs the file it compiles (its last argument), rejects spread's source (or
 * the C++ tier's wrapper beside it, which includes it) with a compiler's error line, else runs
 * `real`. */
static void fake_compiler(const char *name, const char *real) {
  char *path = ct_str("%s/%s", fake_dir, name);
  char *text = ct_str(
      "#!/bin/sh\n"
      "for src in \"$@\"; do :; done\n"
      "echo \"%s ${src##*/}\" >> '%s'\n"
      "if grep -qs 'aa\\[0\\] += xb\\[0\\]' \"$src\" \"${src%%/*}/spread.c\"; then\n"
      "  echo \"$src:3:5: error: this compiler rejects spread\" >&2; exit 1\n"
      "fi\n"
      "exec %s \"$@\"\n",
      name, calls_log, real);
  ct_write(path, text, strlen(text));
  CHECK(chmod(path, 0700) == 0);
}

/* How many times `what` occurs in `text`. */
static int count(const char *text, const char *what) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, what)) != NULL; p += strlen(what)) n++;
  return n;
}

/* cache_prog at OP2_DIAGS=0 with the fake compilers first on PATH; stdout and stderr. */
static char *run(const char *root, const char *jit, const char *cflags) {
  const char *env[] = {ct_str("OP2_CACHE_DIR=%s", root),
                       ct_str("OP2_JIT=%s", jit),
                       "OP2_DIAGS=0",
                       ct_str("PATH=%s:%s", fake_dir, getenv("PATH")),
                       cflags ? ct_str("OP2_CFLAGS=%s", cflags) : "OP2_CFLAGS",
                       "OP2_CC",
                       "OP2_CXX",
                       NULL};
  const char *args[] = {"wait=1", NULL};
  ct_output out = ct_spawn(ct_prog_path, args, env, 1);
  if (out.status != 0) fprintf(stderr, "cache_prog exited with %d:\n%s\n", out.status, out.text);
  CHECK_EQ_INT(out.status, 0);
  fprintf(stderr, "---- run (%s%s%s):\n%s", jit, cflags ? ", OP2_CFLAGS=" : "",
          cflags ? cflags : "", out.text);
  return out.text;
}

static int calls(const char *what) {
  if (access(calls_log, F_OK) != 0) return 0;
  return count(ct_read(calls_log, NULL), what);
}

static ct_output tool(const char *root, const char *cmd, const char *arg) {
  const char *args[] = {"--dir", root, cmd, arg, NULL};
  ct_output out = ct_tool(args);
  fprintf(stderr, "---- op2-cache %s%s%s (exit %d):\n%s", cmd, arg ? " " : "", arg ? arg : "",
          out.status, out.text);
  return out;
}

static void check_case(const char *jit) {
  char *root = ct_str("%s/%s", ct_base, jit);
  fake_dir = ct_str("%s/bin-%s", ct_base, jit);
  calls_log = ct_str("%s/calls", fake_dir);
  CHECK(mkdir(fake_dir, 0700) == 0);
  fake_compiler("cc", "/usr/bin/cc");
  fake_compiler("g++", "/usr/bin/g++");
  const char *said = "optimising compile of 'spread' failed (cc: ";
  const char *first_error = "spread.c:3:5: error: this compiler rejects spread";

  /* said once, at OP2_DIAGS=0, with its first error line and what runs instead */
  char *out = run(root, jit, NULL);
  CHECK_EQ_INT(count(out, said), 1);
  CHECK_EQ_INT(count(out, "optimising compile of"), 1);
  const char *line = strstr(out, said);
  CHECK_CONTAINS(line, first_error);
  CHECK(strstr(line, "TinyCC code runs instead") < strchr(line, '\n'));
  CHECK_EQ_INT(calls("cc spread.c"), 1);
  int all_calls = calls("cc ");

  /* not built again: the loop runs TinyCC code, and the run says so once */
  out = run(root, jit, NULL);
  CHECK_EQ_INT(calls("cc spread.c"), 1);
  CHECK_EQ_INT(calls("cc "), all_calls); /* the others come from the cache */
  CHECK_EQ_INT(count(out, "loop 'spread' runs TinyCC code: its optimised build failed before"), 1);
  CHECK_CONTAINS(out, first_error);
  CHECK_CONTAINS(out, "op2-cache retry spread");

  /* op2-cache list shows it */
  ct_output list = tool(root, "list", NULL);
  CHECK_EQ_INT(list.status, 0);
  CHECK_CONTAINS(list.text, "failed optimised builds");
  const char *row = strstr(list.text, "\n  spread ");
  CHECK(row != NULL);
  CHECK_CONTAINS(row, first_error);

  /* other flags: another build, tried (and rejected) once */
  out = run(root, jit, "-O2 -fPIC -shared");
  CHECK_EQ_INT(calls("cc spread.c"), 2);
  CHECK_EQ_INT(count(out, said), 1);

  /* retry forgets both; the next run builds it again */
  ct_output none = tool(root, "retry", "no_such_loop");
  CHECK_EQ_INT(none.status, 1);
  ct_output retry = tool(root, "retry", "spread");
  CHECK_EQ_INT(retry.status, 0);
  CHECK_CONTAINS(retry.text, "forgot 2 failed builds");
  run(root, jit, NULL);
  CHECK_EQ_INT(calls("cc spread.c"), 3);
  /* clear takes the records with the entries */
  ct_output clear = tool(root, "clear", NULL);
  CHECK_CONTAINS(clear.text, "removed 1 failed build record");
}

int main(int argc, char **argv) {
  ct_setup(argc, argv);
  if (ct_want("tiered")) check_case("tiered");
  if (ct_want("cc")) {
    check_case("cc");
    /* C++ was tried with each failing optimised build (default flags, other flags, after the
     * retry), never in the run that found the record */
    CHECK_EQ_INT(calls("g++ "), 3);
  }
  ct_cleanup();
  return 0;
}
