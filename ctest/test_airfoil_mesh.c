/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests for the Airfoil mesh pieces in samples/airfoil.
 *
 * usage: test_airfoil_mesh AIRFOIL_MESH_EXE [OP2_NEW_GRID_45K]
 *
 * Generates meshes with the airfoil-mesh program, reads them back, and checks every property the
 * Airfoil kernels rely on; checks OP2's own 45k mesh the same way; and feeds the reader broken
 * files. Exits 0 when every check passes, else prints each failure and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mesh_io.h"

static int failures;

static void fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("FAIL: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  failures++;
}

/* A broken mesh breaks a property thousands of times; show the first few and the total. */
enum { SHOWN = 3 };
typedef struct {
  const char *mesh, *property;
  long count;
} tally;

static void violation(tally *t, const char *fmt, ...) {
  if (t->count++ >= SHOWN) return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "FAIL: %s: %s: ", t->mesh, t->property);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

static int close_tally(const tally *t) {
  if (t->count == 0) return 0;
  if (t->count > SHOWN)
    fprintf(stderr, "FAIL: %s: %s: %ld violations in all\n", t->mesh, t->property, t->count);
  failures++;
  return 1;
}

/* ---- geometry --------------------------------------------------------------------------- */

static const double *X(const airfoil_mesh *m, int n) {
  return m->x + 2 * n;
}

static double cell_area(const airfoil_mesh *m, int c) {
  double a = 0.0;
  for (int k = 0; k < 4; k++) {
    const double *p = X(m, m->cell[4 * c + k]), *q = X(m, m->cell[4 * c + (k + 1) % 4]);
    a += p[0] * q[1] - q[0] * p[1];
  }
  return 0.5 * a;
}

/* The vertex average lies inside a convex cell, so strictly on the inner side of each face. */
static void centroid(const airfoil_mesh *m, int c, double out[2]) {
  out[0] = out[1] = 0.0;
  for (int k = 0; k < 4; k++) {
    out[0] += 0.25 * X(m, m->cell[4 * c + k])[0];
    out[1] += 0.25 * X(m, m->cell[4 * c + k])[1];
  }
}

/* Sign of the face normal (dy, -dx), (dx, dy) = x[n1] - x[n2], seen from cell c's centroid:
 * negative when the normal points away from the cell. */
static double normal_side(const airfoil_mesh *m, int c, int n1, int n2) {
  const double *a = X(m, n1), *b = X(m, n2);
  double g[2];
  centroid(m, c, g);
  double dx = a[0] - b[0], dy = a[1] - b[1];
  return (g[0] - 0.5 * (a[0] + b[0])) * dy - (g[1] - 0.5 * (a[1] + b[1])) * dx;
}

/* ---- structure and orientation ---------------------------------------------------------- */

static int same_point(const airfoil_mesh *m, int a, int b) {
  return a == b || (X(m, a)[0] == X(m, b)[0] && X(m, a)[1] == X(m, b)[1]);
}

/* The side of cell c running a -> b, matched by node number or else by position; -1 if none. */
static int side_of(const airfoil_mesh *m, int c, int a, int b, int *by_position) {
  for (int k = 0; k < 4; k++)
    if (m->cell[4 * c + k] == a && m->cell[4 * c + (k + 1) % 4] == b) return k;
  for (int k = 0; k < 4; k++)
    if (same_point(m, m->cell[4 * c + k], a) && same_point(m, m->cell[4 * c + (k + 1) % 4], b)) {
      ++*by_position;
      return k;
    }
  return -1;
}

/* A counter-clockwise cell has its outward normal on the right of each side a -> b, so a face
 * whose normal leaves the cell must be listed as node1 = b, node2 = a. */
static void mark_face(tally *t, unsigned char *sides, const airfoil_mesh *m, const char *kind,
                      int e, int c, int n1, int n2, int leaving, int *by_position) {
  int k = leaving ? side_of(m, c, n2, n1, by_position) : side_of(m, c, n1, n2, by_position);
  int ignored = 0;
  if (k < 0) {
    if (side_of(m, c, n1, n2, &ignored) >= 0 || side_of(m, c, n2, n1, &ignored) >= 0)
      violation(t, "%s %d: normal points the wrong way for cell %d", kind, e, c);
    else
      violation(t, "%s %d: nodes %d %d are not a side of cell %d", kind, e, n1, n2, c);
  } else if (sides[c] & (1u << k)) {
    violation(t, "%s %d: side %d of cell %d is already a face", kind, e, k, c);
  } else {
    sides[c] |= (unsigned char)(1u << k);
  }
}

