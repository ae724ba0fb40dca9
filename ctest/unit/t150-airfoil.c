/* Runs the Airfoil sample and compares every printed rms with the reference values.
 * Usage: t150-airfoil AIRFOIL MESH RMS_FILE MESH_LABEL REL_TOL [ITERATIONS] */
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"

extern char **environ;

int main(int argc, char **argv) {
  CHECK(argc >= 6);
  const char *label = argv[4];
  double tol = atof(argv[5]);
  const char *iters = argc > 6 ? argv[6] : "1000";
  double ref[10001] = {0};
  FILE *f = fopen(argv[3], "r");
  CHECK(f != NULL);
  char line[512], mesh[64];
  int it, nref = 0;
  double v;
  while (fgets(line, sizeof line, f))
    if (line[0] != '#' && sscanf(line, "%63s %d %lf", mesh, &it, &v) == 3 &&
        strcmp(mesh, label) == 0 && it <= 10000)
      ref[it] = v, nref++;
  fclose(f);
  CHECK(nref > 0);

  int out[2];
  CHECK(pipe(out) == 0);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_addclose(&fa, out[0]);
  char *child_argv[] = {argv[1], argv[2], (char *)iters, NULL};
  pid_t pid;
  CHECK(posix_spawn(&pid, argv[1], &fa, NULL, child_argv, environ) == 0);
  posix_spawn_file_actions_destroy(&fa);
  close(out[1]);
  FILE *r = fdopen(out[0], "r");
  int compared = 0, last = 0;
  while (fgets(line, sizeof line, r)) {
    fputs(line, stdout);
    if (sscanf(line, " %d %lf", &it, &v) == 2 && strchr(line, 'e') && it <= 10000 && ref[it]) {
      double rel = fabs(v / ref[it] - 1.0);
      printf("   iteration %d: relative difference %.3e (tolerance %.1e)\n", it, rel, tol);
      CHECK(rel <= tol);
      compared++;
      last = it;
    }
  }
  fclose(r);
  int status;
  CHECK(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK_EQ_INT(compared, atoi(iters) / 100);
  CHECK_EQ_INT(last, atoi(iters) / 100 * 100);
  return 0;
}
