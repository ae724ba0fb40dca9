/* Running a compiler or assembler as a child process: posix_spawn, never fork (the parent may be
 * large, threaded and attached to MPI), its output captured, and none of the parent's other
 * descriptors inherited (HDF5 files and their locks, MPI's sockets). */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jit.h"

extern char **environ;

int op2_spawn_capture(const char *path, char *const argv[], op2_buf *out) {
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) {
    op2_buf_printf(out, "cannot create a pipe for the messages of %s: %s\n", path, strerror(errno));
    return -1;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
  posix_spawn_file_actions_addclosefrom_np(&fa, 3);
  pid_t pid;
  int rc = posix_spawn(&pid, path, &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(pipefd[1]);
  if (rc != 0) {
    close(pipefd[0]);
    op2_buf_printf(out, "cannot run %s: %s\n", path, strerror(rc));
    return -1;
  }
  char chunk[4096];
  ssize_t got;
  while ((got = read(pipefd[0], chunk, sizeof chunk)) != 0) {
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) break;
    op2_buf_append(out, chunk, (size_t)got);
  }
  close(pipefd[0]);
  int status = 0, waited;
  while ((waited = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  if (waited < 0) {
    /* With SIGCHLD ignored the kernel reaps the child itself and its exit status is lost: its
     * output cannot be trusted, so this is a failure whatever the child did. */
    int err = errno;
    op2_buf_printf(out, "cannot learn whether %s succeeded: waitpid: %s%s\n", path, strerror(err),
                   err == ECHILD ? " (this process ignores SIGCHLD, so the exit status of its "
                                   "children is lost)"
                                 : "");
    return -1;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
  op2_buf_printf(out, "%s exited with status %d\n", path,
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return -1;
}