static int check_indices(const char *name, const airfoil_mesh *m) {
  tally t = {name, "indices in range", 0};
  for (long i = 0; i < 4L * m->ncell; i++)
    if (m->cell[i] < 0 || m->cell[i] >= m->nnode) violation(&t, "cell %ld node", i / 4);
  for (long i = 0; i < 2L * m->nedge; i++) {
    if (m->edge[i] < 0 || m->edge[i] >= m->nnode) violation(&t, "edge %ld node", i / 2);
    if (m->ecell[i] < 0 || m->ecell[i] >= m->ncell) violation(&t, "edge %ld cell", i / 2);
  }
  for (int i = 0; i < m->nbedge; i++) {
    if (m->bedge[2 * i] < 0 || m->bedge[2 * i] >= m->nnode || m->bedge[2 * i + 1] < 0 ||
        m->bedge[2 * i + 1] >= m->nnode)
      violation(&t, "boundary edge %d node", i);
    if (m->becell[i] < 0 || m->becell[i] >= m->ncell) violation(&t, "boundary edge %d cell", i);
    if (m->bound[i] != AIRFOIL_BOUND_WALL && m->bound[i] != AIRFOIL_BOUND_FARFIELD)
      violation(&t, "boundary edge %d bound %d", i, m->bound[i]);
  }
  return close_tally(&t);
}

/* Returns how many face-cell pairs matched only through distinct nodes at the same position. */
static int check_faces(const char *name, const airfoil_mesh *m) {
  unsigned char *sides = calloc((size_t)m->ncell, 1);
  tally t = {name, "every cell side is exactly one correctly oriented face", 0};
  int by_position = 0;
  for (int e = 0; e < m->nedge; e++) {
    int n1 = m->edge[2 * e], n2 = m->edge[2 * e + 1], c1 = m->ecell[2 * e],
        c2 = m->ecell[2 * e + 1];
    if (c1 == c2) violation(&t, "edge %d joins cell %d to itself", e, c1);
    mark_face(&t, sides, m, "edge", e, c1, n1, n2, 1, &by_position);
    mark_face(&t, sides, m, "edge", e, c2, n1, n2, 0, &by_position);
  }
  for (int e = 0; e < m->nbedge; e++)
    mark_face(&t, sides, m, "boundary edge", e, m->becell[e], m->bedge[2 * e], m->bedge[2 * e + 1],
              1, &by_position);
  for (int c = 0; c < m->ncell; c++)
    if (sides[c] != 0xF) violation(&t, "cell %d has sides without a face (mask %#x)", c, sides[c]);
  close_tally(&t);
  free(sides);
  return by_position;
}

/* Geometric counterparts of check_faces, which would also catch clockwise cells. */
static void check_geometry(const char *name, const airfoil_mesh *m) {
  tally area = {name, "cells counter-clockwise with positive area", 0};
  for (int c = 0; c < m->ncell; c++)
    if (!(cell_area(m, c) > 0.0)) violation(&area, "cell %d area %g", c, cell_area(m, c));
  close_tally(&area);

  tally normal = {name, "edge normals point from cell1 to cell2, boundary normals outwards", 0};
  double *sum = calloc(3 * (size_t)m->ncell, sizeof(double)); /* sum dx, sum dy, sum |d| */
  for (int e = 0; e < m->nedge; e++) {
    int n1 = m->edge[2 * e], n2 = m->edge[2 * e + 1], c1 = m->ecell[2 * e],
        c2 = m->ecell[2 * e + 1];
    if (!(normal_side(m, c1, n1, n2) < 0.0 && normal_side(m, c2, n1, n2) > 0.0))
      violation(&normal, "edge %d (cells %d -> %d)", e, c1, c2);
    double dx = X(m, n1)[0] - X(m, n2)[0], dy = X(m, n1)[1] - X(m, n2)[1], len = hypot(dx, dy);
    sum[3 * c1] += dx, sum[3 * c1 + 1] += dy, sum[3 * c1 + 2] += len;
    sum[3 * c2] -= dx, sum[3 * c2 + 1] -= dy, sum[3 * c2 + 2] += len;
  }
  for (int e = 0; e < m->nbedge; e++) {
    int n1 = m->bedge[2 * e], n2 = m->bedge[2 * e + 1], c = m->becell[e];
    if (!(normal_side(m, c, n1, n2) < 0.0)) violation(&normal, "boundary edge %d (cell %d)", e, c);
    double dx = X(m, n1)[0] - X(m, n2)[0], dy = X(m, n1)[1] - X(m, n2)[1];
    sum[3 * c] += dx, sum[3 * c + 1] += dy, sum[3 * c + 2] += hypot(dx, dy);
  }
  close_tally(&normal);

  tally closure = {name, "signed face vectors of each cell sum to zero", 0};
  for (int c = 0; c < m->ncell; c++)
    if (!(hypot(sum[3 * c], sum[3 * c + 1]) <= 1e-13 * sum[3 * c + 2]))
      violation(&closure, "cell %d: (%g, %g) for perimeter %g", c, sum[3 * c], sum[3 * c + 1],
                sum[3 * c + 2]);
  close_tally(&closure);
  free(sum);
}

