/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared support for the loop tests: deterministic random meshes, kernels that are both compiled
 * here (the plain-C reference) and handed to op_par_loop as source, and a count of the kernels
 * the library has obtained.
 *
 * Meshes are numbered like a real renumbered mesh (element e touches targets near e * nto /
 * nfrom, so the plan gets blocks that can run in parallel) but a fraction of all map entries
 * jump to a uniformly random target. Every target is referenced many times, columns of one
 * element sometimes coincide, and jumps make distant blocks conflict: colouring has real work. */
#ifndef RANDOM_MESH_H
#define RANDOM_MESH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"

/* The kernel prelude defines these for kernels; the reference compile of a kernel needs them
 * too. */
#ifndef MIN
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#endif
#ifndef MAX
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#endif

/* KERNEL(name, code) compiles `code` here and keeps its text as name_src, so the reference loop
 * and op_par_loop run the very same kernel and only the argument passing differs. Every
 * function in `code` must be declared static. */
#define KERNEL(name, ...) \
  __VA_ARGS__             \
  static const char name##_src[] = #__VA_ARGS__;

/* KERNEL_TEXT(name, code): only the text, for kernels whose results are checked another way. */
#define KERNEL_TEXT(name, ...) static const char name##_src[] = #__VA_ARGS__;

#define RM_STR_(...) #__VA_ARGS__
#define RM_STR(...) RM_STR_(__VA_ARGS__)

/* KERNEL_OF(CODE, name, params...) instantiates a kernel template: CODE(name, params...) must
 * expand to the kernel, which is compiled here and kept as text in name_src. */
#define KERNEL_OF(CODE, name, ...) \
  CODE(name, __VA_ARGS__)          \
  static const char name##_src[] = RM_STR(CODE(name, __VA_ARGS__));

/* Whether loops visit elements in declaration order, as plain C does: the seq backend without
 * renumbering (OP2_RENUMBER=on or blocks reorders the elements). Floating-point sums are then
 * bit-identical to plain C, and the few checks that can be stricter are. */
static inline int rm_plain_order(void) {
  const char *b = getenv("OP2_BACKEND"), *r = getenv("OP2_RENUMBER");
  return b && !strcmp(b, "seq") && !(r && strcmp(r, "off"));
}

static inline unsigned rm_rng(unsigned seed) {
  unsigned s = seed * 2654435761u + 0x9e3779b9u;
  return s ? s : 1;
}

/* Uniform in [0, n), n > 0. */
static inline int rm_below(unsigned *rng, int n) {
  return (int)(test_rand(rng) % (unsigned)n);
}

/* Uniform in [lo, hi). */
static inline double rm_uniform(unsigned *rng, double lo, double hi) {
  return lo + (hi - lo) * (double)(test_rand(rng) >> 8) / (double)(1u << 24);
}

static inline void *rm_alloc(size_t bytes) {
  void *p = calloc(bytes ? bytes : 1, 1);
  CHECK(p != NULL);
  return p;
}

/* nfrom x arity entries into [0, nto): near the element's own position in the target set,
 * except `jump_per_mille` per thousand entries, which go anywhere (1000: fully random). */
static inline int *rm_map_values(int nfrom, int arity, int nto, int jump_per_mille, unsigned *rng) {
  int *v = rm_alloc((size_t)nfrom * (size_t)arity * sizeof *v);
  int spread = 2 + (nfrom > 0 ? 2 * nto / nfrom : 0);
  if (spread > 16) spread = 16;
  for (int e = 0; e < nfrom; e++) {
    long centre = (long)e * nto / nfrom;
    for (int c = 0; c < arity; c++) {
      long t;
      if (rm_below(rng, 1000) < jump_per_mille)
        t = rm_below(rng, nto);
      else
        t = centre + rm_below(rng, 2 * spread + 1) - spread;
      v[(size_t)e * arity + c] = (int)(((t % nto) + nto) % nto);
    }
  }
  return v;
}

