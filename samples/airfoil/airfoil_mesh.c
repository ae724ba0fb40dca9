/* SPDX-License-Identifier: BSD-3-Clause */
/* airfoil-mesh: writes a structured quadrilateral O-grid around a NACA 0012 section, in OP2's
 * new_grid.dat format, for the Airfoil sample.
 *
 * The grid is built in the plane of a Joukowski map whose slit runs from just inside the
 * leading-edge circle to the trailing edge. There the airfoil is a near circle (with only a
 * shallow corner at the trailing edge), so a polar grid, uniform in angle and in log radius,
 * maps back to a conformal, nearly orthogonal grid: cells are close to squares everywhere, the
 * surface spacing clusters towards both edges like cosine spacing, the radial spacing grows
 * geometrically, and the sharp trailing edge is opened without folded cells.
 */
#include <complex.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_io.h"

enum { MIN_I = 8, MIN_J = 2, MIN_CELLS = 32, MAX_CELLS = 100000000 };

typedef struct {
  int ni, nj; /* cells around the airfoil, cells from the wall to the far field */
  double farfield;
  int shuffle;
  unsigned long long seed;
  const char *output;
} options;

static int usage_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("airfoil-mesh: ", stderr);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputs("\nTry 'airfoil-mesh --help'.\n", stderr);
  return 2;
}

static void usage(void) {
  printf(
      "usage: airfoil-mesh [--cells N | --ij IxJ] [--farfield R] [--random-order SEED] OUTPUT\n"
      "Writes an O-grid around a NACA 0012 airfoil (chord 1, leading edge at the origin) in\n"
      "OP2's new_grid.dat format; OUTPUT ending in .gz is compressed.\n"
      "  --cells N           about N cells (%d..%d), with I about 2*J\n"
      "  --ij IxJ            I cells around the airfoil, J from wall to far field (200x100)\n"
      "  --farfield R        far-field circle radius in chords, centred mid-chord (20)\n"
      "  --random-order SEED randomly renumber nodes, cells and edges (locality benchmarks)\n",
      MIN_CELLS, MAX_CELLS);
}

static int parse_long(const char *s, long *v) {
  char *end;
  errno = 0;
  *v = strtol(s, &end, 10);
  return end != s && *end == '\0' && errno == 0 ? 0 : -1;
}

/* Accepts "--name VALUE" and "--name=VALUE"; returns NULL when argv[*k] is not that option. */
static const char *option_value(int argc, char **argv, int *k, const char *name, int *missing) {
  size_t n = strlen(name);
  if (strncmp(argv[*k], name, n) != 0) return NULL;
  if (argv[*k][n] == '=') return argv[*k] + n + 1;
  if (argv[*k][n] != '\0') return NULL;
  if (*k + 1 >= argc) {
    *missing = 1;
    return NULL;
  }
  return argv[++*k];
}

static int parse_args(int argc, char **argv, options *o) {
  *o = (options){200, 100, 20.0, 0, 0, NULL};
  int have_cells = 0, have_ij = 0;
  for (int k = 1; k < argc; k++) {
    int missing = 0;
    const char *v;
    if ((v = option_value(argc, argv, &k, "--cells", &missing))) {
      long n;
      if (parse_long(v, &n) || n < MIN_CELLS || n > MAX_CELLS)
        return usage_error("--cells wants an integer in [%d, %d], not '%s'", MIN_CELLS, MAX_CELLS,
                           v);
      /* I = 2J keeps the cells near square (see the header comment). */
      o->nj = (int)lround(sqrt(n / 2.0));
      o->ni = (int)lround((double)n / o->nj);
      have_cells = 1;
    } else if ((v = option_value(argc, argv, &k, "--ij", &missing))) {
      char *end;
      long i = strtol(v, &end, 10), j = -1;
      if (end != v && (*end == 'x' || *end == 'X') && parse_long(end + 1, &j) != 0) j = -1;
      if (i < MIN_I || j < MIN_J || i > MAX_CELLS / j)
        return usage_error("--ij wants IxJ with I >= %d, J >= %d and I*J <= %d, not '%s'", MIN_I,
                           MIN_J, MAX_CELLS, v);
      o->ni = (int)i;
      o->nj = (int)j;
      have_ij = 1;
    } else if ((v = option_value(argc, argv, &k, "--farfield", &missing))) {
      char *end;
      o->farfield = strtod(v, &end);
      if (end == v || *end != '\0' || !(o->farfield >= 2.0 && o->farfield <= 1e6))
        return usage_error("--farfield wants a radius in chords in [2, 1e6], not '%s'", v);
    } else if ((v = option_value(argc, argv, &k, "--random-order", &missing))) {
      char *end;
      errno = 0;
      o->seed = strtoull(v, &end, 10);
      if (end == v || *end != '\0' || errno || v[0] == '-')
        return usage_error("--random-order wants a non-negative integer seed, not '%s'", v);
      o->shuffle = 1;
    } else if (missing) {
      return usage_error("%s needs a value", argv[k]);
    } else if (strcmp(argv[k], "--help") == 0 || strcmp(argv[k], "-h") == 0) {
      usage();
      exit(0);
    } else if (argv[k][0] == '-' && argv[k][1] != '\0') {
      return usage_error("unknown option '%s'", argv[k]);
    } else if (o->output) {
      return usage_error("only one OUTPUT expected, got '%s' and '%s'", o->output, argv[k]);
    } else {
      o->output = argv[k];
    }
  }
  if (have_cells && have_ij) return usage_error("give --cells or --ij, not both");
  if (o->output == NULL) return usage_error("missing OUTPUT file name");
  return 0;
}