/* Faces may reach a cell through a duplicate of its node (OP2's mesh does so across its wake
 * cut); expected_by_position says how many such face-cell pairs the mesh must have. */
static void check_mesh(const char *name, const airfoil_mesh *m, int expected_by_position) {
  if (m->nnode <= 0 || m->ncell <= 0) fail("%s: empty mesh", name);
  if (4LL * m->ncell != 2LL * m->nedge + m->nbedge)
    fail("%s: 4 * ncell = %lld but 2 * nedge + nbedge = %lld", name, 4LL * m->ncell,
         2LL * m->nedge + m->nbedge);
  if (check_indices(name, m)) return; /* the checks below index with these */

  tally used = {name, "every node belongs to a cell", 0};
  char *seen = calloc((size_t)m->nnode, 1);
  for (long i = 0; i < 4L * m->ncell; i++) seen[m->cell[i]] = 1;
  for (int n = 0; n < m->nnode; n++)
    if (!seen[n]) violation(&used, "node %d", n);
  close_tally(&used);
  free(seen);

  int kinds[3] = {0, 0, 0};
  for (int e = 0; e < m->nbedge; e++) kinds[m->bound[e]]++;
  if (kinds[AIRFOIL_BOUND_WALL] == 0 || kinds[AIRFOIL_BOUND_FARFIELD] == 0)
    fail("%s: %d wall and %d far-field boundary edges; expected both kinds", name,
         kinds[AIRFOIL_BOUND_WALL], kinds[AIRFOIL_BOUND_FARFIELD]);

  int by_position = check_faces(name, m);
  if (by_position != expected_by_position)
    fail("%s: %d face-cell pairs match only through duplicate nodes, expected %d", name,
         by_position, expected_by_position);
  check_geometry(name, m);
}

/* ---- free stream through Airfoil's flux kernels ----------------------------------------- */

static double gam, gm1, eps, qinf[4];

static void set_constants(void) {
  gam = 1.4f;
  gm1 = gam - 1.0f;
  eps = 0.05f;
  double mach = 0.4f, p = 1.0f, r = 1.0f, u = sqrt(gam * p / r) * mach;
  double e = p / (r * gm1) + 0.5f * u * u;
  qinf[0] = r;
  qinf[1] = r * u;
  qinf[2] = 0.0f;
  qinf[3] = r * e;
}

static void res_calc(const double *x1, const double *x2, const double *q1, const double *q2,
                     const double *adt1, const double *adt2, double *res1, double *res2) {
  double dx, dy, mu, ri, p1, vol1, p2, vol2, f;
  dx = x1[0] - x2[0];
  dy = x1[1] - x2[1];
  ri = 1.0f / q1[0];
  p1 = gm1 * (q1[3] - 0.5f * ri * (q1[1] * q1[1] + q1[2] * q1[2]));
  vol1 = ri * (q1[1] * dy - q1[2] * dx);
  ri = 1.0f / q2[0];
  p2 = gm1 * (q2[3] - 0.5f * ri * (q2[1] * q2[1] + q2[2] * q2[2]));
  vol2 = ri * (q2[1] * dy - q2[2] * dx);
  mu = 0.5f * ((*adt1) + (*adt2)) * eps;
  f = 0.5f * (vol1 * q1[0] + vol2 * q2[0]) + mu * (q1[0] - q2[0]);
  res1[0] += f;
  res2[0] -= f;
  f = 0.5f * (vol1 * q1[1] + p1 * dy + vol2 * q2[1] + p2 * dy) + mu * (q1[1] - q2[1]);
  res1[1] += f;
  res2[1] -= f;
  f = 0.5f * (vol1 * q1[2] - p1 * dx + vol2 * q2[2] - p2 * dx) + mu * (q1[2] - q2[2]);
  res1[2] += f;
  res2[2] -= f;
  f = 0.5f * (vol1 * (q1[3] + p1) + vol2 * (q2[3] + p2)) + mu * (q1[3] - q2[3]);
  res1[3] += f;
  res2[3] -= f;
}

