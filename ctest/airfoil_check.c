/* SPDX-License-Identifier: BSD-3-Clause */
/* Runs a command (the Airfoil sample, alone or under mpiexec) and compares the rms lines it prints
 * with the reference values. Usage: airfoil_check RMS_FILE MESH_LABEL REL_TOL ITERATIONS --
 * COMMAND... The sample prints ` ITER  RMS` every 100 iterations on rank 0 only: exactly ITERATIONS
 * / 100 such lines must appear, each within REL_TOL of the reference, and the command must succeed.
 */
#include <unistd.h>

#include "command.h"

int main(int argc, char **argv) {
  CHECK(argc >= 7 && strcmp(argv[5], "--") == 0);
  const char *label = argv[2];
  double tol = atof(argv[3]);
  int iters = atoi(argv[4]);
  static double ref[10001];
  FILE *f = fopen(argv[1], "r");
  CHECK(f != NULL);
  char line[1024], mesh[64];
  int it, nref = 0;
  double v;
  while (fgets(line, sizeof line, f))
    if (line[0] != '#' && sscanf(line, "%63s %d %lf", mesh, &it, &v) == 3 &&
        strcmp(mesh, label) == 0 && it > 0 && it <= 10000)
      ref[it] = v, nref++;
  fclose(f);
  CHECK(nref > 0);

  pid_t pid;
  FILE *r = command_start(argv + 6, &pid);
  int compared = 0, last = 0;
  while (fgets(line, sizeof line, r)) {
    fputs(line, stdout);
    int end = 0;
    /* only a line that is exactly "iteration rms" (timing tables have more columns) */
    if (sscanf(line, " %d %lf %n", &it, &v, &end) == 2 && line[end] == '\0' && strchr(line, 'e') &&
        it > 0 && it <= 10000) {
      CHECK(ref[it] != 0);
      double rel = fabs(v / ref[it] - 1.0);
      printf("   iteration %d: relative difference %.3e (tolerance %.1e)\n", it, rel, tol);
      CHECK(rel <= tol);
      CHECK(it > last); /* printed once (rank 0 only), in order */
      compared++;
      last = it;
    }
  }
  command_finish(r, pid);
  CHECK_EQ_INT(compared, iters / 100);
  CHECK_EQ_INT(last, iters / 100 * 100);
  return 0;
}
