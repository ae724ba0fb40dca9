/* SPDX-License-Identifier: BSD-3-Clause */
/* Pieces the HDF5 reader and writer share: ranks, property lists, types, attributes. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/hdf5/hdf5_impl.h"
#include "runtime/context.h"
#include "runtime/mpi_state.h"
#include "runtime/mesh.h"
#include "runtime/distributed.h"
#include "runtime/error.h"

int op2_h5_ranks(int *rank) {
  const op2_context *ctx = op2_ctx();
  /* A context that never went through op2_mpi_init has size 0: treat it as one process. */
  int size = ctx->mpi.size > 1 && ctx->mpi.comms ? ctx->mpi.size : 1;
  if (rank) *rank = size > 1 ? ctx->mpi.rank : 0;
  return size;
}

int op2_h5_settle_mesh(void) {
  op2_context *ctx = op2_ctx();
  return op2_h5_ranks(NULL) > 1 ? op2_mpi_prepare(ctx) : OP2_OK;
}

MPI_Comm op2_h5_comm(void) {
  const op2_context *ctx = op2_ctx();
  return ctx->mpi.comms ? op2_comm(ctx) : MPI_COMM_NULL;
}

int op2_h5_agree(int status) {
  if (op2_h5_ranks(NULL) == 1) return status;
  /* The library's agreement: checked against the other ranks' calls (a rank in another call
   * fails instead of pairing up) and bounded by OP2_MPI_TIMEOUT. */
  return op2_mpi_agree_quiet(op2_ctx(), status, "HDF5 file access");
}

int op2_h5_out_of_step(void) {
  return op2_ctx()->mpi.out_of_step;
}

int op2_h5_agree_alloc(int allocated, const char *fn, const char *file) {
  int rc = op2_h5_agree(allocated ? OP2_OK : OP2_ERR_MEM);
  if (!allocated) return op2_error(OP2_ERR_MEM, "%s: file %s: out of memory", fn, file);
  if (rc != OP2_OK && !op2_h5_out_of_step())
    return op2_error(rc, "%s: file %s: failed on another rank (see its message)", fn, file);
  return rc;
}

void op2_h5_quiet_begin(op2_h5_quiet *q) {
  q->func = NULL;
  q->data = NULL;
  H5Eget_auto2(H5E_DEFAULT, &q->func, &q->data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

void op2_h5_quiet_end(const op2_h5_quiet *q) {
  H5Eset_auto2(H5E_DEFAULT, q->func, q->data);
}

int op2_h5_gather_root(const char *what, const char *name, long rows, size_t row_bytes, long count,
                       void **values) {
  int rank = 0, p = op2_h5_ranks(&rank);
  if (p == 1) return OP2_OK;
  char *all = NULL;
  int *counts = NULL, *displs = NULL, status = OP2_OK;
  MPI_Datatype row = MPI_DATATYPE_NULL;
  /* counted in rows, so that a table past 2 GiB still gathers (rows fit an int: OP2's layout) */
  if (rows > INT_MAX || row_bytes > INT_MAX ||
      MPI_Type_contiguous((int)row_bytes, MPI_BYTE, &row) != MPI_SUCCESS ||
      MPI_Type_commit(&row) != MPI_SUCCESS)
    status = op2_error(OP2_ERR_ARG, "%s: '%s' cannot be gathered (%ld rows of %zu bytes)", what,
                       name, rows, row_bytes);
  else if (rank == 0) {
    all = malloc((size_t)rows * row_bytes + 1);
    counts = malloc(sizeof(int) * 2 * (size_t)p);
    if (!all || !counts)
      status = op2_error(OP2_ERR_MEM, "%s: out of memory for '%s'", what, name);
    else
      for (int q = 0, at = 0; q < p; q++) {
        displs = counts + p;
        counts[q] = (int)(op2_block_begin(rows, q + 1, p) - op2_block_begin(rows, q, p));
        displs[q] = at;
        at += counts[q];
      }
  }
  status = op2_h5_agree(status);
  if (status == OP2_OK)
    MPI_Gatherv(*values, (int)count, row, all, counts, displs, row, 0, op2_h5_comm());
  if (row != MPI_DATATYPE_NULL) MPI_Type_free(&row);
  free(counts);
  if (status == OP2_OK && rank == 0) {
    free(*values);
    *values = all;
  } else {
    free(all);
  }
  return status;
}

hid_t op2_h5_fapl(int parallel) {
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl < 0) return fapl;
  /* No flock: the library's compiler processes inherit open descriptors, and a lock held through
   * one of them would outlive our close and make the next open of the file fail. */
  int ok = H5Pset_file_locking(fapl, 0, 1) >= 0;
  if (ok && parallel) ok = H5Pset_fapl_mpio(fapl, op2_h5_comm(), MPI_INFO_NULL) >= 0;
  if (!ok) {
    H5Pclose(fapl);
    return -1;
  }
  return fapl;
}

hid_t op2_h5_dxpl(int parallel) {
  if (!parallel) return H5P_DEFAULT;
  hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
  if (dxpl < 0) return dxpl;
  if (H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE) < 0) {
    H5Pclose(dxpl);
    return -1;
  }
  return dxpl;
}