static void bres_calc(const double *x1, const double *x2, const double *q1, const double *adt1,
                      double *res1, const int *bound) {
  double dx, dy, mu, ri, p1, vol1, p2, vol2, f;
  dx = x1[0] - x2[0];
  dy = x1[1] - x2[1];
  ri = 1.0f / q1[0];
  p1 = gm1 * (q1[3] - 0.5f * ri * (q1[1] * q1[1] + q1[2] * q1[2]));
  if (*bound == 1) {
    res1[1] += +p1 * dy;
    res1[2] += -p1 * dx;
  } else {
    vol1 = ri * (q1[1] * dy - q1[2] * dx);
    ri = 1.0f / qinf[0];
    p2 = gm1 * (qinf[3] - 0.5f * ri * (qinf[1] * qinf[1] + qinf[2] * qinf[2]));
    vol2 = ri * (qinf[1] * dy - qinf[2] * dx);
    mu = (*adt1) * eps;
    f = 0.5f * (vol1 * q1[0] + vol2 * qinf[0]) + mu * (q1[0] - qinf[0]);
    res1[0] += f;
    f = 0.5f * (vol1 * q1[1] + p1 * dy + vol2 * qinf[1] + p2 * dy) + mu * (q1[1] - qinf[1]);
    res1[1] += f;
    f = 0.5f * (vol1 * q1[2] - p1 * dx + vol2 * qinf[2] - p2 * dx) + mu * (q1[2] - qinf[2]);
    res1[2] += f;
    f = 0.5f * (vol1 * (q1[3] + p1) + vol2 * (qinf[3] + p2)) + mu * (q1[3] - qinf[3]);
    res1[3] += f;
  }
}

/* A uniform flow is a steady solution, so its residual vanishes wherever only flux faces meet:
 * every cell off the wall, far-field cells included. Far from exact closure and orientation, it
 * would not. Tolerance is relative to the flux through the cell's faces. */
static void check_freestream(const char *name, const airfoil_mesh *m) {
  size_t nc = (size_t)m->ncell;
  double *q = malloc(4 * nc * sizeof(double)), *adt = malloc(nc * sizeof(double));
  double *res = calloc(4 * nc, sizeof(double)), *perimeter = calloc(nc, sizeof(double));
  char *wall = calloc(nc, 1);
  for (size_t c = 0; c < nc; c++) {
    memcpy(q + 4 * c, qinf, sizeof qinf);
    adt[c] = 1.0;
  }
  for (int e = 0; e < m->nedge; e++) {
    const int *n = m->edge + 2 * e, *c = m->ecell + 2 * e;
    res_calc(X(m, n[0]), X(m, n[1]), q + 4 * c[0], q + 4 * c[1], adt + c[0], adt + c[1],
             res + 4 * c[0], res + 4 * c[1]);
    double len = hypot(X(m, n[0])[0] - X(m, n[1])[0], X(m, n[0])[1] - X(m, n[1])[1]);
    perimeter[c[0]] += len;
    perimeter[c[1]] += len;
  }
  for (int e = 0; e < m->nbedge; e++) {
    const int *n = m->bedge + 2 * e, c = m->becell[e];
    bres_calc(X(m, n[0]), X(m, n[1]), q + 4 * c, adt + c, res + 4 * c, m->bound + e);
    if (m->bound[e] == AIRFOIL_BOUND_WALL) wall[c] = 1;
  }
  double p = gm1 * (qinf[3] - 0.5 * qinf[1] * qinf[1] / qinf[0]);
  double flux = qinf[1] * qinf[1] / qinf[0] + p; /* the largest component per unit face */
  tally t = {name, "free stream leaves zero residual off the wall", 0};
  long checked = 0;
  for (size_t c = 0; c < nc; c++) {
    if (wall[c]) continue;
    checked++;
    for (int k = 0; k < 4; k++)
      if (!(fabs(res[4 * c + k]) <= 1e-12 * flux * perimeter[c]))
        violation(&t, "cell %zu res[%d] = %g (flux scale %g)", c, k, res[4 * c + k],
                  flux * perimeter[c]);
  }
  if (checked == 0) violation(&t, "no cell off the wall to check");
  close_tally(&t);
  free(q);
  free(adt);
  free(res);
  free(perimeter);
  free(wall);
}

/* ---- generated meshes ------------------------------------------------------------------- */

enum { MAX_TEMP = 64 };
static char tmpdir[] = "/tmp/test_airfoil_mesh.XXXXXX";
static char created[MAX_TEMP][sizeof tmpdir + 64];
static int ncreated;

/* Names a file in the temporary directory, removed at exit. */
static const char *temp_path(const char *file) {
  if (ncreated == MAX_TEMP || strlen(file) >= 64 - 1) {
    fprintf(stderr, "test_airfoil_mesh: too many or too long temporary file names\n");
    exit(1);
  }
  char *p = created[ncreated++];
  snprintf(p, sizeof created[0], "%s/%s", tmpdir, file);
  return p;
}

/* Runs the generator without a shell; stderr is dropped for runs expected to fail. */
static int run_generator(const char *exe, const char *const *args, int quiet) {
  const char *argv[16] = {exe};
  int n = 1;
  while (args[n - 1] && n < 15) argv[n] = args[n - 1], n++;
  argv[n] = NULL;
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    if (quiet && null >= 0) dup2(null, 2);
    execv(exe, (char *const *)argv);
    _exit(127);
  }
  int status;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static double naca0012(double x) {
  return 0.6 * (0.2969 * sqrt(x) - 0.1260 * x - 0.3516 * x * x + 0.2843 * x * x * x -
                0.1036 * x * x * x * x);
}

