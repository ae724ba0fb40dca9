/* SPDX-License-Identifier: BSD-3-Clause */
/* The command a checker runs (the sample, alone or under mpiexec): started with its standard
 * output on a pipe the checker reads line by line, then waited for. Shared by airfoil_check.c and
 * aero_check.c. */
#ifndef OP2_TEST_COMMAND_H
#define OP2_TEST_COMMAND_H

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"

extern char **environ;

/* Starts argv[0] (looked up in PATH) with argv; its standard output is the returned stream. */
static FILE *command_start(char *const argv[], pid_t *pid) {
  int out[2];
  CHECK(pipe(out) == 0);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_addclose(&fa, out[0]);
  CHECK(posix_spawnp(pid, argv[0], &fa, NULL, argv, environ) == 0);
  posix_spawn_file_actions_destroy(&fa);
  close(out[1]);
  FILE *r = fdopen(out[0], "r");
  CHECK(r != NULL);
  return r;
}

/* Closes the stream and checks that the command exited with status 0. */
static void command_finish(FILE *r, pid_t pid) {
  fclose(r);
  int status;
  CHECK(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

#endif