void op2_h5_plist_close(hid_t plist) {
  if (plist >= 0 && plist != H5P_DEFAULT) H5Pclose(plist);
}

hid_t op2_h5_mem_type(op2_type t) {
  switch (t) {
    case OP2_TYPE_DOUBLE:
      return H5T_NATIVE_DOUBLE;
    case OP2_TYPE_FLOAT:
      return H5T_NATIVE_FLOAT;
    case OP2_TYPE_INT:
      return H5T_NATIVE_INT;
    default:
      return H5T_NATIVE_LLONG;
  }
}

/* Little-endian IEEE and two's complement, as OP2 files have on every machine it runs on. */
hid_t op2_h5_file_type(op2_type t) {
  switch (t) {
    case OP2_TYPE_DOUBLE:
      return H5T_IEEE_F64LE;
    case OP2_TYPE_FLOAT:
      return H5T_IEEE_F32LE;
    case OP2_TYPE_INT:
      return H5T_STD_I32LE;
    default:
      return H5T_STD_I64LE;
  }
}

int op2_h5_type_of_dtype(hid_t dtype, op2_type *out) {
  H5T_class_t cls = H5Tget_class(dtype);
  size_t size = H5Tget_size(dtype);
  if (cls == H5T_FLOAT && size == sizeof(double)) return *out = OP2_TYPE_DOUBLE, OP2_OK;
  if (cls == H5T_FLOAT && size == sizeof(float)) return *out = OP2_TYPE_FLOAT, OP2_OK;
  if (cls == H5T_INTEGER && H5Tget_sign(dtype) == H5T_SGN_2) {
    if (size == sizeof(int)) return *out = OP2_TYPE_INT, OP2_OK;
    if (size == sizeof(long long)) return *out = OP2_TYPE_LONGLONG, OP2_OK;
  }
  return OP2_ERR_ARG;
}

const char *op2_h5_describe_dtype(hid_t dtype, char *buf, size_t len) {
  size_t bits = 8 * H5Tget_size(dtype);
  switch (H5Tget_class(dtype)) {
    case H5T_FLOAT:
      snprintf(buf, len, "%zu-bit float", bits);
      break;
    case H5T_INTEGER:
      snprintf(buf, len, "%zu-bit %sinteger", bits,
               H5Tget_sign(dtype) == H5T_SGN_NONE ? "unsigned " : "");
      break;
    case H5T_STRING:
      snprintf(buf, len, "string");
      break;
    default:
      snprintf(buf, len, "non-numeric (HDF5 class %d)", (int)H5Tget_class(dtype));
      break;
  }
  return buf;
}

