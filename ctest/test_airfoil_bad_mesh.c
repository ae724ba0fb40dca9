/* SPDX-License-Identifier: BSD-3-Clause */
/* The Airfoil sample given input that is not a mesh: /dev/zero, binary bytes, a line without
 * end, a header promising more than the file holds or holding less than the file, a truncated
 * file, a non-numeric field, a gzip stream of zeros. Each run (under `timeout`, so a reader that
 * never returns is caught) must end with a non-zero status and a message "FILE:LINE: ...".
 *
 * usage: test_airfoil_bad_mesh AIRFOIL_EXE [LAUNCHER ARG...]
 * With a launcher (mpiexec -np N) every rank reads its block of the file: the message must be the
 * one a single reader gives, whichever rank's block holds the fault.
 */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

extern char **environ;

enum { SECONDS = 30 };

static char dir[] = "/tmp/op2-airfoil-bad-XXXXXX";
static int failures;
static char **launcher; /* NULL-terminated, maybe empty */
static int nlauncher;

static void write_file(const char *path, const char *text, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(text, 1, len, f) != len || fclose(f) != 0) {
    fprintf(stderr, "FAIL: cannot write %s\n", path);
    exit(1);
  }
}

/* Runs the sample on `mesh`; it must fail in time with "mesh:line:" and `what` in its stderr. */
static void expect_failure(const char *exe, const char *mesh, int line, const char *what) {
  char log[4200], seconds[16];
  snprintf(log, sizeof log, "%s/stderr.txt", dir);
  snprintf(seconds, sizeof seconds, "%d", SECONDS);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 2, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  char *argv[64] = {"timeout", seconds};
  int argc = 2;
  for (int k = 0; k < nlauncher && argc < 58; k++) argv[argc++] = launcher[k];
  argv[argc++] = (char *)exe, argv[argc++] = (char *)mesh, argv[argc++] = "1", argv[argc] = NULL;
  pid_t pid;
  int rc = posix_spawnp(&pid, "timeout", &fa, NULL, argv, environ), status = 0;
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0 || waitpid(pid, &status, 0) != pid) {
    fprintf(stderr, "FAIL: cannot run %s\n", exe);
    exit(1);
  }
  char text[4096] = "", want[4200];
  FILE *f = fopen(log, "r");
  if (f) {
    text[fread(text, 1, sizeof text - 1, f)] = '\0';
    fclose(f);
  }
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  snprintf(want, sizeof want, "%s:%d: ", mesh, line);
  if (code == 124) {
    fprintf(stderr, "FAIL: %s: still reading after %d s\n", mesh, SECONDS);
    failures++;
  } else if (code <= 0 || !strstr(text, want) || !strstr(text, what)) {
    fprintf(stderr, "FAIL: %s: exit %d, stderr \"%s\"; expected a failure with \"%s\" and \"%s\"\n",
            mesh, code, text, want, what);
    failures++;
  } else {
    printf("ok: %s: %s", mesh, text);
  }
}

#define TINY_HEAD "4 1 0 4\n0 0\n1 0\n1 1\n0 1\n0 1 2 3\n"

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s AIRFOIL_EXE [LAUNCHER ARG...]\n", argv[0]);
    return 2;
  }
  const char *exe = argv[1];
  launcher = argv + 2, nlauncher = argc - 2;
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  char path[10][4200];
  for (int k = 0; k < 10; k++) snprintf(path[k], sizeof path[k], "%s/mesh%d.dat", dir, k);

  expect_failure(exe, "/dev/zero", 1, "byte 0x00 is not text");

  write_file(path[0], "4 1 0 4\n0 0\n\x01\x02\n", 15);
  expect_failure(exe, path[0], 3, "byte 0x01 is not text");

  static char digits[5000];
  memset(digits, '7', sizeof digits);
  write_file(path[1], digits, sizeof digits);
  expect_failure(exe, path[1], 1, "line longer than");

  const char *absurd = "2000000000 2000000000 2000000000 2000000000\n0 0\n";
  write_file(path[2], absurd, strlen(absurd));
  expect_failure(exe, path[2], 3, "unexpected end of file");

  /* One node promised, then megabytes of node lines: reading stops where the header's one
   * record could no longer reach (1024 bytes a line): 512 lines of 4 bytes after the header. */
  size_t n = 4u << 20;
  char *many = malloc(n + 8);
  memcpy(many, "1 0 0 0\n", 8);
  for (size_t k = 8; k < n + 8; k += 4) memcpy(many + k, "0 0\n", 4);
  write_file(path[3], many, n + 8);
  free(many);
  expect_failure(exe, path[3], 514, "more data than the header's counts allow");

  const char *truncated = TINY_HEAD "1 0 0 1\n2 1 0 2\n";
  write_file(path[4], truncated, strlen(truncated));
  expect_failure(exe, path[4], 9, "unexpected end of file");

  /* The last line cut short: its own fault, not the missing record after it (under MPI the
   * ranks whose blocks lie before it see only the missing record). */
  const char *cut = TINY_HEAD "1 0 0 1\n2 1 0 2\n3 2 0";
  write_file(path[7], cut, strlen(cut));
  expect_failure(exe, path[7], 9, "expected 4 fields, found 3");

  const char *bound = TINY_HEAD "1 0 0 1\n2 1 0 2\n3 2 0 2\n0 3 0 7\n";
  write_file(path[8], bound, strlen(bound));
  expect_failure(exe, path[8], 10, "bound 7");

  const char *word = "4 1 0 4\n0 0\n1 abc\n";
  write_file(path[5], word, strlen(word));
  expect_failure(exe, path[5], 3, "'abc' is not a number");

  /* gzip-compressed zeros after a header: the reader sees them decompressed. */
  snprintf(path[6], sizeof path[6], "%s/zeros.dat.gz", dir);
  gzFile g = gzopen(path[6], "wb");
  static char zeros[1 << 20];
  int ok = g && gzputs(g, "4 1 0 4\n") > 0;
  for (int k = 0; ok && k < 64; k++) ok = gzwrite(g, zeros, sizeof zeros) == (int)sizeof zeros;
  if (!g || gzclose(g) != Z_OK || !ok) {
    fprintf(stderr, "FAIL: cannot write %s\n", path[6]);
    return 1;
  }
  expect_failure(exe, path[6], 2, "byte 0x00 is not text");

  char cmd[4300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", dir);
  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  return 0;
}