/* ---- geometry --------------------------------------------------------------------------- */

/* Half thickness; -0.1036 (not -0.1015) closes the trailing edge. */
static double naca0012(double x) {
  return 0.6 * (0.2969 * sqrt(x) + x * (-0.1260 + x * (-0.3516 + x * (0.2843 - 0.1036 * x))));
}

/* glibc's CMPLX is missing under clang; the parts are always finite here, where this is exact. */
static double complex point(double x, double y) {
  return x + y * I;
}

/* z = mid + w + a^2 / w maps |w| > a onto the plane outside the slit [c0, 1]. */
typedef struct {
  double c0, mid, a;
} joukowski;

static joukowski make_joukowski(void) {
  /* Half the leading-edge radius 1.1019 t^2: inside the nose, so its image stays smooth. */
  double c0 = 0.5 * 1.1019 * 0.12 * 0.12;
  return (joukowski){c0, 0.5 * (c0 + 1.0), 0.25 * (1.0 - c0)};
}

static double complex to_circle(const joukowski *jk, double complex z) {
  /* (z - c0)(z - 1) rather than w^2 - 4a^2: no cancellation next to the trailing edge. */
  double complex s = csqrt((z - jk->c0) * (z - 1.0));
  double complex w = z - jk->mid, r1 = 0.5 * (w + s), r2 = 0.5 * (w - s);
  return cabs(r1) >= cabs(r2) ? r1 : r2;
}

static double complex from_circle(const joukowski *jk, double complex w) {
  return jk->mid + w + jk->a * jk->a / w;
}

/* The upper-surface point whose image has argument t in [0, pi]. The parameter u (x = (1 + cos
 * u) / 2) makes the surface smooth through the nose, and the image's argument grows with u. */
static double complex upper_surface_point(const joukowski *jk, double t) {
  if (t <= 0.0) return 1.0;
  if (t >= M_PI) return 0.0;
  double lo = 0.0, hi = M_PI;
  for (;;) {
    double u = 0.5 * (lo + hi);
    if (u <= lo || u >= hi) break;
    double x = 0.5 * (1.0 + cos(u));
    if (carg(to_circle(jk, point(x, naca0012(x)))) < t)
      lo = u;
    else
      hi = u;
  }
  double x = 0.5 * (1.0 + cos(lo));
  return point(x, naca0012(x));
}

static int node_id(const options *o, int i, int j) {
  return j * o->ni + (i % o->ni);
}
static int cell_id(const options *o, int i, int j) {
  return j * o->ni + (i + o->ni) % o->ni;
}

/* Node column i runs from the wall (j = 0) to the far field (j = nj). Columns below the chord
 * are mirror images of those above, so the mesh is exactly symmetric. */