/* nfrom x arity distinct entries in [0, nto), nto >= nfrom * arity, in random order. */
static inline int *rm_injective_values(int nfrom, int arity, int nto, unsigned *rng) {
  int n = nfrom * arity;
  CHECK(nto >= n);
  int *perm = rm_alloc((size_t)nto * sizeof *perm);
  for (int i = 0; i < nto; i++) perm[i] = i;
  for (int i = 0; i < n; i++) {
    int j = i + rm_below(rng, nto - i);
    int t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  return perm; /* the first n entries are the map */
}

static inline double *rm_doubles(size_t n, double lo, double hi, unsigned *rng) {
  double *v = rm_alloc(n * sizeof *v);
  for (size_t i = 0; i < n; i++) v[i] = rm_uniform(rng, lo, hi);
  return v;
}

static inline int *rm_ints(size_t n, int lo, int hi, unsigned *rng) {
  int *v = rm_alloc(n * sizeof *v);
  for (size_t i = 0; i < n; i++) v[i] = lo + rm_below(rng, hi - lo);
  return v;
}

/* A mesh of edges (two nodes each) and cells (four nodes each) over nodes, declared to OP2. */
typedef struct rm_mesh {
  int ne, nn, nc;
  int *edge_nodes; /* ne x 2 */
  int *cell_nodes; /* nc x 4 */
  op_set edges, nodes, cells;
  op_map pedge, pcell;
} rm_mesh;

/* Per mille of map entries that go anywhere. With 3, a mesh of 40000 edges over 10000 nodes gets
 * 157 blocks of 256 in 5 colours, and most blocks are in colours large enough (16+ blocks) for
 * the openmp backend to run them in parallel; with 1000 every block conflicts with every other. */
enum { RM_JUMPS = 3, RM_FULLY_RANDOM = 1000 };

/* The mesh's arrays only, for a reference that must not declare anything. */
static inline void rm_mesh_values(rm_mesh *m, int ne, int nn, int nc, int jump_per_mille,
                                  unsigned seed) {
  unsigned rng = rm_rng(seed);
  memset(m, 0, sizeof *m);
  m->ne = ne;
  m->nn = nn;
  m->nc = nc;
  m->edge_nodes = rm_map_values(ne, 2, nn, jump_per_mille, &rng);
  m->cell_nodes = rm_map_values(nc, 4, nn, jump_per_mille, &rng);
}

static inline void rm_mesh_make(rm_mesh *m, int ne, int nn, int nc, int jump_per_mille,
                                unsigned seed) {
  rm_mesh_values(m, ne, nn, nc, jump_per_mille, seed);
  m->nodes = op_decl_set(nn, "nodes");
  m->edges = op_decl_set(ne, "edges");
  m->cells = op_decl_set(nc, "cells");
  m->pedge = op_decl_map(m->edges, m->nodes, 2, m->edge_nodes, "pedge");
  m->pcell = op_decl_map(m->cells, m->nodes, 4, m->cell_nodes, "pcell");
  CHECK(m->nodes && m->edges && m->cells && m->pedge && m->pcell);
}

static inline void rm_mesh_free(rm_mesh *m) {
  free(m->edge_nodes);
  free(m->cell_nodes);
}

/* |a - b| <= tol * max(1, |b|) for every value; the first difference is reported. */
static inline void rm_check_near(const double *got, const double *want, size_t n, double tol,
                                 const char *what) {
  for (size_t i = 0; i < n; i++) {
    double s = fabs(want[i]) > 1 ? fabs(want[i]) : 1;
    if (!(fabs(got[i] - want[i]) <= tol * s)) {
      fprintf(stderr, "%s: value %zu is %.17g, plain C gives %.17g\n", what, i, got[i], want[i]);
      exit(1);
    }
  }
}

/* Byte equality, reporting the first element that differs. */
static inline void rm_check_same(const void *got, const void *want, size_t n, size_t size,
                                 const char *what) {
  if (memcmp(got, want, n * size) == 0) return;
  for (size_t i = 0; i < n; i++)
    if (memcmp((const char *)got + i * size, (const char *)want + i * size, size) != 0) {
      fprintf(stderr, "%s: value %zu differs from plain C\n", what, i);
      exit(1);
    }
}

/* Kernels the library has obtained so far, read from op_timing_output(): the public API has no
 * other window on kernel reuse. A kernel is obtained once, by a TinyCC compile or a disk-cache
 * load, except with OP2_JIT=cc, where a kernel not on disk is an optimised build instead (in the
 * default tiered mode an optimised build only replaces a kernel already counted). */
static inline int rm_kernels_obtained(void) {
  fflush(stdout);
  FILE *tmp = tmpfile();
  CHECK(tmp != NULL);
  int saved = dup(fileno(stdout));
  CHECK(saved >= 0);
  CHECK(dup2(fileno(tmp), fileno(stdout)) >= 0);
  op_timing_output();
  fflush(stdout);
  CHECK(dup2(saved, fileno(stdout)) >= 0);
  close(saved);
  rewind(tmp);
  char line[1024];
  int compiled = -1, from_disk = -1, optimised = 0;
  while (fgets(line, sizeof line, tmp)) {
    const char *p = strstr(line, "kernels compiled ");
    if (p) CHECK(sscanf(p, "kernels compiled %d, from disk cache %d", &compiled, &from_disk) == 2);
    p = strstr(line, "optimised builds ");
    if (p) CHECK(sscanf(p, "optimised builds %d", &optimised) == 1);
  }
  fclose(tmp);
  CHECK(compiled >= 0 && from_disk >= 0);
  const char *jit = getenv("OP2_JIT");
  return compiled + from_disk + (jit && !strcmp(jit, "cc") ? optimised : 0);
}

#endif