int op2_h5_parse_type(const char *name, op2_type *out) {
  char buf[64];
  snprintf(buf, sizeof buf, "%s", name);
  /* OP2 marks struct-of-arrays dats with a suffix; the values in the file are the same. */
  char *soa = strstr(buf, ":soa");
  if (soa && soa[4] == '\0') *soa = '\0';
  if (op2_type_parse(buf, out) == OP2_OK) return OP2_OK;
  static const struct {
    const char *name;
    op2_type type;
  } fortran[] = {{"double precision", OP2_TYPE_DOUBLE},
                 {"real(8)", OP2_TYPE_DOUBLE},
                 {"real(4)", OP2_TYPE_FLOAT},
                 {"real", OP2_TYPE_FLOAT},
                 {"integer(4)", OP2_TYPE_INT},
                 {"integer", OP2_TYPE_INT},
                 {"ll", OP2_TYPE_LONGLONG}};
  for (size_t i = 0; i < sizeof fortran / sizeof fortran[0]; i++)
    if (strcmp(buf, fortran[i].name) == 0) return *out = fortran[i].type, OP2_OK;
  return OP2_ERR_ARG;
}

int op2_h5_get_int_attr(hid_t obj, const char *name, long long *out) {
  htri_t exists = H5Aexists(obj, name);
  if (exists <= 0) return exists == 0 ? 0 : -1;
  int result = -1;
  hid_t attr = H5Aopen(obj, name, H5P_DEFAULT);
  hid_t space = attr >= 0 ? H5Aget_space(attr) : -1;
  hid_t type = attr >= 0 ? H5Aget_type(attr) : -1;
  if (space >= 0 && type >= 0 && H5Tget_class(type) == H5T_INTEGER &&
      H5Sget_simple_extent_npoints(space) == 1 && H5Aread(attr, H5T_NATIVE_LLONG, out) >= 0)
    result = 1;
  if (type >= 0) H5Tclose(type);
  if (space >= 0) H5Sclose(space);
  if (attr >= 0) H5Aclose(attr);
  return result;
}

int op2_h5_get_str_attr(hid_t obj, const char *name, char *out, size_t len) {
  htri_t exists = H5Aexists(obj, name);
  if (exists <= 0) return exists == 0 ? 0 : -1;
  int result = -1;
  hid_t attr = H5Aopen(obj, name, H5P_DEFAULT);
  hid_t ftype = attr >= 0 ? H5Aget_type(attr) : -1;
  hid_t space = attr >= 0 ? H5Aget_space(attr) : -1;
  hid_t mtype = -1;
  if (ftype < 0 || space < 0 || H5Tget_class(ftype) != H5T_STRING ||
      H5Sget_simple_extent_npoints(space) != 1)
    goto done;
  mtype = H5Tcopy(H5T_C_S1);
  if (mtype < 0) goto done;
  if (H5Tis_variable_str(ftype) > 0) {
    char *s = NULL;
    if (H5Tset_size(mtype, H5T_VARIABLE) < 0 || H5Aread(attr, mtype, &s) < 0) goto done;
    snprintf(out, len, "%s", s ? s : "");
    H5free_memory(s);
    result = 1;
  } else {
    size_t n = H5Tget_size(ftype);
    char *raw = calloc(n + 1, 1);
    if (raw && H5Tset_size(mtype, n) >= 0 && H5Aread(attr, mtype, raw) >= 0) {
      /* Stop at the first NUL: OP2 leaves garbage after it in map type strings. */
      raw[n] = '\0';
      size_t used = strlen(raw);
      while (used > 0 && raw[used - 1] == ' ') raw[--used] = '\0'; /* space-padded strings */
      snprintf(out, len, "%s", raw);
      result = 1;
    }
    free(raw);
  }
done:
  if (mtype >= 0) H5Tclose(mtype);
  if (space >= 0) H5Sclose(space);
  if (ftype >= 0) H5Tclose(ftype);
  if (attr >= 0) H5Aclose(attr);
  return result;
}

