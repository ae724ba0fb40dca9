/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers for the HDF5 tests: ranks (the tests run on 1 process and under mpirun), scratch
 * directories shared by all ranks, and raw HDF5 inspection of what the library wrote. */
#ifndef OP2_H5_TEST_H
#define OP2_H5_TEST_H

#include <ftw.h>
#include <dirent.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"

/* Valid after op_init, which starts MPI when mpirun launched the test. */
static inline int h5t_mpi_up(void) {
  int up = 0, down = 0;
  MPI_Initialized(&up);
  MPI_Finalized(&down);
  return up && !down;
}

static inline int h5t_rank(void) {
  int r = 0;
  if (h5t_mpi_up()) MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

static inline int h5t_size(void) {
  int p = 1;
  if (h5t_mpi_up()) MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}

static inline void h5t_barrier(void) {
  if (h5t_mpi_up()) MPI_Barrier(MPI_COMM_WORLD);
}

/* Rank r's block [begin(r), begin(r+1)) of n, as the library distributes file rows. */
static inline long h5t_block_begin(long n, int r, int p) {
  return (long)((n * (long long)r) / p);
}

static inline void h5t_block(long n, long *first, long *count) {
  int r = h5t_rank(), p = h5t_size();
  *first = h5t_block_begin(n, r, p);
  *count = h5t_block_begin(n, r + 1, p) - *first;
}

/* A fresh directory, the same on every rank (rank 0 creates it). */
static inline void h5t_scratch(char *out, size_t len, const char *tag) {
  char path[512] = "";
  if (h5t_rank() == 0) {
    const char *tmp = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/op2-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", tag);
    CHECK(mkdtemp(path) != NULL);
  }
  if (h5t_mpi_up()) MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  snprintf(out, len, "%s", path);
}

static inline int h5t_remove_one(const char *path, const struct stat *st, int flag,
                                 struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

/* Collective: every rank has finished with the directory before rank 0 removes it. */
static inline void h5t_remove_tree(const char *dir) {
  h5t_barrier();
  if (h5t_rank() == 0) nftw(dir, h5t_remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Names in a directory other than . and .., sorted, joined with spaces ("" when empty). */
static inline void h5t_list_dir(const char *dir, char *out, size_t len) {
  struct dirent **names;
  int n = scandir(dir, &names, NULL, alphasort);
  CHECK(n >= 0);
  out[0] = '\0';
  for (int i = 0; i < n; i++) {
    if (strcmp(names[i]->d_name, ".") && strcmp(names[i]->d_name, "..")) {
      if (out[0]) strncat(out, " ", len - strlen(out) - 1);
      strncat(out, names[i]->d_name, len - strlen(out) - 1);
    }
    free(names[i]);
  }
  free(names);
}

static inline int h5t_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

static inline char *h5t_read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  CHECK(fseek(f, 0, SEEK_END) == 0);
  long n = ftell(f);
  CHECK(n >= 0 && fseek(f, 0, SEEK_SET) == 0);
  char *buf = malloc((size_t)n + 1);
  CHECK(buf && fread(buf, 1, (size_t)n, f) == (size_t)n);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

static inline void h5t_write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  CHECK(fputs(text, f) >= 0);
  CHECK(fclose(f) == 0);
}

/* ---- raw HDF5 inspection (serial, sec2) ---- */

static inline hid_t h5t_open(const char *path) {
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  CHECK(f >= 0);
  return f;
}

/* Shape of a dataset: returns its rank, dims in dims[0..1]. */
static inline int h5t_shape(hid_t file, const char *name, hsize_t dims[2]) {
  hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
  CHECK(d >= 0);
  hid_t s = H5Dget_space(d);
  int n = H5Sget_simple_extent_ndims(s);
  CHECK(n >= 0 && n <= 2);
  dims[0] = dims[1] = 0;
  H5Sget_simple_extent_dims(s, dims, NULL);
  H5Sclose(s);
  H5Dclose(d);
  return n;
}

/* 1 when the dataset's file datatype equals `type` (e.g. H5T_IEEE_F64LE). */
static inline int h5t_dtype_is(hid_t file, const char *name, hid_t type) {
  hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
  CHECK(d >= 0);
  hid_t t = H5Dget_type(d);
  int eq = H5Tequal(t, type) > 0;
  H5Tclose(t);
  H5Dclose(d);
  return eq;
}

static inline void h5t_read_all(hid_t file, const char *name, hid_t mem_type, void *out) {
  hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
  CHECK(d >= 0);
  CHECK(H5Dread(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) >= 0);
  H5Dclose(d);
}

/* An int attribute stored as OP2 stores it: int32 LE, dataspace of one element. */
static inline int h5t_int_attr(hid_t file, const char *dset, const char *name) {
  hid_t a = H5Aopen_by_name(file, dset, name, H5P_DEFAULT, H5P_DEFAULT);
  CHECK(a >= 0);
  hid_t t = H5Aget_type(a), s = H5Aget_space(a);
  CHECK(H5Tequal(t, H5T_STD_I32LE) > 0);
  CHECK(H5Sget_simple_extent_type(s) == H5S_SIMPLE && H5Sget_simple_extent_npoints(s) == 1);
  int v;
  CHECK(H5Aread(a, H5T_NATIVE_INT, &v) >= 0);
  H5Sclose(s);
  H5Tclose(t);
  H5Aclose(a);
  return v;
}

/* A string attribute as OP2 stores it: scalar, fixed length, NUL-terminated padding, ASCII.
 * Returns the string (up to the first NUL) in out and the stored length in *width. */
static inline void h5t_str_attr(hid_t file, const char *dset, const char *name, char *out,
                                size_t len, size_t *width) {
  hid_t a = H5Aopen_by_name(file, dset, name, H5P_DEFAULT, H5P_DEFAULT);
  CHECK(a >= 0);
  hid_t t = H5Aget_type(a), s = H5Aget_space(a);
  CHECK(H5Tget_class(t) == H5T_STRING);
  CHECK(H5Tis_variable_str(t) == 0);
  CHECK(H5Tget_strpad(t) == H5T_STR_NULLTERM);
  CHECK(H5Tget_cset(t) == H5T_CSET_ASCII);
  CHECK(H5Sget_simple_extent_type(s) == H5S_SCALAR);
  *width = H5Tget_size(t);
  char *raw = calloc(*width + 1, 1);
  CHECK(raw && H5Aread(a, t, raw) >= 0);
  snprintf(out, len, "%s", raw);
  free(raw);
  H5Sclose(s);
  H5Tclose(t);
  H5Aclose(a);
}

static inline herr_t h5t_count_attr(hid_t loc, const char *name, const H5A_info_t *info,
                                    void *count) {
  (void)loc, (void)name, (void)info;
  ++*(int *)count;
  return 0;
}

static inline int h5t_attr_count(hid_t file, const char *dset) {
  hid_t d = H5Dopen2(file, dset, H5P_DEFAULT);
  CHECK(d >= 0);
  int n = 0;
  CHECK(H5Aiterate2(d, H5_INDEX_NAME, H5_ITER_NATIVE, NULL, h5t_count_attr, &n) >= 0);
  H5Dclose(d);
  return n;
}

#endif