static void check_generated(const char *name, const airfoil_mesh *m, int ni, int nj, double r) {
  if (m->nnode != ni * (nj + 1) || m->ncell != ni * nj || m->nedge != ni * (2 * nj - 1) ||
      m->nbedge != 2 * ni) {
    fail("%s: counts %d %d %d %d, expected %d %d %d %d for %dx%d", name, m->nnode, m->ncell,
         m->nedge, m->nbedge, ni * (nj + 1), ni * nj, ni * (2 * nj - 1), 2 * ni, ni, nj);
    return;
  }
  tally place = {name, "wall on the NACA 0012 surface, far field on the circle", 0};
  int walls = 0;
  for (int e = 0; e < m->nbedge; e++) {
    walls += m->bound[e] == AIRFOIL_BOUND_WALL;
    for (int k = 0; k < 2; k++) {
      const double *p = X(m, m->bedge[2 * e + k]);
      if (m->bound[e] == AIRFOIL_BOUND_WALL
              ? !(p[0] >= 0.0 && p[0] <= 1.0 && fabs(fabs(p[1]) - naca0012(p[0])) < 1e-12)
              : !(fabs(hypot(p[0] - 0.5, p[1]) - r) < 1e-12 * r))
        violation(&place, "boundary edge %d node at (%.17g, %.17g)", e, p[0], p[1]);
    }
  }
  if (walls != ni) violation(&place, "%d wall edges, expected %d", walls, ni);
  close_tally(&place);

  /* Loose bounds: a fold or a sliver near the edges of the airfoil would still break them. */
  tally shape = {name, "cells convex with side ratio below 5", 0};
  for (int c = 0; c < m->ncell; c++) {
    double lmin = INFINITY, lmax = 0.0;
    for (int k = 0; k < 4; k++) {
      const double *a = X(m, m->cell[4 * c + k]), *b = X(m, m->cell[4 * c + (k + 1) % 4]);
      const double *d = X(m, m->cell[4 * c + (k + 2) % 4]);
      double len = hypot(b[0] - a[0], b[1] - a[1]);
      lmin = fmin(lmin, len);
      lmax = fmax(lmax, len);
      if (!((b[0] - a[0]) * (d[1] - b[1]) - (b[1] - a[1]) * (d[0] - b[0]) > 0.0))
        violation(&shape, "cell %d turns the wrong way at corner %d", c, (k + 1) % 4);
    }
    if (!(lmax < 5.0 * lmin)) violation(&shape, "cell %d sides %g..%g", c, lmin, lmax);
  }
  close_tally(&shape);
}

static int read_mesh(const char *path, airfoil_mesh *m) {
  char err[512];
  if (airfoil_mesh_read(path, m, err, sizeof err) == 0) return 0;
  fail("reading %s: %s", path, err);
  return -1;
}

static int cmp_point(const void *a, const void *b) {
  const double *p = a, *q = b;
  return p[0] != q[0] ? (p[0] < q[0] ? -1 : 1) : p[1] != q[1] ? (p[1] < q[1] ? -1 : 1) : 0;
}

/* The shuffled mesh must be the same mesh: same points, same cells in other places. */
static void compare_shuffled(const airfoil_mesh *a, const airfoil_mesh *b) {
  if (a->nnode != b->nnode || a->ncell != b->ncell || a->nedge != b->nedge ||
      a->nbedge != b->nbedge) {
    fail("random order: counts differ from the ordered mesh");
    return;
  }
  size_t bytes = 2 * sizeof(double) * (size_t)a->nnode;
  double *pa = malloc(bytes), *pb = malloc(bytes);
  memcpy(pa, a->x, bytes);
  memcpy(pb, b->x, bytes);
  qsort(pa, (size_t)a->nnode, 2 * sizeof(double), cmp_point);
  qsort(pb, (size_t)b->nnode, 2 * sizeof(double), cmp_point);
  if (memcmp(pa, pb, bytes) != 0) fail("random order: node coordinates differ from ordered mesh");
  if (memcmp(a->x, b->x, bytes) == 0 ||
      memcmp(a->cell, b->cell, 4 * sizeof(int) * (size_t)a->ncell) == 0 ||
      memcmp(a->edge, b->edge, 2 * sizeof(int) * (size_t)a->nedge) == 0)
    fail("random order: nodes, cells or edges were left in order");
  double sa = 0.0, sb = 0.0;
  for (int c = 0; c < a->ncell; c++) sa += cell_area(a, c), sb += cell_area(b, c);
  if (!(fabs(sa - sb) <= 1e-12 * sa)) fail("random order: total area %.17g vs %.17g", sb, sa);
  free(pa);
  free(pb);
}

