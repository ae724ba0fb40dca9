/* SPDX-License-Identifier: BSD-3-Clause */
#include "aero_mesh_io.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void set_err(char *err, size_t errlen, const char *fmt, ...) {
  if (err == NULL || errlen == 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

int aero_mesh_alloc(aero_mesh *m, int nnode, int ncell, int nbnode) {
  memset(m, 0, sizeof *m);
  if (nnode < 1 || ncell < 1 || nbnode < 1) return -1;
  m->x = malloc(2 * sizeof(double) * (size_t)nnode);
  m->cell = malloc(4 * sizeof(int) * (size_t)ncell);
  m->bnode = malloc(sizeof(int) * (size_t)nbnode);
  if (!m->x || !m->cell || !m->bnode) {
    aero_mesh_free(m);
    return -1;
  }
  m->nnode = nnode;
  m->ncell = ncell;
  m->nbnode = nbnode;
  return 0;
}

void aero_mesh_free(aero_mesh *m) {
  free(m->x);
  free(m->cell);
  free(m->bnode);
  memset(m, 0, sizeof *m);
}

/* ---- the generated channel ----------------------------------------------------------------- */

static double lower_wall(double x, double bump) {
  const double pi = 3.14159265358979323846;
  if (x <= 1.0 || x >= 2.0) return 0.0;
  double s = sin(pi * (x - 1.0));
  return bump * s * s; /* zero slope where it meets the flat wall: no kink to resolve */
}

int aero_mesh_channel(int ni, int nj, double bump, aero_mesh *m, char *err, size_t errlen) {
  memset(m, 0, sizeof *m);
  /* ni * nj cells and (ni+1) * (nj+1) nodes must fit an int */
  if (ni < 1 || nj < 1 || ni > 1000000 || nj > 1000000 || (double)(ni + 1) * (nj + 1) > 2e9) {
    set_err(err, errlen,
            "mesh size %dx%d: each side must be at least 1 and the mesh below 2e9 nodes", ni, nj);
    return -1;
  }
  if (!(bump >= 0.0 && bump < 0.5)) {
    set_err(err, errlen, "bump height %g: must be in [0, 0.5)", bump);
    return -1;
  }
  if (aero_mesh_alloc(m, (ni + 1) * (nj + 1), ni * nj, 2 * (nj + 1)) != 0) {
    set_err(err, errlen, "out of memory for a %dx%d mesh", ni, nj);
    return -1;
  }
  /* node (i, j) is number i + (ni+1) j: rows along the channel */
  for (int j = 0; j <= nj; j++)
    for (int i = 0; i <= ni; i++) {
      double x = 3.0 * i / ni, yb = lower_wall(x, bump);
      int n = i + (ni + 1) * j;
      m->x[2 * n] = x;
      m->x[2 * n + 1] = yb + (1.0 - yb) * j / nj;
    }
  for (int j = 0; j < nj; j++)
    for (int i = 0; i < ni; i++) {
      int *c = m->cell + 4 * (i + ni * j), n = i + (ni + 1) * j;
      c[0] = n;
      c[1] = n + 1;
      c[2] = n + ni + 1;
      c[3] = n + ni + 2;
    }
  for (int j = 0; j <= nj; j++) {
    m->bnode[2 * j] = (ni + 1) * j;          /* inlet */
    m->bnode[2 * j + 1] = (ni + 1) * j + ni; /* outlet */
  }
  return 0;
}

/* ---- reading ----------------------------------------------------------------------------- */

typedef struct {
  FILE *f;
  const char *path;
  int line;
  char buf[1024];
  char *err;
  size_t errlen;
} reader;

/* The next line into r->buf; -1 (with the message) at the end of the file or on a line too long
 * to be a record. */
static int next_line(reader *r, const char *what) {
  r->line++;
  if (!fgets(r->buf, sizeof r->buf, r->f)) {
    set_err(r->err, r->errlen, "%s:%d: %s expected, found the end of the file", r->path, r->line,
            what);
    return -1;
  }
  if (!strchr(r->buf, '\n') && !feof(r->f)) {
    set_err(r->err, r->errlen, "%s:%d: line longer than %zu bytes: not an aero mesh", r->path,
            r->line, sizeof r->buf - 1);
    return -1;
  }
  return 0;
}

/* Exactly n integers, each in [lo, hi], on the next line. */
static int read_ints(reader *r, int n, int *out, long lo, long hi, const char *what) {
  if (next_line(r, what) != 0) return -1;
  char *p = r->buf, *end;
  for (int k = 0; k < n; k++) {
    errno = 0;
    long v = strtol(p, &end, 10);
    if (end == p || errno != 0 || v < lo || v > hi) {
      set_err(r->err, r->errlen, "%s:%d: %s: value %d must be an integer in [%ld, %ld]", r->path,
              r->line, what, k + 1, lo, hi);
      return -1;
    }
    out[k] = (int)v;
    p = end;
  }
  while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
  if (*p != '\0') {
    set_err(r->err, r->errlen, "%s:%d: %s: more than %d values on the line", r->path, r->line, what,
            n);
    return -1;
  }
  return 0;
}

static int read_xy(reader *r, double *xy) {
  if (next_line(r, "node coordinates \"x y\"") != 0) return -1;
  char *p = r->buf, *end;
  for (int k = 0; k < 2; k++) {
    xy[k] = strtod(p, &end);
    if (end == p || !isfinite(xy[k])) {
      set_err(r->err, r->errlen, "%s:%d: node coordinates \"x y\" expected", r->path, r->line);
      return -1;
    }
    p = end;
  }
  while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
  if (*p != '\0') {
    set_err(r->err, r->errlen, "%s:%d: node coordinates: more than 2 values on the line", r->path,
            r->line);
    return -1;
  }
  return 0;
}

/* The isoparametric map's Jacobian at the cell centre (corners in tensor-product order). */
static double centre_jacobian(const double *x, const int *c) {
  const double *p0 = x + 2 * c[0], *p1 = x + 2 * c[1], *p2 = x + 2 * c[2], *p3 = x + 2 * c[3];
  double x_xi = (p1[0] - p0[0] + p3[0] - p2[0]), y_xi = (p1[1] - p0[1] + p3[1] - p2[1]);
  double x_eta = (p2[0] - p0[0] + p3[0] - p1[0]), y_eta = (p2[1] - p0[1] + p3[1] - p1[1]);
  return 0.25 * (x_xi * y_eta - x_eta * y_xi);
}

static int read_body(reader *r, aero_mesh *m) {
  int counts[3];
  if (read_ints(r, 3, counts, 1, 1000000000, "header \"nnode ncell nbnode\"") != 0) return -1;
  if (aero_mesh_alloc(m, counts[0], counts[1], counts[2]) != 0) {
    set_err(r->err, r->errlen, "%s: out of memory for %d nodes and %d cells", r->path, counts[0],
            counts[1]);
    return -1;
  }
  for (int n = 0; n < m->nnode; n++)
    if (read_xy(r, m->x + 2 * n) != 0) return -1;
  for (int n = 0; n < m->ncell; n++) {
    if (read_ints(r, 4, m->cell + 4 * n, 0, m->nnode - 1, "cell \"n0 n1 n2 n3\"") != 0) return -1;
    if (!(centre_jacobian(m->x, m->cell + 4 * n) > 0.0)) {
      set_err(r->err, r->errlen,
              "%s:%d: cell %d is folded or degenerate: corners must be in the order (0,0), (1,0), "
              "(0,1), (1,1)",
              r->path, r->line, n);
      return -1;
    }
  }
  for (int n = 0; n < m->nbnode; n++)
    if (read_ints(r, 1, m->bnode + n, 0, m->nnode - 1, "boundary node") != 0) return -1;
  return 0;
}

int aero_mesh_read(const char *path, aero_mesh *m, char *err, size_t errlen) {
  memset(m, 0, sizeof *m);
  reader r = {.f = fopen(path, "r"), .path = path, .err = err, .errlen = errlen};
  if (!r.f) {
    set_err(err, errlen, "%s: %s", path, strerror(errno));
    return -1;
  }
  int rc = read_body(&r, m);
  fclose(r.f);
  if (rc != 0) aero_mesh_free(m);
  return rc;
}

/* ---- writing ----------------------------------------------------------------------------- */

static int write_body(FILE *f, const aero_mesh *m) {
  fprintf(f, "%d %d %d\n", m->nnode, m->ncell, m->nbnode);
  for (int n = 0; n < m->nnode; n++) fprintf(f, "%.17g %.17g\n", m->x[2 * n], m->x[2 * n + 1]);
  for (int n = 0; n < m->ncell; n++) {
    const int *c = m->cell + 4 * n;
    fprintf(f, "%d %d %d %d\n", c[0], c[1], c[2], c[3]);
  }
  for (int n = 0; n < m->nbnode; n++) fprintf(f, "%d\n", m->bnode[n]);
  return ferror(f) ? -1 : 0;
}

int aero_mesh_write(const char *path, const aero_mesh *m, char *err, size_t errlen) {
  char tmp[4096];
  if (snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid()) >= (int)sizeof tmp) {
    set_err(err, errlen, "%s: path too long", path);
    return -1;
  }
  FILE *f = fopen(tmp, "w");
  if (!f) {
    set_err(err, errlen, "%s: %s", tmp, strerror(errno));
    return -1;
  }
  int bad = write_body(f, m);
  if (fclose(f) != 0) bad = -1;
  if (bad || rename(tmp, path) != 0) {
    set_err(err, errlen, "%s: %s", bad ? tmp : path, strerror(errno));
    unlink(tmp);
    return -1;
  }
  return 0;
}
