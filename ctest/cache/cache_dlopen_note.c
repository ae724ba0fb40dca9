/* SPDX-License-Identifier: BSD-3-Clause */
/* A kernel object the direct loader (OP2_LOADER=direct; auto uses it past 256 objects) leaves
 * to dlopen (here: one with thread-local storage, built by the system compiler) is no silent slow
 * path either: OP2_DIAGS=2 says so, naming the reason, once per run, and the cache keeps a record
 * of it that `op2-cache list` shows in the entry's status. Run as `cache_dlopen_note PROG TOOL`
 * like the other cache tests; the program it runs is itself (`--program`). */
#include "cache_test.h"

/* (the count keeps the variable: a kernel's x[0] is never over a million) */
static const char tls_src[] =
    "static __thread int calls;\n"
    "void tls_kernel(double *x) { calls++; x[0] = 2.0 * x[0] + (calls > 1000000 ? 1.0 : 0.0); }\n";

static void program(void) {
  op_init(0, NULL, 0);
  op_set s = op_decl_set(8, "cells");
  double v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  op_dat d = op_decl_dat(s, 1, "double", v, "x");
  op_par_loop(tls_src, "tls_kernel", s, op_arg_dat(d, -1, OP_ID, 1, "double", OP_RW));
  op_fetch_data(d, v);
  CHECK(v[7] == 16.0);
  op_exit();
}

static int count(const char *text, const char *what) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, what)) != NULL; p += strlen(what)) n++;
  return n;
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--program") == 0) {
    program();
    return 0;
  }
  ct_setup(argc, argv);
  char *root = ct_str("%s/c", ct_base), self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  CHECK(n > 0);
  self[n] = '\0';
  const char *env[] = {ct_str("OP2_CACHE_DIR=%s", root), "OP2_JIT=cc", "OP2_DIAGS=2",
                       "OP2_LOADER=direct", NULL};
  const char *args[] = {"--program", NULL};
  const char *said = "kernel 'tls_kernel': loaded with dlopen, not the direct loader (";
  for (int run = 0; run < 2; run++) { /* built, then from the cache */
    ct_output out = ct_spawn(self, args, env, 1);
    fprintf(stderr, "---- run %d (exit %d):\n%s", run + 1, out.status, out.text);
    CHECK_EQ_INT(out.status, 0);
    CHECK_EQ_INT(count(out.text, said), 1);
    CHECK_EQ_INT(count(out.text, "loaded with dlopen"), 1); /* said once, not by the loader too */
    CHECK_CONTAINS(strstr(out.text, said), "thread-local");
  }
  const char *list_args[] = {"--dir", root, "list", NULL};
  ct_output list = ct_tool(list_args);
  fprintf(stderr, "---- op2-cache list:\n%s", list.text);
  CHECK_EQ_INT(list.status, 0);
  const char *row = strstr(list.text, "tls_kernel ");
  CHECK(row != NULL);
  CHECK_CONTAINS(row, "ok, loaded with dlopen: ");
  CHECK(strstr(row, "thread-local") < strchr(row, '\n'));
  ct_cleanup();
  return 0;
}