int op2_h5_put_int_attr(hid_t obj, const char *name, int value) {
  hsize_t one = 1;
  hid_t space = H5Screate_simple(1, &one, NULL);
  hid_t attr =
      space >= 0 ? H5Acreate2(obj, name, H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT) : -1;
  int ok = attr >= 0 && H5Awrite(attr, H5T_NATIVE_INT, &value) >= 0;
  if (attr >= 0) H5Aclose(attr);
  if (space >= 0) H5Sclose(space);
  return ok ? OP2_OK : OP2_ERR_IO;
}

int op2_h5_put_str_attr(hid_t obj, const char *name, const char *value, size_t width) {
  size_t len = strlen(value);
  if (width < len) width = len;
  char *buf = calloc(width + 1, 1);
  if (!buf) return OP2_ERR_MEM;
  memcpy(buf, value, len);
  hid_t type = H5Tcopy(H5T_C_S1);
  int ok = type >= 0 && H5Tset_size(type, width) >= 0 &&
           H5Tset_strpad(type, H5T_STR_NULLTERM) >= 0 && H5Tset_cset(type, H5T_CSET_ASCII) >= 0;
  hid_t space = ok ? H5Screate(H5S_SCALAR) : -1;
  hid_t attr = space >= 0 ? H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT) : -1;
  ok = attr >= 0 && H5Awrite(attr, type, buf) >= 0;
  if (attr >= 0) H5Aclose(attr);
  if (space >= 0) H5Sclose(space);
  if (type >= 0) H5Tclose(type);
  free(buf);
  return ok ? OP2_OK : OP2_ERR_IO;
}

int op2_h5_path_exists(hid_t loc, const char *path) {
  size_t len = strlen(path);
  char *buf = malloc(len + 1);
  if (!buf) return -1;
  memcpy(buf, path, len + 1);
  int result = 1;
  /* Check each prefix ending before a '/', then the whole path. */
  for (size_t i = 1; i <= len && result == 1; i++) {
    if (i < len && buf[i] != '/') continue;
    char saved = buf[i];
    buf[i] = '\0';
    htri_t e = H5Lexists(loc, buf, H5P_DEFAULT);
    buf[i] = saved;
    result = e > 0 ? 1 : e == 0 ? 0 : -1;
  }
  free(buf);
  return len == 0 ? 0 : result;
}

int op2_h5_write_rows(hid_t dset, int ndims, hsize_t first, hsize_t count, hsize_t cols,
                      hid_t mem_type, const void *buf, hid_t dxpl) {
  int ok = 0;
  hid_t fspace = H5Dget_space(dset);
  /* An empty dataset has no storage to write to (parallel HDF5 fails the attempt). */
  if (fspace >= 0 && H5Sget_simple_extent_npoints(fspace) == 0) {
    H5Sclose(fspace);
    return OP2_OK;
  }
  hsize_t start[2] = {first, 0}, block[2] = {count, cols};
  hsize_t mdims = count * (ndims == 2 ? cols : 1);
  hid_t mspace = H5Screate_simple(1, mdims ? &mdims : (hsize_t[]){1}, NULL);
  if (fspace < 0 || mspace < 0) goto done;
  if (mdims == 0) {
    /* Collective writes need every rank, including those with nothing to write. */
    if (H5Sselect_none(fspace) < 0 || H5Sselect_none(mspace) < 0) goto done;
  } else if (H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, (hsize_t[]){1, 1}, block) <
             0) {
    goto done;
  }
  static const char dummy[16];
  ok = H5Dwrite(dset, mem_type, mspace, fspace, dxpl, mdims ? buf : dummy) >= 0;
done:
  if (mspace >= 0) H5Sclose(mspace);
  if (fspace >= 0) H5Sclose(fspace);
  return ok ? OP2_OK : OP2_ERR_IO;
}
