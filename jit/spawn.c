/* SPDX-License-Identifier: BSD-3-Clause */
/* Running a compiler or assembler as a child process: posix_spawn, never fork (the parent may be
 * large, threaded and attached to MPI), its output captured, and none of the parent's other
 * descriptors inherited (HDF5 files and their locks, MPI's sockets).
 *
 * A compiler that never returns must not hang the program: the child runs in a process group of
 * its own, the pipe is read with poll against a deadline, and on expiry the whole group is killed
 * (a grandchild that holds the pipe open, such as a compiler driver's cc1, goes with it). Once the
 * child itself has exited, what it left in the pipe is read and nothing more is waited for. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jit_internal.h"

extern char **environ;

/* At most this much of a child's messages is kept (a runaway child may write without end). */
enum { CAPTURE_MAX = 1 << 20 };

static void keep(op2_buf *out, const char *chunk, size_t n, size_t *kept) {
  if (*kept >= CAPTURE_MAX) return;
  if (n > CAPTURE_MAX - *kept) n = CAPTURE_MAX - *kept;
  op2_buf_append(out, chunk, n);
  *kept += n;
}

/* Whether the child has exited, without reaping it: while it is a zombie its process id, and so
 * its process group id, cannot be reused, and the group may still be killed safely. */
static int child_exited(pid_t pid, int *lost) {
  siginfo_t si;
  memset(&si, 0, sizeof si);
  if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0) {
    if (errno == ECHILD) *lost = 1; /* reaped by the kernel (SIGCHLD ignored) */
    return errno != EINTR;
  }
  return si.si_pid == pid;
}

enum { ENDED, TIMED_OUT, LEFT_PIPE_OPEN };

/* Reads the child's messages until it has exited and the pipe is closed, or it has exited and
 * what it left in the pipe is read (a grandchild may hold the pipe: LEFT_PIPE_OPEN), or until
 * the deadline passes (timeout_s > 0: TIMED_OUT). The child is not reaped. */
static int read_until(int fd, pid_t pid, int timeout_s, op2_buf *out, int *lost) {
  double deadline = op2_wall_seconds() + timeout_s;
  char chunk[4096];
  size_t kept = 0;
  int exited = 0, open = 1, tick_ms = 1;
  double drain_until = 0; /* a grandchild writing on and on is not read for ever */
  for (;;) {
    if (!open && (exited || (exited = child_exited(pid, lost)))) return ENDED;
    /* After the end of the pipe the child is usually exiting already: check again soon. */
    int wait_ms = open ? 100 : tick_ms;
    if (!open && tick_ms < 100) tick_ms *= 2;
    if (timeout_s > 0) {
      double left = deadline - op2_wall_seconds();
      if (left <= 0) return TIMED_OUT;
      if (left * 1000 < wait_ms) wait_ms = (int)(left * 1000) + 1;
    }
    struct pollfd p = {.fd = open ? fd : -1, .events = POLLIN};
    int ready = poll(&p, 1, exited ? 0 : wait_ms);
    if (ready < 0 && errno != EINTR) return ENDED;
    if (exited && (ready <= 0 || op2_wall_seconds() > drain_until))
      return LEFT_PIPE_OPEN; /* drained; nothing more to wait for */
    if (ready <= 0) {
      if (open && (exited = child_exited(pid, lost))) drain_until = op2_wall_seconds() + 1;
      continue;
    }
    ssize_t got = read(fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0)
      open = 0;
    else
      keep(out, chunk, (size_t)got, &kept);
  }
}

int op2_spawn_capture(const char *path, char *const argv[], int timeout_s, op2_buf *out) {
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) {
    op2_buf_printf(out, "cannot create a pipe for the messages of %s: %s\n", path, strerror(errno));
    return OP2_SPAWN_BROKEN;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
  posix_spawn_file_actions_addclosefrom_np(&fa, 3);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setpgroup(&attr, 0); /* its own group: killed whole on expiry */
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  pid_t pid;
  int rc = posix_spawn(&pid, path, &fa, &attr, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  close(pipefd[1]);
  if (rc != 0) {
    close(pipefd[0]);
    op2_buf_printf(out, "cannot run %s: %s\n", path, strerror(rc));
    return OP2_SPAWN_BROKEN;
  }
  int lost = 0;
  int state = read_until(pipefd[0], pid, timeout_s, out, &lost), timed_out = state == TIMED_OUT;
  /* On expiry the whole group; after the child's exit whatever of it still holds the pipe. */
  if (state != ENDED && !lost) kill(-pid, SIGKILL);
  close(pipefd[0]);
  int status = 0, waited;
  while ((waited = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    op2_buf_printf(out, "%s did not finish within %d s (OP2_COMPILE_TIMEOUT) and was stopped\n",
                   path, timeout_s);
    return OP2_SPAWN_BROKEN;
  }
  if (waited < 0) {
    /* With SIGCHLD ignored the kernel reaps the child itself and its exit status is lost: its
     * output cannot be trusted, so this is a failure whatever the child did. */
    int err = errno;
    op2_buf_printf(out, "cannot learn whether %s succeeded: waitpid: %s%s\n", path, strerror(err),
                   err == ECHILD ? " (this process ignores SIGCHLD, so the exit status of its "
                                   "children is lost)"
                                 : "");
    return OP2_SPAWN_BROKEN;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
  if (WIFSIGNALED(status)) {
    op2_buf_printf(out, "%s was killed by signal %d\n", path, WTERMSIG(status));
    return OP2_SPAWN_BROKEN;
  }
  op2_buf_printf(out, "%s exited with status %d\n", path,
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return OP2_SPAWN_REJECTED;
}
