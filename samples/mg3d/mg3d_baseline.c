/* SPDX-License-Identifier: BSD-3-Clause */
/* mg3d-baseline: the mg3d sample's solver written by hand, serial, without op2: the same mesh file
 * read with HDF5's C API into plain arrays, the same kernels (their headers) called from plain
 * loops in the same order, the same V-cycles. It prints the same "result" lines as mg3d, for the
 * benchmark's baseline and for the test that both agree.
 * Usage: mg3d-baseline MESH.h5 [CYCLES]
 * Built with -fgnu89-inline: the kernel headers' plain `inline` functions (OP2's style) then
 * have an ordinary definition in this file, whether or not the compiler inlines them. */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mg3d_scheme.h"

#ifndef MIN
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#endif
#ifndef MAX
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#endif

double nu, adv[3], omega;

#include "diag_bface.h"
#include "diag_edge.h"
#include "edge_coef.h"
#include "inflow.h"
#include "node_stats.h"
#include "prolong.h"
#include "res_bface.h"
#include "res_edge.h"
#include "res_init.h"
#include "restrict_res.h"
#include "set_value.h"
#include "smooth.h"
#include "zero_node.h"

typedef struct level {
  int nnode, nedge, nbface;
  int *pedge, *pbface, *pprolong;
  double *x, *vol, *w, *bn, *pw, *ek, *diag, *u, *b, *r;
} level;

typedef struct mg {
  int levels;
  level l[MG3D_MAX_LEVELS];
  double nnode;
} mg;

static void die(const char *file, const char *what) {
  fprintf(stderr, "mg3d-baseline: %s: cannot read %s\n", file, what);
  exit(1);
}

/* A whole dataset: a set's size, a map (ints, less `base`) or a dat (doubles), `n` values. */
static void *read_all(hid_t f, const char *file, const char *name, int ints, long n, int base) {
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  if (d < 0) die(file, name);
  hid_t space = H5Dget_space(d);
  if (H5Sget_simple_extent_npoints(space) != n) die(file, name);
  H5Sclose(space);
  void *out = malloc((ints ? sizeof(int) : sizeof(double)) * (size_t)(n ? n : 1));
  if (!out ||
      H5Dread(d, ints ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0)
    die(file, name);
  H5Dclose(d);
  if (ints && base)
    for (long k = 0; k < n; k++) ((int *)out)[k] -= base;
  return out;
}

static int read_int(hid_t f, const char *file, const char *name) {
  int *v = read_all(f, file, name, 1, 1, 0), r = *v;
  free(v);
  return r;
}

static double *zeros(long n) {
  double *p = calloc((size_t)(n ? n : 1), sizeof(double));
  if (!p) {
    fprintf(stderr, "mg3d-baseline: out of memory\n");
    exit(1);
  }
  return p;
}

static void read_mesh(mg *m, const char *file) {
  hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) die(file, "the file");
  m->levels = read_int(f, file, "mg_levels");
  int base = read_int(f, file, "mg_base");
  if (m->levels < 1 || m->levels > MG3D_MAX_LEVELS) die(file, "mg_levels");
  char name[64];
#define MG3D_NAME(stem, lv) (snprintf(name, sizeof name, "%s%d", stem, lv), name)
  for (int lv = 0; lv < m->levels; lv++) {
    level *l = &m->l[lv];
    l->nnode = read_int(f, file, MG3D_NAME("nodes", lv));
    l->nedge = read_int(f, file, MG3D_NAME("edges", lv));
    l->nbface = read_int(f, file, MG3D_NAME("bfaces", lv));
    l->pedge = read_all(f, file, MG3D_NAME("pedge", lv), 1, 2L * l->nedge, base);
    l->pbface = read_all(f, file, MG3D_NAME("pbface", lv), 1, 4L * l->nbface, base);
    l->x = read_all(f, file, MG3D_NAME("p_x", lv), 0, 3L * l->nnode, 0);
    l->vol = read_all(f, file, MG3D_NAME("p_vol", lv), 0, l->nnode, 0);
    l->w = read_all(f, file, MG3D_NAME("p_w", lv), 0, 3L * l->nedge, 0);
    l->bn = read_all(f, file, MG3D_NAME("p_bn", lv), 0, 12L * l->nbface, 0);
    l->ek = zeros(2L * l->nedge);
    l->diag = zeros(l->nnode), l->u = zeros(l->nnode), l->b = zeros(l->nnode);
    l->r = zeros(l->nnode);
  }
  for (int lv = 0; lv + 1 < m->levels; lv++) {
    level *l = &m->l[lv];
    l->pprolong = read_all(f, file, MG3D_NAME("pprolong", lv), 1, 8L * l->nnode, base);
    l->pw = read_all(f, file, MG3D_NAME("p_pw", lv), 0, 8L * l->nnode, 0);
  }
#undef MG3D_NAME
  H5Fclose(f);
  m->nnode = m->l[0].nnode;
}

static void setup_level(level *l) {
  for (int e = 0; e < l->nedge; e++)
    edge_coef(l->x + 3 * l->pedge[2 * e], l->x + 3 * l->pedge[2 * e + 1], l->w + 3 * e,
              l->ek + 2 * e);
  for (int n = 0; n < l->nnode; n++) zero_node(l->diag + n, l->u + n);
  for (int e = 0; e < l->nedge; e++)
    diag_edge(l->ek + 2 * e, l->diag + l->pedge[2 * e], l->diag + l->pedge[2 * e + 1]);
  for (int f = 0; f < l->nbface; f++) {
    double *d[4];
    for (int k = 0; k < 4; k++) d[k] = l->diag + l->pbface[4 * f + k];
    diag_bface(l->bn + 12 * f, d);
  }
}