static int same_mesh(const airfoil_mesh *a, const airfoil_mesh *b) {
  return a->nnode == b->nnode && a->ncell == b->ncell && a->nedge == b->nedge &&
         a->nbedge == b->nbedge && !memcmp(a->x, b->x, 16 * (size_t)a->nnode) &&
         !memcmp(a->cell, b->cell, 16 * (size_t)a->ncell) &&
         !memcmp(a->edge, b->edge, 8 * (size_t)a->nedge) &&
         !memcmp(a->ecell, b->ecell, 8 * (size_t)a->nedge) &&
         !memcmp(a->bedge, b->bedge, 8 * (size_t)a->nbedge) &&
         !memcmp(a->becell, b->becell, 4 * (size_t)a->nbedge) &&
         !memcmp(a->bound, b->bound, 4 * (size_t)a->nbedge);
}

/* A gzip stream cut short must be an error even where the text so far parses: here only the
 * length at the very end of the stream is missing. */
static void check_cut_gzip(const char *path) {
  FILE *f = fopen(path, "rb");
  char *data = malloc(1 << 22), err[512] = "";
  size_t n = f ? fread(data, 1, 1 << 22, f) : 0;
  if (f) fclose(f);
  const char *cut = temp_path("cut.dat.gz");
  FILE *g = fopen(cut, "wb");
  if (n < 64 || g == NULL || fwrite(data, 1, n - 4, g) != n - 4 || fclose(g) != 0) {
    fail("cannot make a cut copy of %s", path);
  } else {
    airfoil_mesh m;
    size_t k = strlen(cut);
    if (airfoil_mesh_read(cut, &m, err, sizeof err) == 0) {
      fail("%s: reading a cut gzip file succeeded", cut);
      airfoil_mesh_free(&m);
    } else if (strncmp(err, cut, k) != 0 || err[k] != ':' || err[k + 1] < '1' || err[k + 1] > '9' ||
               strstr(err, "read failed") == NULL) {
      fail("%s: error \"%s\", expected \"%s:LINE: read failed: ...\"", cut, err, cut);
    }
  }
  free(data);
}

static void check_round_trip(const airfoil_mesh *m, const char *file) {
  char err[512];
  const char *path = temp_path(file);
  airfoil_mesh back;
  if (airfoil_mesh_write(path, m, err, sizeof err)) {
    fail("writing %s: %s", path, err);
    return;
  }
  if (read_mesh(path, &back)) return;
  if (!same_mesh(m, &back)) fail("%s: mesh read back differs from the one written", path);
  airfoil_mesh_free(&back);
  if (strstr(file, ".gz")) check_cut_gzip(path);
}

static void test_generator(const char *exe) {
  static const struct {
    const char *args[8];
    int ni, nj;
    double r;
  } cases[] = {
      {{"--ij", "40x20", "ordered.dat"}, 40, 20, 20.0},
      {{"--ij=64x32", "--farfield", "10", "r10.dat.gz"}, 64, 32, 10.0},
      {{"--ij", "40x20", "--random-order", "12345", "shuffled.dat"}, 40, 20, 20.0},
      {{"--cells", "5000", "--farfield=50", "cells.dat"}, 100, 50, 50.0},
      {{"--ij", "41x21", "--random-order", "0", "odd.dat"}, 41, 21, 20.0},
  };
  airfoil_mesh ordered = {0};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    const char *args[8];
    int n = 0;
    for (; cases[k].args[n + 1]; n++) args[n] = cases[k].args[n];
    const char *path = temp_path(cases[k].args[n]);
    args[n] = path;
    args[n + 1] = NULL;
    int status = run_generator(exe, args, 0);
    airfoil_mesh m;
    if (status != 0) {
      fail("%s %s ... exited with %d", exe, args[0], status);
      continue;
    }
    if (read_mesh(path, &m)) continue;
    check_mesh(path, &m, 0);
    check_generated(path, &m, cases[k].ni, cases[k].nj, cases[k].r);
    check_freestream(path, &m);
    if (k == 0) {
      ordered = m;
      check_round_trip(&m, "round-trip.dat");
      check_round_trip(&m, "round-trip.dat.gz");
      continue;
    }
    if (k == 2 && ordered.x) compare_shuffled(&ordered, &m);
    airfoil_mesh_free(&m);
  }
  airfoil_mesh_free(&ordered);

  /* "OUT" stands for a file in the temporary directory, which no rejected run may create. */
  static const char *const bad[][6] = {
      {"--ij", "7x20", "OUT"},    {"--ij", "40x", "OUT"},
      {"--cells", "abc", "OUT"},  {"--cells", "1000", "--ij", "40x20", "OUT"},
      {"--farfield", "1", "OUT"}, {"--random-order", "-3", "OUT"},
      {"--frobnicate", "OUT"},    {"OUT", "--cells"},
      {"OUT", "two.dat"},         {NULL},
  };
  const char *out = temp_path("rejected.dat");
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    const char *args[6] = {NULL};
    for (int n = 0; bad[k][n]; n++) args[n] = strcmp(bad[k][n], "OUT") ? bad[k][n] : out;
    int status = run_generator(exe, args, 1);
    if (status != 2)
      fail("airfoil-mesh %s %s: exit status %d, expected 2 (usage error)", args[0] ? args[0] : "",
           args[0] && args[1] ? args[1] : "", status);
  }
  if (access(out, F_OK) == 0) fail("a rejected command line still wrote %s", out);
}

