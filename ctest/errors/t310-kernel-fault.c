/* SPDX-License-Identifier: BSD-3-Clause */
/* A kernel that dies by a signal names its loop first: each case runs in a child process whose
 * stderr is captured; the child must die by the signal itself (not exit), and its last words must
 * name the loop, the set, the faulting element (seq backend; the range on others) and the
 * generated source. A handler the program installed before op_init still runs afterwards. */
#include <signal.h>
#include <sys/wait.h>

#include "errors_util.h"

/* Far beyond the 4-element dat: nothing is mapped 8 TB past a heap block. */
static const char *out_of_range_src =
    "static void far_write(double *x) { x[(long)1 << 40] = 1.0; }\n";
static const char *divide_src = "static void divide(int *a) { a[0] = 100 / a[0]; }\n";
/* Divides by zero at the element whose x is 1234, and only there. */
static const char *at_1234_src =
    "static void at_1234(const int *x, int *y) { y[0] = x[0] / (x[0] - 1234); }\n";
/* Faults at the third element it runs, and never again: the re-run finds no element. For the
 * optimised build too (once cached it runs first): the dividend is the element's value, since
 * gcc -O3 turns `1 / zero` into a comparison (1 / x is 0 but for x = 1 or -1), and the count is
 * volatile, so its store cannot sink below the faulting division. */
static const char *once_src =
    "static void once(int *a) {\n"
    "  static volatile int runs;\n"
    "  static volatile int zero;\n"
    "  if (runs++ == 2) a[0] = a[0] / zero;\n"
    "}\n";

static void run_once(void) {
  op_set s = op_decl_set(4, "cells");
  int v[4] = {1, 2, 3, 4};
  op_dat d = op_decl_dat(s, 1, "int", v, "a");
  op_par_loop(once_src, "once", s, op_arg_dat(d, -1, OP_ID, 1, "int", OP_RW));
}

static void run_far_write(void) {
  op_set s = op_decl_set(4, "cells");
  double v[4] = {0};
  op_dat d = op_decl_dat(s, 1, "double", v, "x");
  op_par_loop(out_of_range_src, "far_write", s, op_arg_dat(d, -1, OP_ID, 1, "double", OP_RW));
}

static void run_divide(void) {
  op_set s = op_decl_set(4, "cells");
  int v[4] = {1, 2, 0, 4};
  op_dat d = op_decl_dat(s, 1, "int", v, "a");
  op_par_loop(divide_src, "divide", s, op_arg_dat(d, -1, OP_ID, 1, "int", OP_RW));
}

/* 5000 elements, x = the element's index: only element 1234 faults. */
static void run_at_1234(void) {
  op_set s = op_decl_set(5000, "cells");
  int *x = malloc(sizeof(int) * 5000), *y = calloc(5000, sizeof(int));
  for (int e = 0; e < 5000; e++) x[e] = e;
  op_dat dx = op_decl_dat(s, 1, "int", x, "x");
  op_dat dy = op_decl_dat(s, 1, "int", y, "y");
  op_par_loop(at_1234_src, "at_1234", s, op_arg_dat(dx, -1, OP_ID, 1, "int", OP_READ),
              op_arg_dat(dy, -1, OP_ID, 1, "int", OP_WRITE));
}

/* The same on the openmp backend (run_case selects it), which names the range. */
static void run_at_1234_openmp(void) {
  run_at_1234();
}

static void users_handler(int sig) {
  static const char said[] = "user handler ran\n";
  if (write(STDERR_FILENO, said, sizeof said - 1) < 0) _exit(3);
  _exit(sig == SIGFPE ? 42 : 43);
}

typedef struct fault_case {
  void (*body)(void);
  int user_handler;
} fault_case;

static void run_case(const void *arg) {
  const fault_case *c = arg;
  if (c->user_handler) signal(SIGFPE, users_handler);
  if (c->body == run_at_1234_openmp) setenv("OP2_BACKEND", "openmp", 1);
  op_init(0, NULL, 0);
  c->body();
  op_exit();
}

/* Runs body in a child with stderr in a file; returns the wait status and what it printed. */
static int in_child(void (*body)(void), int user_handler, char **err) {
  const fault_case c = {body, user_handler};
  return eu_in_child(run_case, &c, err);
}

static void expect_death(void (*body)(void), int sig, const char *loop, const char *set,
                         const char *where) {
  char *err;
  int status = in_child(body, 0, &err);
#ifdef __SANITIZE_ADDRESS__
  /* Under AddressSanitizer the handler installed before ours is the sanitizer's: ours chains to
   * it, and it reports the signal and exits with status 1 instead of dying by the signal. */
  (void)sig;
  if (!WIFEXITED(status) || WEXITSTATUS(status) == 0 || !strstr(err, "AddressSanitizer")) {
#else
  if (!WIFSIGNALED(status) || WTERMSIG(status) != sig) {
#endif
    fprintf(stderr, "loop %s: child status %#x, expected death by signal %d; stderr:\n%s\n", loop,
            status, sig, err);
    exit(1);
  }
  char want[200];
  snprintf(want, sizeof want, "in the kernel of loop '%s' on set '%s', %s (", loop, set, where);
  CHECK_CONTAINS(err, want);
  CHECK_CONTAINS(err, "generated source: ");
  /* The path named exists and holds the kernel. */
  const char *p = strstr(err, "generated source: ") + strlen("generated source: ");
  char *path = strndup(p, strcspn(p, "\n"));
  char *text = eu_read_file(path);
  if (!text) {
    fprintf(stderr, "generated source '%s' named in the message cannot be read\n", path);
    exit(1);
  }
  CHECK_CONTAINS(text, loop);
  free(text);
  free(path);
  free(err);
}

int main(void) {
  expect_death(run_far_write, SIGSEGV, "far_write", "cells", "element 0");
  expect_death(run_divide, SIGFPE, "divide", "cells", "element 2");
  expect_death(run_at_1234, SIGFPE, "at_1234", "cells", "element 1234");
  expect_death(run_once, SIGFPE, "once", "cells", "elements 0 to 3");
  expect_death(run_at_1234_openmp, SIGFPE, "at_1234", "cells", "elements 0 to 4999");
  /* The program's own handler runs after the message, and decides. */
  char *err;
  int status = in_child(run_divide, 1, &err);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 42);
  CHECK_CONTAINS(err, "in the kernel of loop 'divide'");
  CHECK_CONTAINS(err, "user handler ran");
  CHECK(strstr(err, "in the kernel of loop") < strstr(err, "user handler ran"));
  free(err);
  return 0;
}
