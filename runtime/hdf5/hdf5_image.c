/* SPDX-License-Identifier: BSD-3-Clause */
/* HDF5 files in memory (hdf5_impl.h). Every file the library writes is built here and written
 * whole through a descriptor the library opened itself (output_file.h: a temporary file beside
 * the target, renamed over it), so HDF5 never opens a path that another user could point at a
 * file of theirs choosing. HDF5's core driver still probes the name it is given with open(); the
 * name used is longer than any path the kernel accepts, so that probe reaches no file. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/hdf5/hdf5_impl.h"

/* "op2-in-memory/xxx...": past PATH_MAX, so open() fails with ENAMETOOLONG before any lookup. */
static const char *no_file(char *buf, size_t len) {
  memset(buf, 'x', len - 1);
  memcpy(buf, "op2-in-memory/", 14);
  buf[len - 1] = '\0';
  return buf;
}

static hid_t memory_fapl(const void *image, size_t len) {
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl < 0) return -1;
  /* grown 1 MiB at a time; never written to disk by HDF5 itself */
  int ok = H5Pset_fapl_core(fapl, (size_t)1 << 20, 0) >= 0 && H5Pset_file_locking(fapl, 0, 1) >= 0;
  if (ok && image) ok = H5Pset_file_image(fapl, (void *)image, len) >= 0; /* copied */
  if (!ok) {
    H5Pclose(fapl);
    return -1;
  }
  return fapl;
}

hid_t op2_h5_image_create(hid_t fcpl) {
  char name[PATH_MAX + 64];
  hid_t fapl = memory_fapl(NULL, 0);
  hid_t fid = fapl >= 0 ? H5Fcreate(no_file(name, sizeof name), H5F_ACC_TRUNC, fcpl, fapl) : -1;
  if (fapl >= 0) H5Pclose(fapl);
  return fid;
}

hid_t op2_h5_image_open(const void *image, size_t len, int writable) {
  char name[PATH_MAX + 64];
  hid_t fapl = memory_fapl(image, len);
  hid_t fid = fapl >= 0 ? H5Fopen(no_file(name, sizeof name),
                                  writable ? H5F_ACC_RDWR : H5F_ACC_RDONLY, fapl)
                        : -1;
  if (fapl >= 0) H5Pclose(fapl);
  return fid;
}

int op2_h5_image_take(hid_t fid, char **bytes, size_t *len) {
  *bytes = NULL, *len = 0;
  if (H5Fflush(fid, H5F_SCOPE_GLOBAL) < 0) return -1;
  ssize_t n = H5Fget_file_image(fid, NULL, 0);
  char *buf = n > 0 ? malloc((size_t)n) : NULL;
  if (!buf || H5Fget_file_image(fid, buf, (size_t)n) != n) {
    free(buf);
    return -1;
  }
  *bytes = buf, *len = (size_t)n;
  return 0;
}
