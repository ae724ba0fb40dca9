/* SPDX-License-Identifier: BSD-3-Clause */
/* Checks the aero sample against a reference computed here, in plain serial C that shares no code
 * with the sample's kernels: the discrete full-potential equation on the same mesh, solved by
 * Newton's method to round-off with each linear step solved by conjugate gradients to 1e-14.
 * Usage: aero_check MESH.dat TOL -- COMMAND...
 * Every "@PHI@" in COMMAND becomes the path of a file the command must write its final potential
 * to (op_print_dat_to_txtfile: "size dim", then one value per line). The command must exit 0 and
 * print "PASSED"; each value must be within TOL of the reference. */
#include <unistd.h>

#include "samples/aero/aero_mesh_io.h"
#include "command.h"

/* Gradients of the four bilinear shape functions (corner m = p + 2q at (p, q)) at (xi, eta). */
static void shape_gradients(double xi, double eta, double dxi[4], double deta[4]) {
  for (int m = 0; m < 4; m++) {
    int p = m & 1, q = m >> 1;
    dxi[m] = (p ? 1.0 : -1.0) * (q ? eta : 1.0 - eta);
    deta[m] = (p ? xi : 1.0 - xi) * (q ? 1.0 : -1.0);
  }
}

/* The residual R(phi) and the cells' 4x4 Jacobian blocks (gam 1.4, Mach AERO_MINF). */
static void assemble(const aero_mesh *m, const double *phi, double *res, double *blocks) {
  const double gm1 = 0.4, mach2 = AERO_MINF * AERO_MINF, g = 0.5 / sqrt(3.0);
  const double pts[2] = {0.5 - g, 0.5 + g};
  memset(res, 0, sizeof(double) * (size_t)m->nnode);
  for (int c = 0; c < m->ncell; c++) {
    const int *n = m->cell + 4 * c;
    double *k = blocks + 16 * c;
    memset(k, 0, 16 * sizeof(double));
    for (int gp = 0; gp < 4; gp++) {
      double dxi[4], deta[4], jac[2][2] = {{0}};
      shape_gradients(pts[gp & 1], pts[gp >> 1], dxi, deta);
      for (int a = 0; a < 4; a++)
        for (int d = 0; d < 2; d++) {
          jac[d][0] += m->x[2 * n[a] + d] * dxi[a];
          jac[d][1] += m->x[2 * n[a] + d] * deta[a];
        }
      double det = jac[0][0] * jac[1][1] - jac[0][1] * jac[1][0];
      double grad[4][2], vel[2] = {0, 0};
      for (int a = 0; a < 4; a++) {
        grad[a][0] = (jac[1][1] * dxi[a] - jac[1][0] * deta[a]) / det;
        grad[a][1] = (jac[0][0] * deta[a] - jac[0][1] * dxi[a]) / det;
        vel[0] += grad[a][0] * phi[n[a]];
        vel[1] += grad[a][1] * phi[n[a]];
      }
      double q2 = vel[0] * vel[0] + vel[1] * vel[1];
      double base = 1.0 + 0.5 * gm1 * (mach2 - q2), rho = exp(log(base) / gm1);
      double drho = -rho / base; /* d rho / d (q2 / 2) */
      double wt = 0.25 * det;
      for (int a = 0; a < 4; a++) {
        double va = vel[0] * grad[a][0] + vel[1] * grad[a][1];
        res[n[a]] += wt * rho * va;
        for (int b = 0; b < 4; b++) {
          double vb = vel[0] * grad[b][0] + vel[1] * grad[b][1];
          double gg = grad[a][0] * grad[b][0] + grad[a][1] * grad[b][1];
          k[4 * a + b] += wt * (rho * gg + drho * va * vb);
        }
      }
    }
  }
  for (int b = 0; b < m->nbnode; b++) res[m->bnode[b]] = 0.0;
}

/* y = K x with the Dirichlet rows and columns removed (x is zero there, y is set to zero). */
static void apply(const aero_mesh *m, const double *blocks, const double *x, double *y) {
  memset(y, 0, sizeof(double) * (size_t)m->nnode);
  for (int c = 0; c < m->ncell; c++)
    for (int a = 0; a < 4; a++)
      for (int b = 0; b < 4; b++)
        y[m->cell[4 * c + a]] += blocks[16 * c + 4 * a + b] * x[m->cell[4 * c + b]];
  for (int b = 0; b < m->nbnode; b++) y[m->bnode[b]] = 0.0;
}

