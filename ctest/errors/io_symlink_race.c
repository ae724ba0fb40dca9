/* SPDX-License-Identifier: BSD-3-Clause */
/* No writer can be redirected by another user's symbolic links (issue 35, item 1). In a
 * directory every user may write and that is not sticky (a umask-002 project directory), a
 * second user (nobody) races the library for about two seconds: it keeps replacing every
 * temporary file it sees (NAME.tmp*) with a symbolic link to a file of root's, and the target
 * names of one set of outputs too, while the library (root) writes HDF5 dumps, HDF5 fetches
 * into a file, constants into a file, checkpoints and text prints there again and again: once
 * to names nobody swaps (so the writes go ahead and their temporary files are raced), once to
 * names nobody keeps swapping for links (refused). Root's file must come out untouched: same
 * inode, same contents, and some writes of the first set must have succeeded. Before, HDF5 reopened
 * its temporary file by name (once with O_RDWR|O_CREAT|O_TRUNC) and the checkpoint sealed it by
 * name, so the race overwrote root's file; and a target name swapped for a link was followed to
 * root's file and replaced.
 *
 * Everything happens in a private mount namespace on a private tmpfs, so the machine's own files
 * are never at risk. Needs root (a second user, a namespace); skipped otherwise, saying so. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "errors_util.h"

#define SKIP 77

static const char secret[] = "root's own file: never to be written by the library\n";

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* nobody's loop: every temporary file and every target name becomes a link to the victim. */
static void attacker(const char *shared, const char *victim, const char *const *targets,
                     double seconds) {
  if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0) _exit(3);
  double end = now() + seconds;
  char path[4300];
  long swaps = 0;
  while (now() < end) {
    DIR *d = opendir(shared);
    if (!d) _exit(4);
    for (struct dirent *e; (e = readdir(d));) {
      if (!strstr(e->d_name, ".tmp")) continue;
      snprintf(path, sizeof path, "%s/%s", shared, e->d_name);
      if (unlink(path) == 0 && symlink(victim, path) == 0) swaps++;
    }
    closedir(d);
    for (int i = 0; targets[i]; i++) {
      snprintf(path, sizeof path, "%s/%s", shared, targets[i]);
      char tmp[4400];
      snprintf(tmp, sizeof tmp, "%s.swap", path);
      unlink(tmp);
      if (symlink(victim, tmp) == 0 && rename(tmp, path) == 0) swaps++;
    }
  }
  _exit(swaps > 0 ? 0 : 5);
}

/* A private tmpfs, in a mount namespace of this process's own. */
static int private_tmpfs(const char *dir) {
  if (unshare(CLONE_NEWNS) != 0) return -1;
  if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) return -1;
  return mount("op2-race", dir, "tmpfs", 0, "size=64m,mode=0755");
}

int main(void) {
  if (geteuid() != 0) {
    fprintf(stderr, "skipped: a second user and a private mount namespace need root\n");
    return SKIP;
  }
  char top[4096];
  eu_make_scratch(top, sizeof top, "symlink-race");
  if (private_tmpfs(top) != 0) {
    fprintf(stderr, "skipped: no private mount namespace here (%s)\n", strerror(errno));
    rmdir(top);
    return SKIP;
  }
  char shared[4200], victim[4200];
  snprintf(shared, sizeof shared, "%s/shared", top);
  snprintf(victim, sizeof victim, "%s/victim", top);
  CHECK(mkdir(shared, 0777) == 0 && chmod(shared, 0777) == 0); /* anyone, not sticky */
  FILE *f = fopen(victim, "w");
  CHECK(f && fputs(secret, f) >= 0 && fclose(f) == 0);
  CHECK(chmod(victim, 0644) == 0);
  struct stat before;
  CHECK(stat(victim, &before) == 0);

  /* the names nobody swaps for links (ckpt.h5 too), and those nobody keeps swapping */
  static const char *const kept[] = {"dump.h5", "fetch.h5", "const.h5", "print.txt"};
  static const char *const targets[] = {"s-dump.h5", "s-fetch.h5", "s-const.h5", "s-print.txt",
                                        NULL};
  fflush(NULL);
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) attacker(shared, victim, targets, 2.5);

  test_catch_errors(); /* the race makes some writes fail: errors, never a crash */
  test_errors_expected = 1;
  op_init(0, NULL, 0);
  enum { N = 64 };
  double x[N];
  for (int i = 0; i < N; i++) x[i] = i;
  op_set s = op_decl_set(N, "cells");
  op_dat d = op_decl_dat(s, 1, "double", x, "x");
  double gam = 1.4;
  op_decl_const(1, "double", &gam, "gam");
  char path[4300];
  snprintf(path, sizeof path, "%s/ckpt.h5", shared);
  op_checkpointing_init(path, "manual");
  int rounds = 0, written = 0;
  long errors = 0;
  for (double end = now() + 2.0; now() < end; rounds++) {
    for (int set = 0; set < 2; set++) {
      const char *const *names = set == 0 ? kept : targets;
      int seen = test_errors_seen;
      snprintf(path, sizeof path, "%s/%s", shared, names[0]);
      op_dump_to_hdf5(path);
      snprintf(path, sizeof path, "%s/%s", shared, names[1]);
      op_fetch_data_hdf5_file(d, path);
      snprintf(path, sizeof path, "%s/%s", shared, names[2]);
      op_write_const_hdf5("gam", 1, "double", (char *)&gam, path);
      if (set == 0) op_checkpoint();
      snprintf(path, sizeof path, "%s/%s", shared, names[3]);
      op_print_dat_to_txtfile(d, path);
      if (set == 0) written += 5 - (test_errors_seen - seen);
    }
    errors = test_errors_seen;
  }
  test_errors_expected = 0;
  op_exit();
  int status = 0;
  CHECK(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0); /* nobody did swap links in */

  struct stat after;
  CHECK(stat(victim, &after) == 0);
  char *now_text = eu_read_file(victim);
  fprintf(stderr, "%d rounds of 9 writes against nobody's links, %ld refused, %d written; %s\n",
          rounds, errors, written,
          now_text && strcmp(now_text, secret) == 0 ? "root's file untouched"
                                                    : "ROOT'S FILE WAS WRITTEN");
  CHECK(rounds >= 5);
  CHECK(written > 0); /* the writes whose temporary files were raced did go ahead */
  CHECK(after.st_ino == before.st_ino && after.st_size == before.st_size);
  CHECK(now_text && strcmp(now_text, secret) == 0);
  free(now_text);
  umount2(top, MNT_DETACH);
  rmdir(top);
  return 0;
}