/* ---- OP2's mesh ------------------------------------------------------------------------- */

/* Parts of a read by several processes: for every part count, the parts' records in order are
 * the whole file's, each part names the whole mesh's counts and where its block starts. */
static int same_slice(const char *path, const char *what, int np, int k, const void *part,
                      const void *whole, long first, long count, size_t row) {
  if (memcmp(part, (const char *)whole + (size_t)first * row, (size_t)count * row) == 0) return 0;
  fail("%s: part %d of %d: %s differ from the whole read's", path, k, np, what);
  return 1;
}

static void check_parts(const char *path, const airfoil_mesh *m) {
  char err[512] = "";
  for (int np = 1; np <= 5; np++) {
    long next[4] = {0, 0, 0, 0};
    for (int k = 0; k < np; k++) {
      airfoil_mesh_part p;
      if (airfoil_mesh_read_part(path, k, np, &p, err, sizeof err) != 0) {
        fail("%s: part %d of %d: %s", path, k, np, err);
        return;
      }
      const airfoil_mesh *l = &p.local;
      long first[4] = {p.first_node, p.first_cell, p.first_edge, p.first_bedge};
      int count[4] = {l->nnode, l->ncell, l->nedge, l->nbedge};
      int bad = p.nnode != m->nnode || p.ncell != m->ncell || p.nedge != m->nedge ||
                p.nbedge != m->nbedge;
      if (bad) fail("%s: part %d of %d: whole-mesh counts differ", path, k, np);
      for (int s = 0; s < 4; s++) {
        if (first[s] != next[s]) {
          fail("%s: part %d of %d: section %d starts at %ld, expected %ld", path, k, np, s,
               first[s], next[s]);
          bad = 1;
        }
        next[s] = first[s] + count[s];
      }
      if (!bad)
        bad =
            same_slice(path, "nodes", np, k, l->x, m->x, first[0], count[0], 2 * sizeof(double)) ||
            same_slice(path, "cells", np, k, l->cell, m->cell, first[1], count[1],
                       4 * sizeof(int)) ||
            same_slice(path, "edges", np, k, l->edge, m->edge, first[2], count[2],
                       2 * sizeof(int)) ||
            same_slice(path, "edge cells", np, k, l->ecell, m->ecell, first[2], count[2],
                       2 * sizeof(int)) ||
            same_slice(path, "boundary edges", np, k, l->bedge, m->bedge, first[3], count[3],
                       2 * sizeof(int)) ||
            same_slice(path, "boundary cells", np, k, l->becell, m->becell, first[3], count[3],
                       sizeof(int)) ||
            same_slice(path, "bounds", np, k, l->bound, m->bound, first[3], count[3], sizeof(int));
      airfoil_mesh_free(&p.local);
      if (bad) return;
    }
    if (next[0] != m->nnode || next[1] != m->ncell || next[2] != m->nedge || next[3] != m->nbedge)
      fail("%s: the %d parts together do not cover the mesh", path, np);
  }
}

static void test_op2_mesh(const char *path) {
  airfoil_mesh m;
  if (read_mesh(path, &m)) return;
  if (m.nnode != 45451 || m.ncell != 45000 || m.nedge != 89650 || m.nbedge != 700)
    fail("%s: counts %d %d %d %d, expected 45451 45000 89650 700", path, m.nnode, m.ncell, m.nedge,
         m.nbedge);
  /* Its C-grid numbers the nodes on the two sides of the wake cut separately, so each of the 100
   * cut faces names the nodes of one side only. Airfoil sees coordinates, not node numbers. */
  check_mesh(path, &m, 100);
  check_freestream(path, &m);
  check_parts(path, &m);
  airfoil_mesh_free(&m);
}

/* ---- broken files ----------------------------------------------------------------------- */

/* One unit square cell, bounded by two wall and two far-field faces. */
#define TINY_HEAD "4 1 0 4\n0 0\n1 0\n1 1\n0 1\n0 1 2 3\n"
#define TINY_BEDGES "1 0 0 1\n2 1 0 2\n3 2 0 2\n0 3 0 1\n"

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0) fail("cannot write %s", path);
}

