/* SPDX-License-Identifier: BSD-3-Clause */
/* mg3d-mesh: the 3-D sample's mesh generator. A box [0,1]^3 of NX x NY x NZ hexahedra, born
 * structured but stored unstructured: nodes, edges and boundary faces are numbered in a scrambled
 * (deterministic) order and each edge's two ends are swapped at random, so nothing in the file
 * follows the grid (--grid-order: numbered along the grid, ends still swapped at random, so the
 * two files differ in their numbering only: the reference a locality renumbering is measured
 * against, with the upwind branch as unpredictable as in the scrambled file). Interior
 * nodes may be moved at random (--perturb). Every coarser multigrid level agglomerates 2x2x2 cells
 * of the finer one; its nodes are the finer level's nodes of even grid indices; maps take each
 * finer node to its coarser node (grid index / 2) and to the 8 corners of the coarser cell that
 * holds it.
 *
 * Per level L the file holds, in OP2's HDF5 layout (a scalar int dataset per set; a [rows, dim]
 * dataset per map and dat with attributes dim, size, type; constants as [dim] datasets):
 *   sets nodesL, edgesL, bfacesL
 *   maps pedgeL (edges -> 2 nodes), pbfaceL (bfaces -> 4 nodes), pcoarseL (nodesL -> the
 *        nodeL+1 agglomerating it), pprolongL (nodesL -> 8 nodesL+1: the coarse cell holding it)
 *   dats p_xL (nodes, 3: position), p_volL (nodes, 1: median-dual volume), p_wL (edges, 3: the
 *        median-dual face's area vector, from the edge's first node towards its second), p_bnL
 *        (bfaces, 12: per corner the outward area vector of that corner's quarter of the face),
 *        p_pwL (nodes, 8: pprolongL's trilinear weights on the grid)
 *   constants mg_levels, mg_dims (NX, NY, NZ), mg_base (0, or 1 with --one-based)
 * The dual-face pieces are quadrilaterals (edge midpoint, face centroid, cell centroid, face
 * centroid) whose vector areas are exact, so each node's dual cell closes to rounding: a uniform
 * state is preserved by the scheme (the solver checks it).
 *
 * Usage: mg3d-mesh [--levels L] [--perturb F] [--seed S] [--one-based] [--tets] [--grid-order]
 *                  NX NY NZ OUT.h5
 * NX, NY, NZ must be multiples of 2^(L-1). Edges on the finest level: about 3 NX NY NZ. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "mg3d_scheme.h"

typedef struct options {
  int levels, nx, ny, nz, one_based, tets, grid_order;
  double perturb;
  uint64_t seed;
  const char *out;
} options;

/* One level as generated: grid sizes, scrambled numbering, connectivity and geometry. */
typedef struct level {
  int nx, ny, nz, ndir; /* ndir: edge directions, 3 (hexahedra) or 7 (tetrahedra) */
  long nnode, nedge, nbface;
  int *node_id;    /* grid node -> stored node number */
  double *x;       /* stored node -> position (3) */
  double *vol;     /* stored node -> dual volume */
  int *edge;       /* stored edge -> 2 stored nodes */
  double *w;       /* stored edge -> area vector (3) */
  int *bface;      /* stored bface -> 4 stored nodes */
  double *bn;      /* stored bface -> 4 area vectors (12) */
  int *coarse;     /* stored node -> stored node of the next level (NULL on the coarsest) */
  int *prolong;    /* stored node -> 8 stored nodes of the next level */
  double *pweight; /* their trilinear weights */
} level;

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static double uniform(uint64_t *s) {
  return (double)(splitmix(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* A random permutation of 0..n-1 (Fisher-Yates), or with `in_grid_order` the identity: stored
 * number of each generated element. */
static int *scramble(long n, uint64_t seed, int in_grid_order) {
  int *p = malloc(sizeof(int) * (size_t)(n ? n : 1));
  if (!p) return NULL;
  for (long i = 0; i < n; i++) p[i] = (int)i;
  for (long i = in_grid_order ? 0 : n - 1; i > 0; i--) {
    long j = (long)(splitmix(&seed) % (uint64_t)(i + 1));
    int t = p[i];
    p[i] = p[j];
    p[j] = t;
  }
  return p;
}

static void *alloc_or_die(size_t bytes) {
  void *p = calloc(bytes ? bytes : 1, 1);
  if (!p) {
    fprintf(stderr, "mg3d-mesh: out of memory (%zu bytes)\n", bytes);
    exit(1);
  }
  return p;
}

static long grid_node(const level *l, int i, int j, int k) {
  return i + (long)(l->nx + 1) * (j + (long)(l->ny + 1) * k);
}

/* Edge directions as bit masks of the grid steps (x 1, y 2, z 4): the axes, then (tetrahedra
 * only) the face diagonals and the body diagonal of the cells' Kuhn split. */
static const int edge_mask[7] = {1, 2, 4, 3, 5, 6, 7};
static const int edge_dir_of_mask[8] = {-1, 0, 1, 3, 2, 4, 5, 6};

static long edges_in_dir(const level *l, int dd) {
  int m = edge_mask[dd];
  return (long)(l->nx + 1 - (m & 1)) * (l->ny + 1 - ((m >> 1) & 1)) * (l->nz + 1 - (m >> 2));
}

/* Structured edge number of the edge leaving grid node (i,j,k) in direction dd. */
static long grid_edge(const level *l, int dd, int i, int j, int k) {
  long off = 0;
  for (int q = 0; q < dd; q++) off += edges_in_dir(l, q);
  int m = edge_mask[dd];
  return off + i + (long)(l->nx + 1 - (m & 1)) * (j + (long)(l->ny + 1 - ((m >> 1) & 1)) * k);
}

static void sub(const double *a, const double *b, double *r) {
  for (int c = 0; c < 3; c++) r[c] = a[c] - b[c];
}

static void cross(const double *a, const double *b, double *r) {
  r[0] = a[1] * b[2] - a[2] * b[1];
  r[1] = a[2] * b[0] - a[0] * b[2];
  r[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Vector area of the quadrilateral loop p0 p1 p2 p3: half the cross product of its diagonals
 * (exact for a non-planar loop too), turned to point along `dir`. */
static void quad_area(const double *p0, const double *p1, const double *p2, const double *p3,
                      const double *dir, double *s) {
  double d1[3], d2[3];
  sub(p2, p0, d1);
  sub(p3, p1, d2);
  cross(d1, d2, s);
  for (int c = 0; c < 3; c++) s[c] *= 0.5;
  if (dot(s, dir) < 0)
    for (int c = 0; c < 3; c++) s[c] = -s[c];
}

/* One boundary triangle of a tetrahedral mesh (corners t[] of the cell, outward `out`) as bface
 * f: per corner the vector area of the quadrilateral (corner, edge midpoint, triangle centroid,
 * edge midpoint). Stored as 4 corners, the 4th repeating the 1st with a zero vector, so that one
 * boundary set, map and kernel serve both element kinds. */
static void tet_bface(level *l, int f, const int *t, double (*c)[3], const int *id,
                      const double *out) {
  double tc[3];
  for (int r = 0; r < 3; r++) tc[r] = (c[t[0]][r] + c[t[1]][r] + c[t[2]][r]) / 3.0;
  for (int q = 0; q < 3; q++) {
    int n = t[q], n1 = t[(q + 1) % 3], n2 = t[(q + 2) % 3];
    double m1[3], m2[3], bs[3];
    for (int r = 0; r < 3; r++) {
      m1[r] = 0.5 * (c[n][r] + c[n1][r]);
      m2[r] = 0.5 * (c[n][r] + c[n2][r]);
    }
    quad_area(c[n], m1, tc, m2, out, bs);
    l->bface[4 * (size_t)f + q] = id[n];
    memcpy(l->bn + 12 * (size_t)f + 3 * q, bs, sizeof bs);
  }
  l->bface[4 * (size_t)f + 3] = id[t[0]];
}

/* Cell (i,j,k) (corners c[], stored ids id[]) split into the 6 tetrahedra of its Kuhn split
 * (corner 0 to corner 7 along each ordering of the axes: conforming between cells): each
 * tetrahedron's edges get their dual-face pieces, its corners a quarter of its volume; boundary
 * faces become two triangles each. Returns the next boundary face's generation number. */
static long tet_cell(level *l, int i, int j, int k, double (*c)[3], const int *id,
                     const int *edge_id, const char *flip, const int *bface_id, long nb) {
  static const int order[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  for (int t = 0; t < 6; t++) {
    int v[4] = {0, 1 << order[t][0], 0, 7};
    v[2] = v[1] | (1 << order[t][1]);
    double tc[3], e1[3], e2[3], e3[3], n[3];
    for (int r = 0; r < 3; r++) tc[r] = 0.25 * (c[v[0]][r] + c[v[1]][r] + c[v[2]][r] + c[v[3]][r]);
    sub(c[v[1]], c[v[0]], e1);
    sub(c[v[2]], c[v[0]], e2);
    sub(c[v[3]], c[v[0]], e3);
    cross(e2, e3, n);
    double vol = fabs(dot(e1, n)) / 6.0;
    for (int q = 0; q < 4; q++) l->vol[id[v[q]]] += 0.25 * vol;
    for (int s = 0; s < 4; s++)
      for (int u = s + 1; u < 4; u++) {
        int a = v[s], b = v[u], rest[2], nr = 0;
        for (int q = 0; q < 4; q++)
          if (q != s && q != u) rest[nr++] = v[q];
        double m[3], f1[3], f2[3], along[3], sw[3];
        for (int r = 0; r < 3; r++) {
          m[r] = 0.5 * (c[a][r] + c[b][r]);
          f1[r] = (c[a][r] + c[b][r] + c[rest[0]][r]) / 3.0;
          f2[r] = (c[a][r] + c[b][r] + c[rest[1]][r]) / 3.0;
        }
        sub(c[b], c[a], along);
        quad_area(m, f1, tc, f2, along, sw);
        int dd = edge_dir_of_mask[a ^ b];
        int e = edge_id[grid_edge(l, dd, i + (a & 1), j + ((a >> 1) & 1), k + (a >> 2))];
        double sign = flip[e] ? -1.0 : 1.0;
        for (int r = 0; r < 3; r++) l->w[3 * (size_t)e + r] += sign * sw[r];
      }
  }
  int at[3] = {i, j, k}, nn[3] = {l->nx, l->ny, l->nz};
  for (int d = 0; d < 3; d++)
    for (int s = 0; s < 2; s++) {
      if (at[d] != (s ? nn[d] - 1 : 0)) continue;
      double out[3] = {0, 0, 0};
      out[d] = s ? 1.0 : -1.0;
      int b0 = s << d, p1 = 1 << ((d + 1) % 3), p2 = 1 << ((d + 2) % 3);
      int t1[3] = {b0, b0 | p1, b0 | p1 | p2}, t2[3] = {b0, b0 | p2, b0 | p1 | p2};
      tet_bface(l, bface_id[nb++], t1, c, id, out);
      tet_bface(l, bface_id[nb++], t2, c, id, out);
    }
  return nb;
}

/* Positions, numbering and geometry of level `lv` (finest: 0), whose grid node (i,j,k) sits at
 * finest grid node (i,j,k) * 2^lv. */
static void build_level(level *l, int lv, const options *o, const double *fine_x_grid) {
  int step = 1 << lv;
  l->nx = o->nx / step, l->ny = o->ny / step, l->nz = o->nz / step;
  int nx = l->nx, ny = l->ny, nz = l->nz;
  l->nnode = (long)(nx + 1) * (ny + 1) * (nz + 1);
  l->ndir = o->tets ? 7 : 3;
  l->nedge = 0;
  for (int dd = 0; dd < l->ndir; dd++) l->nedge += edges_in_dir(l, dd);
  l->nbface = (o->tets ? 4L : 2L) * ((long)nx * ny + (long)ny * nz + (long)nx * nz);
  uint64_t seed = o->seed * 1000003ULL + (uint64_t)lv * 7919ULL;
  l->node_id = scramble(l->nnode, seed + 1, o->grid_order);
  int *edge_id = scramble(l->nedge, seed + 2, o->grid_order);
  int *bface_id = scramble(l->nbface, seed + 3, o->grid_order);
  if (!l->node_id || !edge_id || !bface_id) {
    fprintf(stderr, "mg3d-mesh: out of memory\n");
    exit(1);
  }
  l->x = alloc_or_die(sizeof(double) * 3 * (size_t)l->nnode);
  l->vol = alloc_or_die(sizeof(double) * (size_t)l->nnode);
  l->edge = alloc_or_die(sizeof(int) * 2 * (size_t)l->nedge);
  l->w = alloc_or_die(sizeof(double) * 3 * (size_t)l->nedge);
  l->bface = alloc_or_die(sizeof(int) * 4 * (size_t)l->nbface);
  l->bn = alloc_or_die(sizeof(double) * 12 * (size_t)l->nbface);
  level fine = {.nx = o->nx, .ny = o->ny, .nz = o->nz};

  for (int k = 0; k <= nz; k++)
    for (int j = 0; j <= ny; j++)
      for (int i = 0; i <= nx; i++) {
        long f = grid_node(&fine, i * step, j * step, k * step);
        memcpy(l->x + 3 * (size_t)l->node_id[grid_node(l, i, j, k)], fine_x_grid + 3 * f,
               3 * sizeof(double));
      }

  /* edges: ends in grid order, then swapped at random; flip[e] remembers which */
  uint64_t swap_seed = seed + 4;
  char *flip = alloc_or_die((size_t)l->nedge);
  for (int d = 0; d < l->ndir; d++) {
    int mx = edge_mask[d] & 1, my = (edge_mask[d] >> 1) & 1, mz = edge_mask[d] >> 2;
    for (int k = 0; k <= nz - mz; k++)
      for (int j = 0; j <= ny - my; j++)
        for (int i = 0; i <= nx - mx; i++) {
          long g = grid_edge(l, d, i, j, k);
          int e = edge_id[g];
          int a = l->node_id[grid_node(l, i, j, k)];
          int b = l->node_id[grid_node(l, i + mx, j + my, k + mz)];
          flip[e] = (char)(splitmix(&swap_seed) & 1);
          l->edge[2 * e] = flip[e] ? b : a;
          l->edge[2 * e + 1] = flip[e] ? a : b;
        }
  }

  /* cells: dual-face pieces of their 12 edges, node volumes, boundary faces */
  long nb = 0;
  for (int k = 0; k < nz; k++)
    for (int j = 0; j < ny; j++)
      for (int i = 0; i < nx; i++) {
        double c[8][3], cc[3] = {0, 0, 0}, fc[3][2][3];
        int id[8];
        for (int a = 0; a < 8; a++) {
          id[a] = l->node_id[grid_node(l, i + (a & 1), j + ((a >> 1) & 1), k + (a >> 2))];
          memcpy(c[a], l->x + 3 * (size_t)id[a], sizeof c[a]);
          for (int q = 0; q < 3; q++) cc[q] += 0.125 * c[a][q];
        }
        for (int d = 0; d < 3; d++)
          for (int s = 0; s < 2; s++) {
            for (int q = 0; q < 3; q++) fc[d][s][q] = 0;
            for (int a = 0; a < 8; a++)
              if (((a >> d) & 1) == s)
                for (int q = 0; q < 3; q++) fc[d][s][q] += 0.25 * c[a][q];
          }
        if (o->tets) {
          nb = tet_cell(l, i, j, k, c, id, edge_id, flip, bface_id, nb);
          continue;
        }
        /* volume: the mean edge vectors' triple product, an eighth to each corner */
        double ev[3][3] = {{0}};
        for (int a = 0; a < 8; a++)
          for (int d = 0; d < 3; d++)
            if (!((a >> d) & 1))
              for (int q = 0; q < 3; q++) ev[d][q] += 0.25 * (c[a | (1 << d)][q] - c[a][q]);
        double yz[3];
        cross(ev[1], ev[2], yz);
        double v = fabs(dot(ev[0], yz));
        for (int a = 0; a < 8; a++) l->vol[id[a]] += 0.125 * v;
        for (int d = 0; d < 3; d++) {
          int e1 = (d + 1) % 3, e2 = (d + 2) % 3;
          for (int p = 0; p < 2; p++)
            for (int q = 0; q < 2; q++) {
              int a0 = (p << e1) | (q << e2), a1 = a0 | (1 << d);
              double m[3], along[3], s[3];
              for (int r = 0; r < 3; r++) m[r] = 0.5 * (c[a0][r] + c[a1][r]);
              sub(c[a1], c[a0], along);
              quad_area(m, fc[e1][p], cc, fc[e2][q], along, s);
              int gi = i + ((a0 >> 0) & 1), gj = j + ((a0 >> 1) & 1), gk = k + ((a0 >> 2) & 1);
              int e = edge_id[grid_edge(l, d, gi, gj, gk)];
              double sign = flip[e] ? -1.0 : 1.0;
              for (int r = 0; r < 3; r++) l->w[3 * (size_t)e + r] += sign * s[r];
            }
        }
        int at[3] = {i, j, k}, n[3] = {nx, ny, nz};
        for (int d = 0; d < 3; d++)
          for (int s = 0; s < 2; s++) {
            if (at[d] != (s ? n[d] - 1 : 0)) continue;
            int f = bface_id[nb++];
            double out[3] = {0, 0, 0};
            out[d] = s ? 1.0 : -1.0;
            int e1 = (d + 1) % 3, e2 = (d + 2) % 3, corner = 0;
            for (int q = 0; q < 2; q++)
              for (int p = 0; p < 2; p++) {
                int a = (s << d) | (p << e1) | (q << e2);
                double m1[3], m2[3], bs[3];
                for (int r = 0; r < 3; r++) {
                  m1[r] = 0.5 * (c[a][r] + c[a ^ (1 << e1)][r]);
                  m2[r] = 0.5 * (c[a][r] + c[a ^ (1 << e2)][r]);
                }
                quad_area(c[a], m1, fc[d][s], m2, out, bs);
                l->bface[4 * (size_t)f + corner] = id[a];
                memcpy(l->bn + 12 * (size_t)f + 3 * corner, bs, sizeof bs);
                corner++;
              }
          }
      }
  free(flip);
  free(edge_id);
  free(bface_id);
}

/* The finer level's maps to this one: pcoarse, grid node (i,j,k) -> (i/2, j/2, k/2) (its
 * agglomerate); pprolong, the 8 coarse nodes of the coarse cell holding it, with trilinear
 * weights on the grid (an even index sits on a coarse node: its second entry has weight 0). */
static void link_levels(level *fine, const level *coarse) {
  fine->coarse = alloc_or_die(sizeof(int) * (size_t)fine->nnode);
  fine->prolong = alloc_or_die(sizeof(int) * 8 * (size_t)fine->nnode);
  fine->pweight = alloc_or_die(sizeof(double) * 8 * (size_t)fine->nnode);
  for (int k = 0; k <= fine->nz; k++)
    for (int j = 0; j <= fine->ny; j++)
      for (int i = 0; i <= fine->nx; i++) {
        int n = fine->node_id[grid_node(fine, i, j, k)];
        fine->coarse[n] = coarse->node_id[grid_node(coarse, i / 2, j / 2, k / 2)];
        int at[3] = {i, j, k};
        for (int a = 0; a < 8; a++) {
          int c[3];
          double wt = 1.0;
          for (int d = 0; d < 3; d++) {
            int hi = (a >> d) & 1, odd = at[d] & 1;
            c[d] = at[d] / 2 + (hi && odd);
            wt *= odd ? 0.5 : (hi ? 0.0 : 1.0);
          }
          fine->prolong[8 * (size_t)n + a] = coarse->node_id[grid_node(coarse, c[0], c[1], c[2])];
          fine->pweight[8 * (size_t)n + a] = wt;
        }
      }
}

/* ---- OP2's HDF5 layout ---- */

static int put_int_attr(hid_t obj, const char *name, int value) {
  hsize_t one = 1;
  hid_t space = H5Screate_simple(1, &one, NULL);
  hid_t attr = H5Acreate2(obj, name, H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT);
  int ok = attr >= 0 && H5Awrite(attr, H5T_NATIVE_INT, &value) >= 0;
  if (attr >= 0) H5Aclose(attr);
  H5Sclose(space);
  return ok ? 0 : -1;
}

/* OP2 writes a map's type in a 10-byte string, a dat's at its own length. */
static int put_str_attr(hid_t obj, const char *name, const char *value, size_t width) {
  char buf[32] = "";
  size_t len = strlen(value);
  if (width < len) width = len;
  memcpy(buf, value, len);
  hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, width);
  H5Tset_strpad(type, H5T_STR_NULLTERM);
  hid_t space = H5Screate(H5S_SCALAR);
  hid_t attr = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  int ok = attr >= 0 && H5Awrite(attr, type, buf) >= 0;
  if (attr >= 0) H5Aclose(attr);
  H5Sclose(space);
  H5Tclose(type);
  return ok ? 0 : -1;
}

static int write_set(hid_t f, const char *name, long size) {
  hsize_t one = 1;
  int v = (int)size;
  hid_t space = H5Screate_simple(1, &one, NULL);
  hid_t d = H5Dcreate2(f, name, H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int ok = d >= 0 && H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v) >= 0;
  if (d >= 0) H5Dclose(d);
  H5Sclose(space);
  return ok ? 0 : -1;
}

/* A map (ints, `base` added to every value) or a dat (doubles). */
static int write_table(hid_t f, const char *name, int is_map, long rows, int dim,
                       const void *values, int base) {
  hsize_t dims[2] = {(hsize_t)rows, (hsize_t)dim};
  hid_t space = H5Screate_simple(2, dims, NULL);
  hid_t ftype = is_map ? H5T_STD_I32LE : H5T_IEEE_F64LE;
  hid_t d = H5Dcreate2(f, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  const void *data = values;
  int *shifted = NULL;
  if (is_map && base) {
    shifted = alloc_or_die(sizeof(int) * (size_t)rows * dim);
    for (long n = 0; n < rows * dim; n++) shifted[n] = ((const int *)values)[n] + base;
    data = shifted;
  }
  int ok = d >= 0 &&
           H5Dwrite(d, is_map ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                    data) >= 0 &&
           put_int_attr(d, "dim", dim) == 0 &&
           put_int_attr(d, "size", is_map ? (int)rows : dim * (int)sizeof(double)) == 0 &&
           put_str_attr(d, "type", is_map ? "int" : "double", is_map ? 10 : 0) == 0;
  free(shifted);
  if (d >= 0) H5Dclose(d);
  H5Sclose(space);
  return ok ? 0 : -1;
}

static int write_const(hid_t f, const char *name, int dim, const int *values) {
  hsize_t n = (hsize_t)dim;
  hid_t space = H5Screate_simple(1, &n, NULL);
  hid_t d = H5Dcreate2(f, name, H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int ok = d >= 0 && H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) >= 0 &&
           put_int_attr(d, "dim", dim) == 0 && put_str_attr(d, "type", "int", 0) == 0;
  if (d >= 0) H5Dclose(d);
  H5Sclose(space);
  return ok ? 0 : -1;
}

static int write_level(hid_t f, const level *l, int lv, int base) {
  char s[3][32], m[3][32], d[4][32];
  const char *sn[3] = {"nodes", "edges", "bfaces"}, *mn[3] = {"pedge", "pbface", "pcoarse"},
             *dn[4] = {"p_x", "p_vol", "p_w", "p_bn"};
  for (int q = 0; q < 3; q++) snprintf(s[q], sizeof s[q], "%s%d", sn[q], lv);
  for (int q = 0; q < 3; q++) snprintf(m[q], sizeof m[q], "%s%d", mn[q], lv);
  for (int q = 0; q < 4; q++) snprintf(d[q], sizeof d[q], "%s%d", dn[q], lv);
  int rc = write_set(f, s[0], l->nnode) | write_set(f, s[1], l->nedge) |
           write_set(f, s[2], l->nbface) | write_table(f, m[0], 1, l->nedge, 2, l->edge, base) |
           write_table(f, m[1], 1, l->nbface, 4, l->bface, base) |
           write_table(f, d[0], 0, l->nnode, 3, l->x, 0) |
           write_table(f, d[1], 0, l->nnode, 1, l->vol, 0) |
           write_table(f, d[2], 0, l->nedge, 3, l->w, 0) |
           write_table(f, d[3], 0, l->nbface, 12, l->bn, 0);
  if (l->coarse) {
    char pm[32], pw[32];
    snprintf(pm, sizeof pm, "pprolong%d", lv);
    snprintf(pw, sizeof pw, "p_pw%d", lv);
    rc |= write_table(f, m[2], 1, l->nnode, 1, l->coarse, base) |
          write_table(f, pm, 1, l->nnode, 8, l->prolong, base) |
          write_table(f, pw, 0, l->nnode, 8, l->pweight, 0);
  }
  return rc;
}

/* ---- arguments ---- */

static int parse_int(const char *s, const char *what, int *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || *end || end == s || v < 1 || v > 4096) {
    fprintf(stderr, "mg3d-mesh: %s '%s' is not a whole number from 1 to 4096\n", what, s);
    return -1;
  }
  *out = (int)v;
  return 0;
}

static int parse_args(int argc, char **argv, options *o) {
  *o = (options){.levels = 2, .seed = 1};
  const char *pos[4];
  int npos = 0;
  for (int a = 1; a < argc; a++) {
    const char *s = argv[a];
    if (strcmp(s, "--one-based") == 0) {
      o->one_based = 1;
    } else if (strcmp(s, "--tets") == 0) {
      o->tets = 1;
    } else if (strcmp(s, "--grid-order") == 0) {
      o->grid_order = 1;
    } else if ((strcmp(s, "--levels") == 0 || strcmp(s, "--perturb") == 0 ||
                strcmp(s, "--seed") == 0) &&
               a + 1 < argc) {
      const char *v = argv[++a];
      char *end;
      if (strcmp(s, "--levels") == 0) {
        if (parse_int(v, "--levels", &o->levels) || o->levels > MG3D_MAX_LEVELS) {
          fprintf(stderr, "mg3d-mesh: --levels must be 1 to %d\n", MG3D_MAX_LEVELS);
          return -1;
        }
      } else if (strcmp(s, "--perturb") == 0) {
        o->perturb = strtod(v, &end);
        if (*end || end == v || !(o->perturb >= 0 && o->perturb <= 0.3)) {
          fprintf(stderr, "mg3d-mesh: --perturb '%s' must be a number from 0 to 0.3\n", v);
          return -1;
        }
      } else {
        o->seed = strtoull(v, &end, 10);
        if (*end || end == v) {
          fprintf(stderr, "mg3d-mesh: --seed '%s' is not a whole number\n", v);
          return -1;
        }
      }
    } else if (s[0] == '-' && s[1]) {
      fprintf(stderr, "mg3d-mesh: unknown option '%s'\n", s);
      return -1;
    } else if (npos < 4) {
      pos[npos++] = s;
    } else {
      npos++;
    }
  }
  if (npos != 4) {
    fprintf(stderr,
            "usage: mg3d-mesh [--levels L] [--perturb F] [--seed S] [--one-based] [--tets] "
            "[--grid-order] NX NY NZ OUT.h5\n");
    return -1;
  }
  if (parse_int(pos[0], "NX", &o->nx) || parse_int(pos[1], "NY", &o->ny) ||
      parse_int(pos[2], "NZ", &o->nz))
    return -1;
  int f = 1 << (o->levels - 1);
  if (o->nx % f || o->ny % f || o->nz % f) {
    fprintf(stderr, "mg3d-mesh: NX, NY, NZ (%d %d %d) must be multiples of 2^(levels-1) = %d\n",
            o->nx, o->ny, o->nz, f);
    return -1;
  }
  double edges = (o->tets ? 7.0 : 3.0) * (o->nx + 1.0) * (o->ny + 1.0) * (o->nz + 1.0);
  if (edges * 3 > 2147483647.0) {
    fprintf(stderr, "mg3d-mesh: %d x %d x %d cells: too many edges for 32-bit indices\n", o->nx,
            o->ny, o->nz);
    return -1;
  }
  o->out = pos[3];
  return 0;
}

int main(int argc, char **argv) {
  options o;
  if (parse_args(argc, argv, &o) != 0) return 2;

  /* finest grid positions; interior nodes moved by up to perturb * h in each direction */
  level fine = {.nx = o.nx, .ny = o.ny, .nz = o.nz};
  long nfine = (long)(o.nx + 1) * (o.ny + 1) * (o.nz + 1);
  double *xg = alloc_or_die(sizeof(double) * 3 * (size_t)nfine);
  uint64_t ps = o.seed ^ 0x5eedULL;
  for (int k = 0; k <= o.nz; k++)
    for (int j = 0; j <= o.ny; j++)
      for (int i = 0; i <= o.nx; i++) {
        double *p = xg + 3 * grid_node(&fine, i, j, k);
        int at[3] = {i, j, k}, n[3] = {o.nx, o.ny, o.nz};
        for (int d = 0; d < 3; d++) {
          p[d] = (double)at[d] / n[d];
          double r = uniform(&ps) - 0.5;
          if (at[d] > 0 && at[d] < n[d]) p[d] += 2.0 * o.perturb * r / n[d];
        }
      }

  level lv[MG3D_MAX_LEVELS];
  memset(lv, 0, sizeof lv);
  for (int l = 0; l < o.levels; l++) build_level(&lv[l], l, &o, xg);
  for (int l = 0; l + 1 < o.levels; l++) link_levels(&lv[l], &lv[l + 1]);
  free(xg);

  /* written under a temporary name and renamed: no half-written mesh is left behind */
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", o.out);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* one message of ours instead of HDF5's stack */
  hid_t f = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  int rc = f >= 0 ? 0 : -1;
  int dims[3] = {o.nx, o.ny, o.nz}, base = o.one_based;
  for (int l = 0; rc == 0 && l < o.levels; l++) rc = write_level(f, &lv[l], l, base);
  if (rc == 0)
    rc = write_const(f, "mg_levels", 1, &o.levels) | write_const(f, "mg_dims", 3, dims) |
         write_const(f, "mg_base", 1, &base);
  if (f >= 0 && H5Fclose(f) < 0) rc = -1;
  if (rc == 0 && rename(tmp, o.out) != 0) rc = -1;
  if (rc != 0) {
    fprintf(stderr, "mg3d-mesh: cannot write %s\n", o.out);
    remove(tmp);
    return 1;
  }
  for (int l = 0; l < o.levels; l++) {
    printf("level %d: %d x %d x %d %s, %ld nodes, %ld edges, %ld boundary faces\n", l, lv[l].nx,
           lv[l].ny, lv[l].nz, o.tets ? "cells split in 6 tetrahedra" : "hexahedra", lv[l].nnode,
           lv[l].nedge, lv[l].nbface);
    free(lv[l].node_id), free(lv[l].x), free(lv[l].vol), free(lv[l].edge), free(lv[l].w);
    free(lv[l].bface), free(lv[l].bn), free(lv[l].coarse), free(lv[l].prolong);
    free(lv[l].pweight);
  }
  printf("wrote %s (maps %d-based)\n", o.out, base);
  return 0;
}