static void place_nodes(const options *o, const joukowski *jk, double *x) {
  for (int i = 0; i <= o->ni / 2; i++) {
    double t = 2.0 * M_PI * i / o->ni;
    double complex s = upper_surface_point(jk, t);
    double complex f = point(0.5 + o->farfield * cos(t), o->farfield * sin(t));
    if (i == 0 || 2 * i == o->ni) f = creal(f);
    double complex ws = to_circle(jk, s);
    double complex step = clog(to_circle(jk, f) / ws);
    for (int j = 0; j <= o->nj; j++) {
      double complex z = j == 0 ? s : j == o->nj ? f : from_circle(jk, ws * cexp(step * j / o->nj));
      double *up = x + 2 * node_id(o, i, j), *down = x + 2 * node_id(o, o->ni - i, j);
      up[0] = creal(z);
      up[1] = cimag(z);
      if (down != up) {
        down[0] = creal(z);
        down[1] = -cimag(z);
      }
    }
  }
}

/* ---- topology --------------------------------------------------------------------------- */

/* Index i runs counter-clockwise round the airfoil and j outwards, so (i,j) (i,j+1) (i+1,j+1)
 * (i+1,j) is counter-clockwise. Every face is listed so that node1 - node2, turned clockwise,
 * points from cell1 into cell2 (or out of the domain). Edges go out layer by layer, each cell's
 * two new faces together, so that consecutive edges touch nearby cells. */
static void connect(const options *o, airfoil_mesh *m) {
  int ni = o->ni, nj = o->nj, e = 0;
  for (int j = 0; j < nj; j++) {
    for (int i = 0; i < ni; i++) {
      int *c = m->cell + 4 * cell_id(o, i, j);
      c[0] = node_id(o, i, j);
      c[1] = node_id(o, i, j + 1);
      c[2] = node_id(o, i + 1, j + 1);
      c[3] = node_id(o, i + 1, j);

      m->edge[2 * e] = node_id(o, i, j);
      m->edge[2 * e + 1] = node_id(o, i, j + 1);
      m->ecell[2 * e] = cell_id(o, i - 1, j);
      m->ecell[2 * e + 1] = cell_id(o, i, j);
      e++;
      if (j + 1 < nj) {
        m->edge[2 * e] = node_id(o, i + 1, j + 1);
        m->edge[2 * e + 1] = node_id(o, i, j + 1);
        m->ecell[2 * e] = cell_id(o, i, j);
        m->ecell[2 * e + 1] = cell_id(o, i, j + 1);
        e++;
      }
    }
  }
  for (int i = 0; i < ni; i++) {
    int *wall = m->bedge + 2 * i, *far = m->bedge + 2 * (ni + i);
    wall[0] = node_id(o, i, 0);
    wall[1] = node_id(o, i + 1, 0);
    m->becell[i] = cell_id(o, i, 0);
    m->bound[i] = AIRFOIL_BOUND_WALL;
    far[0] = node_id(o, i + 1, nj);
    far[1] = node_id(o, i, nj);
    m->becell[ni + i] = cell_id(o, i, nj - 1);
    m->bound[ni + i] = AIRFOIL_BOUND_FARFIELD;
  }
}

/* ---- random renumbering ----------------------------------------------------------------- */

static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static int *random_permutation(int n, uint64_t *state) {
  int *p = malloc(sizeof(int) * (size_t)(n ? n : 1));
  if (p == NULL) return NULL;
  for (int i = 0; i < n; i++) p[i] = i;
  for (int i = n - 1; i > 0; i--) {
    int k = (int)(splitmix64(state) % (uint64_t)(i + 1));
    int t = p[i];
    p[i] = p[k];
    p[k] = t;
  }
  return p;
}

/* Moves record r (width ints) to row perm[r], renaming its entries through rename (if any). */
static void permute_rows(int *a, int n, int width, const int *perm, const int *rename, int *tmp) {
  for (int r = 0; r < n; r++)
    for (int k = 0; k < width; k++) {
      int v = a[width * r + k];
      tmp[width * perm[r] + k] = rename ? rename[v] : v;
    }
  memcpy(a, tmp, sizeof(int) * (size_t)n * (size_t)width);
}

