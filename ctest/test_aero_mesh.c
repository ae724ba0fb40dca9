/* SPDX-License-Identifier: BSD-3-Clause */
/* aero-mesh and the FE_grid.dat reader: a generated mesh reads back exactly, with the counts, the
 * Dirichlet columns and the bump the generator promises; files that are not meshes are refused
 * with a message naming the file and line. Usage: test_aero_mesh AERO_MESH_EXE */
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "samples/aero/aero_mesh_io.h"
#include "test.h"

extern char **environ;

static char dir[] = "/tmp/aero-mesh-XXXXXX";

static int run(char **argv) {
  pid_t pid;
  int status;
  if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ) != 0) return -1;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Writes `text` to a file and reads it as a mesh: the reader must refuse it naming `where`. */
static void expect_refused(const char *text, const char *where, const char *problem) {
  char path[128], err[1024];
  snprintf(path, sizeof path, "%s/bad.dat", dir);
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  fputs(text, f);
  fclose(f);
  aero_mesh m;
  CHECK(aero_mesh_read(path, &m, err, sizeof err) == -1);
  char want[256];
  snprintf(want, sizeof want, "%s%s", path, where);
  CHECK_CONTAINS(err, want);
  CHECK_CONTAINS(err, problem);
  CHECK(m.x == NULL && m.nnode == 0);
  unlink(path);
}

int main(int argc, char **argv) {
  CHECK(argc == 2);
  CHECK(mkdtemp(dir) != NULL);
  char path[128], err[1024];
  snprintf(path, sizeof path, "%s/grid.dat", dir);

  char *gen[] = {argv[1], "--ij", "12x4", "--bump", "0.2", path, NULL};
  CHECK_EQ_INT(run(gen), 0);
  aero_mesh m, ref;
  CHECK(aero_mesh_read(path, &m, err, sizeof err) == 0);
  CHECK(aero_mesh_channel(12, 4, 0.2, &ref, err, sizeof err) == 0);
  CHECK_EQ_INT(m.nnode, 13 * 5);
  CHECK_EQ_INT(m.ncell, 12 * 4);
  CHECK_EQ_INT(m.nbnode, 2 * 5);
  CHECK(memcmp(m.x, ref.x, sizeof(double) * 2 * m.nnode) == 0); /* 17 digits read back exactly */
  CHECK(memcmp(m.cell, ref.cell, sizeof(int) * 4 * m.ncell) == 0);
  for (int b = 0; b < m.nbnode; b++) {
    double x = m.x[2 * m.bnode[b]];
    CHECK(x == 0.0 || x == 3.0); /* inlet and outlet only: the walls are free */
  }
  double top = 0; /* the lower wall rises to the bump's height at x = 1.5, and only there */
  for (int n = 0; n < 13; n++) {
    double x = m.x[2 * n], y = m.x[2 * n + 1];
    CHECK(y >= 0.0 && (y == 0.0 || (x > 1.0 && x < 2.0)));
    top = fmax(top, y);
  }
  CHECK_NEAR(top, 0.2, 1e-12);
  aero_mesh_free(&m);
  aero_mesh_free(&ref);

  char *bad_size[] = {argv[1], "--ij", "0x4", path, NULL};
  CHECK(run(bad_size) != 0);
  char *bad_bump[] = {argv[1], "--bump", "0.7", path, NULL};
  CHECK(run(bad_bump) != 0);

  expect_refused("", ":1:", "header \"nnode ncell nbnode\" expected");
  expect_refused("4 1 1\n0 0\n1 0\n0 1\n", ":5:", "node coordinates");
  expect_refused("4 1 1\n0 0\n1 0\n0 1\n1 1\n0 1 2 4\n0\n", ":6:", "must be an integer in [0, 3]");
  /* corners around the cell instead of in tensor-product order: folded */
  expect_refused("4 1 1\n0 0\n1 0\n0 1\n1 1\n0 1 3 2\n0\n", ":6:", "folded or degenerate");
  expect_refused("4 1 2\n0 0\n1 0\n0 1\n1 1\n0 1 2 3\n0\n", ":8:", "boundary node expected");
  expect_refused("4 1 1 7\n", ":1:", "more than 3 values");
  CHECK(aero_mesh_read("/nonexistent/FE_grid.dat", &m, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "/nonexistent/FE_grid.dat: No such file");
  rmdir(dir);
  return 0;
}