static void residual(level *l, double *outflow) {
  for (int n = 0; n < l->nnode; n++) res_init(l->b + n, l->r + n);
  for (int e = 0; e < l->nedge; e++) {
    int a = l->pedge[2 * e], b = l->pedge[2 * e + 1];
    res_edge(l->u + a, l->u + b, l->ek + 2 * e, l->r + a, l->r + b);
  }
  for (int f = 0; f < l->nbface; f++) {
    const double *u[4];
    double *r[4];
    for (int k = 0; k < 4; k++) {
      u[k] = l->u + l->pbface[4 * f + k];
      r[k] = l->r + l->pbface[4 * f + k];
    }
    res_bface(u, l->bn + 12 * f, r, outflow);
  }
}

static double sweep(level *l) {
  double outflow = 0.0, rsq = 0.0, rmax = 0.0;
  residual(l, &outflow);
  for (int n = 0; n < l->nnode; n++) smooth(l->u + n, l->r + n, l->diag + n, &rsq, &rmax);
  return rsq;
}

static double vcycle(mg *m, int lv) {
  level *l = &m->l[lv];
  if (lv == m->levels - 1 || lv + 1 >= MG3D_MAX_LEVELS) { /* the coarsest */
    double first = sweep(l);
    for (int s = 1; s < (lv == 0 ? MG3D_PRE + MG3D_POST : MG3D_COARSEST); s++) sweep(l);
    return first;
  }
  double first = sweep(l);
  for (int s = 1; s < MG3D_PRE; s++) sweep(l);
  level *c = &m->l[lv + 1];
  double outflow = 0.0;
  residual(l, &outflow);
  for (int n = 0; n < c->nnode; n++) zero_node(c->b + n, c->u + n);
  for (int n = 0; n < l->nnode; n++) {
    double *bc[8];
    for (int k = 0; k < 8; k++) bc[k] = c->b + l->pprolong[8 * n + k];
    restrict_res(l->r + n, l->pw + 8 * n, bc);
  }
  vcycle(m, lv + 1);
  for (int n = 0; n < l->nnode; n++) {
    const double *uc[8];
    for (int k = 0; k < 8; k++) uc[k] = c->u + l->pprolong[8 * n + k];
    prolong(l->u + n, l->pw + 8 * n, uc);
  }
  for (int s = 0; s < MG3D_POST; s++) sweep(l);
  return first;
}

typedef struct figures {
  double rms_first, rms_last, mass, umin, umax, rsum, bsum, outflow;
} figures;

static figures solve(mg *m, double g0, double gamp, int cycles, int print) {
  level *f = &m->l[0];
  double g[2] = {g0, gamp};
  for (int n = 0; n < f->nnode; n++) zero_node(f->b + n, f->u + n);
  for (int q = 0; q < f->nbface; q++) {
    const double *x[4];
    double *b[4];
    for (int k = 0; k < 4; k++) {
      x[k] = f->x + 3 * f->pbface[4 * q + k];
      b[k] = f->b + f->pbface[4 * q + k];
    }
    inflow(x, f->bn + 12 * q, b, g);
  }
  for (int n = 0; n < f->nnode; n++) set_value(f->u + n, &g0);
  figures fig = {0};
  for (int c = 1; c <= cycles; c++) {
    double rms = sqrt(vcycle(m, 0) / m->nnode);
    if (c == 1) fig.rms_first = rms;
    if (print) printf("cycle %3d  rms residual %.10e\n", c, rms);
  }
  double count = 0.0;
  fig.umin = INFINITY, fig.umax = -INFINITY;
  residual(f, &fig.outflow);
  for (int n = 0; n < f->nnode; n++)
    node_stats(f->u + n, f->vol + n, f->r + n, f->b + n, &count, &fig.mass, &fig.umin, &fig.umax,
               &fig.rsum, &fig.bsum);
  fig.rms_last = sqrt(sweep(f) / m->nnode);
  return fig;
}

static double wall_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3 || (argc == 3 && atoi(argv[2]) < 1)) {
    fprintf(stderr, "usage: mg3d-baseline MESH.h5 [CYCLES]\n");
    return 2;
  }
  int cycles = argc == 3 ? atoi(argv[2]) : MG3D_CYCLES;
  nu = MG3D_NU;
  adv[0] = MG3D_ADV_X, adv[1] = MG3D_ADV_Y, adv[2] = MG3D_ADV_Z;
  omega = MG3D_OMEGA;
  mg m = {0};
  read_mesh(&m, argv[1]);
  printf("mg3d-baseline: %s, %d levels, %.0f nodes on the finest\n", argv[1], m.levels, m.nnode);
  double t0 = wall_seconds();
  for (int lv = 0; lv < m.levels; lv++) setup_level(&m.l[lv]);
  figures fig = solve(&m, MG3D_G0, MG3D_GAMP, cycles, 1);
  double t1 = wall_seconds();
  printf("result rms_first %.15e\n", fig.rms_first);
  printf("result rms_last %.15e\n", fig.rms_last);
  printf("result mass %.15e\n", fig.mass);
  printf("result umin %.15e\n", fig.umin);
  printf("result umax %.15e\n", fig.umax);
  printf("result outflow %.15e\n", fig.outflow);
  printf("mg3d-baseline: %d cycles in %.3f s\n", cycles, t1 - t0);
  for (int lv = 0; lv < m.levels; lv++) {
    level *l = &m.l[lv];
    free(l->pedge), free(l->pbface), free(l->pprolong), free(l->pw), free(l->x), free(l->vol),
        free(l->w);
    free(l->bn), free(l->ek), free(l->diag), free(l->u), free(l->b), free(l->r);
  }
  return 0;
}