/* Node and cell order inside each record is kept, so every orientation convention survives. */
static int shuffle(airfoil_mesh *m, unsigned long long seed) {
  uint64_t state = seed;
  size_t rows = 4 * (size_t)m->ncell;
  if (rows < 2 * (size_t)m->nedge) rows = 2 * (size_t)m->nedge;
  int *pn = random_permutation(m->nnode, &state), *pc = random_permutation(m->ncell, &state);
  int *pe = random_permutation(m->nedge, &state), *pb = random_permutation(m->nbedge, &state);
  int *tmp = malloc(sizeof(int) * (rows + 2 * (size_t)m->nbedge + 1));
  double *x = malloc(sizeof(double) * (2 * (size_t)m->nnode + 1));
  int rc = pn && pc && pe && pb && tmp && x ? 0 : -1;
  if (rc == 0) {
    for (int i = 0; i < m->nnode; i++) {
      x[2 * pn[i]] = m->x[2 * i];
      x[2 * pn[i] + 1] = m->x[2 * i + 1];
    }
    free(m->x);
    m->x = x;
    x = NULL;
    permute_rows(m->cell, m->ncell, 4, pc, pn, tmp);
    permute_rows(m->edge, m->nedge, 2, pe, pn, tmp);
    permute_rows(m->ecell, m->nedge, 2, pe, pc, tmp);
    permute_rows(m->bedge, m->nbedge, 2, pb, pn, tmp);
    permute_rows(m->becell, m->nbedge, 1, pb, pc, tmp);
    permute_rows(m->bound, m->nbedge, 1, pb, NULL, tmp);
  }
  free(pn);
  free(pc);
  free(pe);
  free(pb);
  free(tmp);
  free(x);
  return rc;
}

/* ---- main ------------------------------------------------------------------------------- */

static double dist(const double *x, int a, int b) {
  return hypot(x[2 * a] - x[2 * b], x[2 * a + 1] - x[2 * b + 1]);
}

/* A fold would make Airfoil diverge, so it is checked here rather than trusted. */
static int check_areas(const airfoil_mesh *m) {
  for (int c = 0; c < m->ncell; c++) {
    double area = 0.0;
    for (int k = 0; k < 4; k++) {
      const double *p = m->x + 2 * m->cell[4 * c + k], *q = m->x + 2 * m->cell[4 * c + (k + 1) % 4];
      area += p[0] * q[1] - q[0] * p[1];
    }
    if (!(area > 0.0)) {
      fprintf(stderr, "airfoil-mesh: internal error: cell %d has area %g\n", c, 0.5 * area);
      return -1;
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  options o;
  int rc = parse_args(argc, argv, &o);
  if (rc) return rc;

  airfoil_mesh m;
  if (airfoil_mesh_alloc(&m, o.ni * (o.nj + 1), o.ni * o.nj, o.ni * (2 * o.nj - 1), 2 * o.ni)) {
    fprintf(stderr, "airfoil-mesh: out of memory for a %dx%d mesh\n", o.ni, o.nj);
    return 1;
  }
  joukowski jk = make_joukowski();
  place_nodes(&o, &jk, m.x);
  connect(&o, &m);

  double smin = INFINITY, smax = 0.0, hmin = INFINITY, hmax = 0.0;
  for (int i = 0; i < o.ni; i++) {
    double s = dist(m.x, node_id(&o, i, 0), node_id(&o, i + 1, 0));
    double h = dist(m.x, node_id(&o, i, 0), node_id(&o, i, 1));
    smin = fmin(smin, s);
    smax = fmax(smax, s);
    hmin = fmin(hmin, h);
    hmax = fmax(hmax, h);
  }

  char err[512];
  rc = check_areas(&m);
  if (rc == 0 && o.shuffle && shuffle(&m, o.seed)) {
    fprintf(stderr, "airfoil-mesh: out of memory while renumbering\n");
    rc = 1;
  }
  if (rc) {
    airfoil_mesh_free(&m);
    return 1;
  }
  if (airfoil_mesh_write(o.output, &m, err, sizeof err)) {
    fprintf(stderr, "airfoil-mesh: %s\n", err);
    airfoil_mesh_free(&m);
    return 1;
  }
  fprintf(stderr,
          "airfoil-mesh: wrote %s: NACA0012 O-grid %dx%d, far field R=%g, %d nodes, %d cells, "
          "%d edges, %d boundary edges, wall spacing %.2g..%.2g, first cell height %.2g..%.2g%s",
          o.output, o.ni, o.nj, o.farfield, m.nnode, m.ncell, m.nedge, m.nbedge, smin, smax, hmin,
          hmax, o.shuffle ? ", random order seed " : "\n");
  if (o.shuffle) fprintf(stderr, "%llu\n", o.seed);
  airfoil_mesh_free(&m);
  return 0;
}
