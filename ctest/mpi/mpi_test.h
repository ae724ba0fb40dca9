/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared support for the MPI tests, which run under mpiexec with 1 to 4 ranks. Every rank builds
 * the same whole mesh from a seed (so every rank also has the plain-C reference), then declares
 * it to OP2 in one of the two ways OP2 programs do:
 *   local       each rank declares its own contiguous block of every set (map values global);
 *   replicated  every rank declares the whole mesh.
 * Local blocks are deliberately uneven, and one set can be left empty on rank 0, because the
 * uniform split is the case least likely to expose an indexing mistake.
 *
 * A failed CHECK exits the rank with status 1; mpiexec then ends the whole job with a non-zero
 * status, so a rank waiting in a collective never hangs the test. */
#ifndef MPI_TEST_H
#define MPI_TEST_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <mpi.h>
#include <sys/stat.h>
#include <unistd.h>

#include "loops/random_mesh.h"

typedef enum { MT_LOCAL, MT_REPLICATED } mt_mode;

static inline int mt_rank(void) {
  int r = 0, up = 0;
  MPI_Initialized(&up);
  if (up) MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

static inline int mt_size(void) {
  int p = 1, up = 0;
  MPI_Initialized(&up);
  if (up) MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}

static inline mt_mode mt_parse_mode(const char *s) {
  if (s && strcmp(s, "local") == 0) return MT_LOCAL;
  if (s && strcmp(s, "replicated") == 0) return MT_REPLICATED;
  fprintf(stderr, "mode must be local or replicated, got '%s'\n", s ? s : "(none)");
  exit(2);
}

/* How blocks are cut in local mode. */
typedef enum {
  MT_SPLIT_SKEWED,      /* rank r gets a share proportional to r + 1 */
  MT_SPLIT_EMPTY_FIRST, /* rank 0 gets nothing (with more than one rank), the others equal parts */
  MT_SPLIT_EVEN,        /* equal parts, as a program splitting its mesh file evenly declares */
} mt_split;

typedef struct mt_block {
  int first, count;
} mt_block;

static inline long mt_split_weight(mt_split how, int r, int p) {
  long w = 0;
  for (int i = 0; i < r; i++)
    w += how == MT_SPLIT_SKEWED ? i + 1 : how == MT_SPLIT_EVEN ? 1 : (p > 1 && i == 0 ? 0 : 1);
  return w;
}

/* The part of a set of `global` elements this rank declares. */
static inline mt_block mt_block_of(mt_mode mode, mt_split how, int global) {
  if (mode == MT_REPLICATED) return (mt_block){0, global};
  int r = mt_rank(), p = mt_size();
  long total = mt_split_weight(how, p, p);
  long lo = global * mt_split_weight(how, r, p) / total;
  long hi = global * mt_split_weight(how, r + 1, p) / total;
  return (mt_block){(int)lo, (int)(hi - lo)};
}

/* A set of the whole mesh and what this rank declared of it. */
typedef struct mt_set {
  op_set set;
  int global;
  mt_block b;
} mt_set;

static inline mt_set mt_decl_set(mt_mode mode, mt_split how, int global, const char *name) {
  mt_set s = {.global = global, .b = mt_block_of(mode, how, global)};
  s.set = op_decl_set(s.b.count, name);
  CHECK(s.set != NULL);
  return s;
}

/* Rows of the declared block of a whole-mesh map: values stay global indices. */
static inline op_map mt_decl_map(const mt_set *from, const mt_set *to, int dim, const int *values,
                                 const char *name) {
  op_map m = op_decl_map(from->set, to->set, dim, values + (size_t)from->b.first * dim, name);
  CHECK(m != NULL);
  return m;
}

static inline op_dat mt_decl_dat(const mt_set *s, int dim, const char *type, size_t type_size,
                                 const void *values, const char *name) {
  const char *rows = values ? (const char *)values + (size_t)s->b.first * dim * type_size : NULL;
  op_dat d = op_decl_dat(s->set, dim, type, rows, name);
  CHECK(d != NULL);
  return d;
}

/* Every rank's `n` ints, concatenated in rank order, on every rank; counts[r] and the total are
 * returned. The result is malloc'd. */
static inline int *mt_allgather_ints(const int *mine, int n, int *counts_out, int *total_out) {
  int p = mt_size();
  int *counts = rm_alloc(sizeof(int) * (size_t)p), *disp = rm_alloc(sizeof(int) * (size_t)p);
  MPI_Allgather(&n, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
  int total = 0;
  for (int q = 0; q < p; q++) disp[q] = total, total += counts[q];
  int *all = rm_alloc(sizeof(int) * ((size_t)total + 1));
  MPI_Allgatherv(mine, n, MPI_INT, all, counts, disp, MPI_INT, MPI_COMM_WORLD);
  if (counts_out) memcpy(counts_out, counts, sizeof(int) * (size_t)p);
  if (total_out) *total_out = total;
  free(counts), free(disp);
  return all;
}

/* Whole-dat values compared with the plain-C reference: exact bytes, or doubles within a
 * relative tolerance. The rank is named in the message. */
static inline void mt_check_doubles(const double *got, const double *want, size_t n, double tol,
                                    const char *what) {
  for (size_t i = 0; i < n; i++) {
    double s = fabs(want[i]) > 1 ? fabs(want[i]) : 1;
    if (!(fabs(got[i] - want[i]) <= tol * s)) {
      fprintf(stderr, "rank %d of %d: %s: value %zu is %.17g, plain C gives %.17g\n", mt_rank(),
              mt_size(), what, i, got[i], want[i]);
      exit(1);
    }
  }
}

static inline void mt_check_bytes(const void *got, const void *want, size_t n, size_t size,
                                  const char *what) {
  for (size_t i = 0; i < n; i++)
    if (memcmp((const char *)got + i * size, (const char *)want + i * size, size) != 0) {
      fprintf(stderr, "rank %d of %d: %s: value %zu differs from plain C\n", mt_rank(), mt_size(),
              what, i);
      exit(1);
    }
}

static inline void mt_check_ints(const int *got, const int *want, size_t n, const char *what) {
  for (size_t i = 0; i < n; i++)
    if (got[i] != want[i]) {
      fprintf(stderr, "rank %d of %d: %s: value %zu is %d, plain C gives %d\n", mt_rank(),
              mt_size(), what, i, got[i], want[i]);
      exit(1);
    }
}

/* A dat's whole contents in the user's order, through op_fetch_data_idx (collective). */
static inline void *mt_fetch_all(op_dat d, int global, size_t elem_bytes) {
  void *out = rm_alloc(elem_bytes * (size_t)global);
  if (global > 0) op_fetch_data_idx(d, out, 0, global - 1);
  return out;
}

/* A fresh directory for files the test writes, made by rank 0 inside the test's OP2_CACHE_DIR
 * (each test has its own) and named to every rank. Collective. */
static inline void mt_scratch_dir(char *dir, size_t len) {
  if (mt_rank() == 0) {
    const char *base = getenv("OP2_CACHE_DIR");
    snprintf(dir, len, "%s", base && *base ? base : "/tmp");
    for (char *p = dir + 1; *p; p++) { /* mkdir -p: the cache may not exist yet */
      if (*p != '/') continue;
      *p = 0;
      CHECK(mkdir(dir, 0755) == 0 || errno == EEXIST);
      *p = '/';
    }
    CHECK(mkdir(dir, 0755) == 0 || errno == EEXIST);
    size_t n = strlen(dir);
    snprintf(dir + n, len - n, "/scratch-XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
  }
  MPI_Bcast(dir, (int)len, MPI_CHAR, 0, MPI_COMM_WORLD);
}

/* Rank 0 removes the directory and the files in it; returns how many files there were. */
static inline int mt_scratch_remove(const char *dir) {
  int n = 0;
  MPI_Barrier(MPI_COMM_WORLD); /* nobody still reads them */
  if (mt_rank() != 0) return 0;
  DIR *d = opendir(dir);
  CHECK(d != NULL);
  struct dirent *ent;
  char path[4096];
  while ((ent = readdir(d))) {
    if (!strcmp(ent->d_name, ".") || !strcmp(ent->d_name, "..")) continue;
    snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
    CHECK(remove(path) == 0);
    n++;
  }
  closedir(d);
  CHECK(rmdir(dir) == 0);
  return n;
}

/* A kernel cache nobody has filled, for tests that count compiles: made as a scratch directory and
 * named in OP2_CACHE_DIR, so call it after MPI_Init and before op_init. Collective. */
static inline void mt_fresh_cache(char *dir, size_t len) {
  mt_scratch_dir(dir, len);
  CHECK(setenv("OP2_CACHE_DIR", dir, 1) == 0);
}

static inline int mt_remove_entry(const char *path, const struct stat *st, int flag,
                                  struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

/* After op_exit: rank 0 removes that cache with everything in it. Collective. */
static inline void mt_remove_cache(const char *dir) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (mt_rank() == 0) CHECK(nftw(dir, mt_remove_entry, 16, FTW_DEPTH | FTW_PHYS) == 0);
}

/* Runs op_partition with stderr going to a file and returns what it printed (a static buffer,
 * also copied to stderr so the test log keeps it). */
static inline char *mt_partition_capturing(const char *lib, const char *routine, op_set set,
                                           op_map map, op_dat coords) {
  char path[] = "/tmp/op2-partition-stderrXXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  fflush(stderr);
  int saved = dup(2);
  dup2(fd, 2);
  op_partition(lib, routine, set, map, coords);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  static char text[16384];
  ssize_t n = pread(fd, text, sizeof text - 1, 0);
  text[n > 0 ? n : 0] = 0;
  close(fd);
  unlink(path);
  fputs(text, stderr);
  return text;
}

#endif
