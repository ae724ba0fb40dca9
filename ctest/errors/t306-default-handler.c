/* SPDX-License-Identifier: BSD-3-Clause */
/* The default error handler: with no handler installed (or after op_set_error_handler(NULL)), an
 * error prints "op2: error: MESSAGE" on stderr and exits with status 1. Each case runs in a child
 * process (this program, started again with the case's name) whose stderr comes back through a
 * pipe. */
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include "errors_util.h"

static const char *syntax_src =
    "static void broken(double *x) {\n"
    "  double y = 1.0;\n"
    "  x[0] = (y + 1.0;\n"
    "}\n";

static void custom_handler(const char *message, void *user) {
  (void)user;
  fprintf(stderr, "custom handler: %s\n", message);
}

/* Each case makes one error; reaching the end means the default handler did not exit. */
static int child(const char *which, char *prog) {
  char *argv[] = {prog, NULL};
  if (strcmp(which, "before-init") == 0) {
    op_decl_set(4, "nodes");
  } else if (strcmp(which, "options") == 0) {
    char *bad[] = {prog, "OP2_PART_SIZE=0", NULL};
    op_init(2, bad, 0);
  } else if (strcmp(which, "restored") == 0) {
    op_set_error_handler(custom_handler, NULL);
    op_set_error_handler(NULL, NULL);
    op_init(1, argv, 0);
    op_decl_set(-1, "cells");
  } else {
    op_init(1, argv, 0);
    op_set s = op_decl_set(3, "s");
    op_dat d = op_decl_dat(s, 1, "double", NULL, "d");
    if (strcmp(which, "decl") == 0) op_decl_set(-1, "cells");
    if (strcmp(which, "loop") == 0)
      op_par_loop(syntax_src, "broken", s, op_arg_dat(d, -1, OP_ID, 2, "double", OP_RW));
    if (strcmp(which, "kernel") == 0)
      op_par_loop(syntax_src, "broken", s, op_arg_dat(d, -1, OP_ID, 1, "double", OP_RW));
    op_exit(); /* a queued call (lazy execution) runs, and fails, here at the latest */
  }
  printf("the call returned\n");
  return 0;
}

/* Runs this program as child `which`; returns its stderr (malloc'ed) and sets *status. */
static char *run_child(const char *which, int *status) {
  int fds[2];
  CHECK(pipe(fds) == 0);
  posix_spawn_file_actions_t fa;
  CHECK(posix_spawn_file_actions_init(&fa) == 0);
  CHECK(posix_spawn_file_actions_addclose(&fa, fds[0]) == 0);
  CHECK(posix_spawn_file_actions_adddup2(&fa, fds[1], STDERR_FILENO) == 0);
  CHECK(posix_spawn_file_actions_addclose(&fa, fds[1]) == 0);
  CHECK(posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0) == 0);
  char *argv[] = {"/proc/self/exe", "--child", (char *)which, NULL};
  pid_t pid;
  extern char **environ;
  CHECK(posix_spawn(&pid, "/proc/self/exe", &fa, NULL, argv, environ) == 0);
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  CHECK(buf != NULL);
  for (;;) {
    ssize_t n = read(fds[0], buf + len, cap - len - 1);
    if (n <= 0) break;
    len += (size_t)n;
    CHECK(len + 1 < cap);
  }
  buf[len] = '\0';
  close(fds[0]);
  CHECK(waitpid(pid, status, 0) == pid);
  return buf;
}

/* The child exits with status 1, and its stderr is "op2: error: " + the message + "\n", with
 * `needle` in the message and nothing before it. */
static void expect_exit(const char *which, const char *needle) {
  int status;
  char *err = run_child(which, &status);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 1) {
    fprintf(stderr, "child '%s': expected exit status 1, got status 0x%x; stderr:\n%s\n", which,
            status, err);
    exit(1);
  }
  if (strncmp(err, "op2: error: ", 12) != 0) {
    fprintf(stderr, "child '%s': stderr does not start with \"op2: error: \":\n%s\n", which, err);
    exit(1);
  }
  CHECK_CONTAINS(err + 12, needle);
  CHECK(strstr(err + 12, "op2: error: ") == NULL); /* one error, printed once */
  CHECK(strstr(err, "custom handler") == NULL);
  size_t len = strlen(err);
  CHECK(len > 12 && err[len - 1] == '\n');
  free(err);
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--child") == 0) return child(argv[2], argv[0]);
  expect_exit("decl", "op_decl_set 'cells': size -1 is negative\n");
  expect_exit("before-init", "op_decl_set called before op_init\n");
  expect_exit("options", "option OP2_PART_SIZE=0: expected an integer");
  expect_exit("restored", "op_decl_set 'cells': size -1 is negative\n");
  expect_exit("loop", "op_par_loop 'broken', argument 0: dim 2 does not match dat 'd' of dim 1");
  expect_exit("kernel", "op_par_loop 'broken': the kernel does not compile (generated source: ");
  /* A multi-line message is printed whole: the compiler's line follows. */
  int status;
  char *err = run_child("kernel", &status);
  CHECK_CONTAINS(err, "\nkernel:broken:3:");
  free(err);
  /* The check above can fail: a child that does not err exits 0. */
  err = run_child("none", &status);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK_EQ_INT(strlen(err), 0);
  free(err);
  return 0;
}