/* The message must start "PATH:LINE:" and mention what is wrong. */
static void expect_error(const char *file, const char *text, int line, const char *what) {
  const char *path = temp_path(file);
  char err[512] = "", want[256];
  airfoil_mesh m;
  write_text(path, text);
  if (airfoil_mesh_read(path, &m, err, sizeof err) == 0) {
    fail("%s: read succeeded, expected an error at line %d", path, line);
    airfoil_mesh_free(&m);
    return;
  }
  if (m.x != NULL || m.ncell != 0) fail("%s: failed read left a non-empty mesh", path);
  snprintf(want, sizeof want, "%s:%d: ", path, line);
  if (strncmp(err, want, strlen(want)) != 0 || strstr(err, what) == NULL)
    fail("%s: error \"%s\", expected it to start \"%s\" and mention \"%s\"", path, err, want, what);
  /* Read in parts, each part sees the faults of its own records only: the one first in reading
   * order (the lowest part on a tie) must say what the whole read said. */
  for (int np = 2; np <= 5; np++) {
    char first[512] = "", e[512];
    long first_order = -1;
    for (int k = 0; k < np; k++) {
      airfoil_mesh_part p;
      if (airfoil_mesh_read_part(path, k, np, &p, e, sizeof e) == 0) {
        airfoil_mesh_free(&p.local);
        continue;
      }
      if (p.local.x != NULL) fail("%s: failed part %d of %d left records", path, k, np);
      if (first_order < 0 || p.error_order < first_order) {
        first_order = p.error_order;
        snprintf(first, sizeof first, "%s", e);
      }
    }
    if (strcmp(first, err) != 0)
      fail("%s: in %d parts the first fault reads \"%s\", the whole read \"%s\"", path, np, first,
           err);
  }
}

static void test_bad_input(void) {
  airfoil_mesh m;
  const char *tiny = temp_path("tiny.dat");
  write_text(tiny, TINY_HEAD TINY_BEDGES);
  if (read_mesh(tiny, &m) == 0) {
    check_mesh(tiny, &m, 0);
    airfoil_mesh_free(&m);
  }

  expect_error("truncated.dat", TINY_HEAD "1 0 0 1\n2 1 0 2\n", 9, "unexpected end of file");
  expect_error("cut-line.dat", TINY_HEAD "1 0 0 1\n2 1 0 2\n3 2 0", 9,
               "expected 4 fields, found 3");
  expect_error("huge-count.dat", "4 1 0 1000000000\n0 0\n1 0\n1 1\n0 1\n0 1 2 3\n" TINY_BEDGES, 11,
               "unexpected end of file");
  expect_error("empty.dat", "", 1, "unexpected end of file");
  expect_error("node-range.dat", "4 1 0 4\n0 0\n1 0\n1 1\n0 1\n0 1 2 4\n" TINY_BEDGES, 6,
               "node index 4 out of range");
  expect_error("cell-range.dat", TINY_HEAD "1 0 0 1\n2 1 1 2\n3 2 0 2\n0 3 0 1\n", 8,
               "cell index 1 out of range");
  expect_error("not-number.dat", "4 1 0 4\n0 0\n1 abc\n1 1\n0 1\n0 1 2 3\n" TINY_BEDGES, 3,
               "'abc' is not a number");
  expect_error("not-int.dat", "4 1 0 4\n0 0\n1 0\n1 1\n0 1\n0 1 2.5 3\n" TINY_BEDGES, 6,
               "'2.5' is not an integer");
  expect_error("extra-field.dat", "4 1 0 4\n0 0 7\n1 0\n1 1\n0 1\n0 1 2 3\n" TINY_BEDGES, 2,
               "found more");
  expect_error("bound.dat", TINY_HEAD "1 0 0 1\n2 1 0 2\n3 2 0 3\n0 3 0 1\n", 9, "bound 3");
  expect_error("negative.dat", "4 -1 0 4\n0 0\n1 0\n1 1\n0 1\n", 1, "ncell = -1 is negative");
  expect_error("trailing.dat", TINY_HEAD TINY_BEDGES "5 5\n", 11, "unexpected data");

  const char *missing = temp_path("missing.dat");
  char err[512] = "";
  if (airfoil_mesh_read(missing, &m, err, sizeof err) == 0 || strstr(err, missing) != err)
    fail("reading a missing file: \"%s\", expected an error naming %s", err, missing);
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: %s AIRFOIL_MESH_EXE [OP2_NEW_GRID_45K]\n", argv[0]);
    return 2;
  }
  if (mkdtemp(tmpdir) == NULL) {
    perror("mkdtemp");
    return 1;
  }
  set_constants();
  test_generator(argv[1]);
  if (argc == 3)
    test_op2_mesh(argv[2]);
  else
    printf("SKIP: no OP2 mesh given\n");
  test_bad_input();

  for (int k = 0; k < ncreated; k++) unlink(created[k]);
  rmdir(tmpdir);
  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("all airfoil mesh checks passed\n");
  return 0;
}