static double dot(int n, const double *a, const double *b) {
  double s = 0;
  for (int i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

/* The converged potential, starting from the free stream. */
static double *reference(const aero_mesh *m) {
  int n = m->nnode;
  double *phi = malloc(sizeof(double) * n), *r = malloc(sizeof(double) * n);
  double *u = malloc(sizeof(double) * n), *p = malloc(sizeof(double) * n);
  double *kp = malloc(sizeof(double) * n), *blocks = malloc(sizeof(double) * 16 * m->ncell);
  CHECK(phi && r && u && p && kp && blocks);
  for (int i = 0; i < n; i++) phi[i] = AERO_MINF * m->x[2 * i];
  for (int newton = 0; newton < 30; newton++) {
    assemble(m, phi, r, blocks);
    double rr = dot(n, r, r), rr0 = rr;
    if (rr == 0.0) break;
    memset(u, 0, sizeof(double) * n);
    memcpy(p, r, sizeof(double) * n);
    for (int it = 0; it < 10 * n && rr > 1e-28 * rr0; it++) {
      apply(m, blocks, p, kp);
      double alpha = rr / dot(n, p, kp);
      for (int i = 0; i < n; i++) u[i] += alpha * p[i], r[i] -= alpha * kp[i];
      double rr_new = dot(n, r, r);
      for (int i = 0; i < n; i++) p[i] = r[i] + rr_new / rr * p[i];
      rr = rr_new;
    }
    double step = 0;
    for (int i = 0; i < n; i++) phi[i] -= u[i], step = fmax(step, fabs(u[i]));
    if (step < 1e-15) break;
  }
  free(r), free(u), free(p), free(kp), free(blocks);
  return phi;
}

int main(int argc, char **argv) {
  CHECK(argc >= 5 && strcmp(argv[3], "--") == 0);
  double tol = atof(argv[2]);
  aero_mesh mesh;
  char err[1024];
  if (aero_mesh_read(argv[1], &mesh, err, sizeof err) != 0) {
    fprintf(stderr, "aero_check: %s\n", err);
    return 1;
  }
  double *want = reference(&mesh);

  char dir[] = "/tmp/aero-check-XXXXXX", path[64];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/phi.txt", dir);
  char **cmd = argv + 4;
  for (int a = 0; cmd[a]; a++)
    if (strcmp(cmd[a], "@PHI@") == 0) cmd[a] = path;

  pid_t pid;
  FILE *r = command_start(cmd, &pid);
  char line[1024];
  int passed = 0;
  while (fgets(line, sizeof line, r)) {
    fputs(line, stdout);
    if (strstr(line, "This test is considered PASSED")) passed++;
  }
  command_finish(r, pid);
  CHECK_EQ_INT(passed, 1); /* printed once, on rank 0 */

  FILE *f = fopen(path, "r");
  CHECK(f != NULL);
  int size = 0, dim = 0;
  CHECK(fscanf(f, "%d %d", &size, &dim) == 2);
  CHECK_EQ_INT(size, mesh.nnode);
  CHECK_EQ_INT(dim, 1);
  double worst = 0, moved = 0;
  for (int i = 0; i < size; i++) {
    double v;
    CHECK(fscanf(f, "%lf", &v) == 1);
    worst = fmax(worst, fabs(v - want[i]));
    moved = fmax(moved, fabs(want[i] - AERO_MINF * mesh.x[2 * i]));
  }
  fclose(f);
  unlink(path);
  rmdir(dir);
  printf(
      "aero_check: %d nodes, largest difference from the reference %.3e (tolerance %.1e); the "
      "flow moved the potential by up to %.3e\n",
      size, worst, tol, moved);
  CHECK(worst <= tol);
  CHECK(moved > 1e3 * tol); /* a reference equal to the free stream would prove nothing */
  free(want);
  aero_mesh_free(&mesh);
  return 0;
}
