/* SPDX-License-Identifier: BSD-3-Clause */
/* A kernel calling printf, as kernels do while being debugged: the prelude declares it, so it
 * compiles on every tier, including the system compiler where implicit declarations are errors.
 * Each element's line is printed exactly once. */
#include "capture.h"

enum { N = 5 };

static const char *show_src =
    "static void show(const int *i, const double *v) {\n"
    "  printf(\"element %d value %.2f\\n\", *i, v[0]);\n"
    "}\n";

int main(int argc, char **argv) {
  test_catch_errors();
  op_init(argc, argv, 0);
  double v[N] = {0.5, 1.5, 2.5, 3.5, 4.5};
  op_set s = op_decl_set(N, "s");
  op_dat dv = op_decl_dat(s, 1, "double", v, "v");
  capture c;
  capture_begin(&c, 1);
  op_par_loop(show_src, "show", s, op_arg_idx(-1, OP_ID),
              op_arg_dat(dv, -1, OP_ID, 1, "double", OP_READ));
  fflush(NULL);
  char *out = capture_end(&c);
  for (int i = 0; i < N; i++) {
    char line[64];
    snprintf(line, sizeof line, "element %d value %.2f\n", i, v[i]);
    const char *at = strstr(out, line);
    CHECK(at != NULL);
    CHECK(strstr(at + 1, line) == NULL);
  }
  free(out);
  /* With OP2_JIT=cc the call ran the system compiler's code, not TinyCC's fallback (which a
   * failed optimised compile would leave in place): op_timing_output counts it as "0/1". */
  const char *jit = getenv("OP2_JIT");
  if (jit && strcmp(jit, "cc") == 0) {
    capture_begin(&c, 1);
    op_timing_output();
    char *table = capture_end(&c);
    const char *row = strstr(table, "\n  show ");
    CHECK(row != NULL);
    const char *end = strchr(row + 1, '\n');
    CHECK(end != NULL);
    char line[512];
    snprintf(line, sizeof line, "%.*s", (int)(end - row), row);
    CHECK_CONTAINS(line, " 0/1 ");
    free(table);
  }
  op_exit();
  return 0;
}
