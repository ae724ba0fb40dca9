/* SPDX-License-Identifier: BSD-3-Clause */
/* Runs an MPI command (with --tag-output) and checks how it ended: its exit status (0, or
 * non-zero), that it ended within a time bound, and that every rank printed a line containing
 * one of the expected texts. Usage:
 *   t490-check RANKS ok|fail SECONDS TEXT[|TEXT...] -- COMMAND...
 * RANKS is N (every rank of N prints a text), N:R (rank R alone must) or N:any (any line of the
 * output, the launcher's own included, has one).
 * Used by the fault-injection tests, where the point is that no rank waits forever. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

static int line_has_any(const char *line, char *texts) {
  char copy[1024];
  snprintf(copy, sizeof copy, "%s", texts);
  for (char *save, *t = strtok_r(copy, "|", &save); t; t = strtok_r(NULL, "|", &save))
    if (strstr(line, t)) return 1;
  return 0;
}

int main(int argc, char **argv) {
  int sep = 1;
  while (sep < argc && strcmp(argv[sep], "--") != 0) sep++;
  if (sep != 5 || sep + 1 >= argc) {
    fprintf(stderr, "usage: t490-check RANKS ok|fail SECONDS TEXT[|TEXT...] -- COMMAND...\n");
    return 2;
  }
  int ranks = atoi(argv[1]), only = -1, any = 0, any_seen = 0;
  const char *colon = strchr(argv[1], ':');
  if (colon) any = strcmp(colon + 1, "any") == 0, only = any ? -1 : atoi(colon + 1);
  int want_ok = strcmp(argv[2], "ok") == 0, seconds = atoi(argv[3]);
  char command[8192] = "", *texts = argv[4];
  size_t len = (size_t)snprintf(command, sizeof command, "timeout -s KILL %d", seconds);
  for (int i = sep + 1; i < argc; i++)
    len += (size_t)snprintf(command + len, sizeof command - len, " '%s'", argv[i]);
  snprintf(command + len, sizeof command - len, " 2>&1");
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  FILE *out = popen(command, "r");
  if (!out) return perror("popen"), 1;
  char line[4096];
  int *seen = calloc((size_t)ranks, sizeof *seen);
  while (fgets(line, sizeof line, out)) {
    fputs(line, stdout); /* the whole output stays in the test log */
    int job, rank;
    any_seen |= line_has_any(line, texts);
    if (sscanf(line, "[%d,%d]", &job, &rank) == 2 && rank >= 0 && rank < ranks &&
        line_has_any(line, texts))
      seen[rank] = 1;
  }
  int status = pclose(out);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double elapsed = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), failed = 0;
  /* 137 is also the launcher's own status when a rank was killed: the time tells them apart */
  if (elapsed >= seconds - 0.5) {
    fprintf(stderr, "t490-check: not finished after %.1f s (a rank waits forever?)\n", elapsed);
    failed = 1;
  } else if ((code == 0) != want_ok) {
    fprintf(stderr, "t490-check: exit status %d, expected %s\n", code, want_ok ? "0" : "non-zero");
    failed = 1;
  }
  if (any && !any_seen) {
    fprintf(stderr, "t490-check: no line has any of: %s\n", texts);
    failed = 1;
  }
  for (int r = 0; r < ranks && !any; r++)
    if (!seen[r] && (only < 0 || r == only)) {
      fprintf(stderr, "t490-check: rank %d printed none of: %s\n", r, texts);
      failed = 1;
    }
  free(seen);
  if (!failed) printf("t490-check: %d ranks ended in %.1f s as expected\n", ranks, elapsed);
  return failed;
}
