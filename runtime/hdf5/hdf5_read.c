/* SPDX-License-Identifier: BSD-3-Clause */
/* Declaring sets, maps and dats from HDF5 files in OP2's layout (see hdf5_impl.h). With P ranks,
 * each rank reads its block of rows [G*r/P, G*(r+1)/P) (its declared block for maps and dats)
 * with collective MPI-IO and declares it as OP2 programs do by hand; map values stay global. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file_io.h"
#include "runtime/hdf5/hdf5_impl.h"
#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/options.h"
#include "runtime/mpi_state.h"
#include "runtime/mesh.h"
#include "runtime/distributed.h"
#include "runtime/chain.h"

/* One dataset being read, and where messages say it came from. */
typedef struct source {
  const char *fn, *file, *name;
  int parallel;
  hid_t fid, dset, dtype, space;
  int ndims;
  hsize_t dims[2];
  op2_h5_quiet quiet;
} source;

static int fail(const source *s, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(const source *s, int code, const char *fmt, ...) {
  char detail[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(detail, sizeof detail, fmt, ap);
  va_end(ap);
  return op2_error(code, "%s: file %s, dataset %s: %s", s->fn, s->file, s->name, detail);
}

/* Under MPI an error found on another rank still has to stop this one, with a message. */
static int agree(const source *s, int status) {
  int worst = op2_h5_agree(status);
  /* (ranks found in different calls: the agreement said so, naming them) */
  if (worst != OP2_OK && status == OP2_OK && !op2_h5_out_of_step())
    return fail(s, worst, "failed on another rank (see its message)");
  return worst;
}

static void source_close(source *s) {
  if (s->space >= 0) H5Sclose(s->space);
  if (s->dtype >= 0) H5Tclose(s->dtype);
  if (s->dset >= 0) H5Dclose(s->dset);
  if (s->fid >= 0) H5Fclose(s->fid);
  s->space = s->dtype = s->dset = s->fid = -1;
  op2_h5_quiet_end(&s->quiet);
}

/* Opens file and dataset; every failure names both. Deterministic on every rank (same file),
 * so ranks fail together without having to agree. */
static int source_open(source *s, const char *fn, const char *file, const char *name,
                       int parallel) {
  *s = (source){.fn = fn,
                .file = file ? file : "(null)",
                .name = name ? name : "(null)",
                .parallel = parallel,
                .fid = -1,
                .dset = -1,
                .dtype = -1,
                .space = -1};
  op2_h5_quiet_begin(&s->quiet);
  if (!file || !name) return fail(s, OP2_ERR_ARG, "file and dataset names must not be NULL");
  /* Checked without blocking first: HDF5 would wait forever on a FIFO (file_io.h). */
  struct stat st;
  op2_jit_error why;
  int fd = op2_open_regular(AT_FDCWD, file, 0, &st, &why);
  if (fd < 0)
    return fail(s, OP2_ERR_IO, "cannot open the file: %s",
                errno == EINVAL ? why.msg : strerror(errno));
  close(fd);
  hid_t fapl = op2_h5_fapl(parallel);
  if (fapl >= 0) s->fid = H5Fopen(file, H5F_ACC_RDONLY, fapl);
  op2_h5_plist_close(fapl);
  if (s->fid < 0) return fail(s, OP2_ERR_IO, "cannot open the file as HDF5 (not an HDF5 file?)");
  int exists = op2_h5_path_exists(s->fid, name);
  if (exists <= 0)
    return fail(
        s, OP2_ERR_IO,
        exists == 0 ? "no such dataset in the file" : "cannot look the dataset up in the file");
  hid_t obj = H5Oopen(s->fid, name, H5P_DEFAULT);
  H5I_type_t kind = obj >= 0 ? H5Iget_type(obj) : H5I_BADID;
  if (obj >= 0) H5Oclose(obj);
  if (kind != H5I_DATASET) return fail(s, OP2_ERR_IO, "the name is not a dataset (a group?)");
  s->dset = H5Dopen2(s->fid, name, H5P_DEFAULT);
  if (s->dset >= 0) s->dtype = H5Dget_type(s->dset);
  if (s->dtype >= 0) s->space = H5Dget_space(s->dset);
  if (s->space < 0) return fail(s, OP2_ERR_IO, "cannot open the dataset");
  H5S_class_t cls = H5Sget_simple_extent_type(s->space);
  s->ndims = cls == H5S_SCALAR ? 0 : H5Sget_simple_extent_ndims(s->space);
  if (s->ndims < 0 || s->ndims > 2)
    return fail(s, OP2_ERR_IO, "the dataset has %d dimensions; OP2 files use 1 or 2", s->ndims);
  s->dims[0] = s->dims[1] = 1;
  if (s->ndims > 0) H5Sget_simple_extent_dims(s->space, s->dims, NULL);
  return OP2_OK;
}

/* 1 when `file` is a readable HDF5 file without `name`: OP2 then says so and declares nothing
 * (the program tests for NULL), where any other failure is an error. Same answer on every rank. */
static int dataset_missing(const char *file, const char *name) {
  if (!file || !name || access(file, R_OK) != 0) return 0;
  op2_h5_quiet quiet;
  op2_h5_quiet_begin(&quiet);
  hid_t fapl = op2_h5_fapl(0);
  hid_t fid = fapl >= 0 ? H5Fopen(file, H5F_ACC_RDONLY, fapl) : -1;
  op2_h5_plist_close(fapl);
  int missing = fid >= 0 && op2_h5_path_exists(fid, name) == 0;
  if (fid >= 0) H5Fclose(fid);
  op2_h5_quiet_end(&quiet);
  return missing;
}

static const char *shape(const source *s, char *buf, size_t len) {
  if (s->ndims == 0)
    snprintf(buf, len, "scalar");
  else if (s->ndims == 1)
    snprintf(buf, len, "[%llu]", (unsigned long long)s->dims[0]);
  else
    snprintf(buf, len, "[%llu, %llu]", (unsigned long long)s->dims[0],
             (unsigned long long)s->dims[1]);
  return buf;
}

/* The type the file says the values have: the `type` attribute when present (checked against
 * the dataset's datatype), else the datatype itself. */
static int file_type(const source *s, op2_type *out) {
  char dbuf[64], attr[128];
  op2_type from_dtype;
  int have_dtype = op2_h5_type_of_dtype(s->dtype, &from_dtype) == OP2_OK;
  int got = op2_h5_get_str_attr(s->dset, "type", attr, sizeof attr);
  if (got < 0) return fail(s, OP2_ERR_IO, "its 'type' attribute is not a readable string");
  if (got == 0) {
    if (!have_dtype)
      return fail(s, OP2_ERR_IO, "the dataset holds %s values, which op2jit cannot load",
                  op2_h5_describe_dtype(s->dtype, dbuf, sizeof dbuf));
    *out = from_dtype;
    return OP2_OK;
  }
  if (op2_h5_parse_type(attr, out) != OP2_OK)
    return fail(s, OP2_ERR_IO, "its 'type' attribute is '%s', not a type op2jit knows", attr);
  if (!have_dtype || from_dtype != *out)
    return fail(s, OP2_ERR_IO, "its 'type' attribute says '%s' but the dataset holds %s values",
                attr, op2_h5_describe_dtype(s->dtype, dbuf, sizeof dbuf));
  return OP2_OK;
}

/* The checks a map or dat dataset gets: [rows, dim] shape (or [rows] for dim 1), the `dim`
 * attribute when present, and the row count against the set's global size. */
static int check_table(const source *s, const char *what, int dim, op_set set) {
  char sbuf[64];
  long long attr_dim;
  int got = op2_h5_get_int_attr(s->dset, "dim", &attr_dim);
  if (got < 0) return fail(s, OP2_ERR_IO, "its 'dim' attribute is not a readable integer");
  if (got == 1 && attr_dim != dim)
    return fail(s, OP2_ERR_ARG, "the file has dim %lld (attribute 'dim'), the call asks for %d",
                attr_dim, dim);
  int shape_ok = (s->ndims == 2 && s->dims[1] == (hsize_t)dim) || (s->ndims == 1 && dim == 1);
  if (!shape_ok)
    return fail(s, OP2_ERR_ARG, "the dataset's shape is %s; a %s of dim %d needs [rows, %d]",
                shape(s, sbuf, sizeof sbuf), what, dim, dim);
  if ((long long)s->dims[0] != set->global_size)
    return fail(s, OP2_ERR_ARG, "the dataset has %llu rows but set '%s' has %ld elements",
                (unsigned long long)s->dims[0], set->name, set->global_size);
  return OP2_OK;
}

/* OP2 reads a dat or a constant as the type the call declares, whatever numeric type the file
 * holds (HDF5 converts: double to float, int to long long, ...), so a single-precision program
 * reads a double-precision mesh. So does op2jit; but where the declared type cannot hold a value
 * (out of its range, a fraction or NaN read as an integer, an integer a float cannot hold
 * exactly), OP2 stores it changed and op2jit refuses the declaration instead. HDF5 reports such
 * values to this callback as it converts them. */
typedef struct conversion {
  long range, fraction, inexact, nonfinite;
} conversion;

static double float_value(hid_t type, const void *buf) {
  if (H5Tget_size(type) == sizeof(float)) {
    float f;
    memcpy(&f, buf, sizeof f);
    return f;
  }
  double d;
  memcpy(&d, buf, sizeof d);
  return d;
}

static H5T_conv_ret_t note_exception(H5T_conv_except_t kind, hid_t src, hid_t dst, void *src_buf,
                                     void *dst_buf, void *user) {
  (void)dst_buf;
  conversion *c = user;
  int to_float = H5Tget_class(dst) == H5T_FLOAT, from_float = H5Tget_class(src) == H5T_FLOAT;
  switch (kind) {
    case H5T_CONV_EXCEPT_RANGE_HI:
    case H5T_CONV_EXCEPT_RANGE_LOW:
      /* an infinity stays one in any floating-point type: no value is lost */
      if (!(to_float && from_float && src_buf && isinf(float_value(src, src_buf)))) c->range++;
      break;
    case H5T_CONV_EXCEPT_TRUNCATE:
      c->fraction++;
      break;
    case H5T_CONV_EXCEPT_PRECISION:
      c->inexact++;
      break;
    default: /* H5T_CONV_EXCEPT_PINF, _NINF, _NAN: a problem only for an integer type */
      if (!to_float) c->nonfinite++;
      break;
  }
  return H5T_CONV_UNHANDLED; /* HDF5's value; the declaration is refused anyway */
}

/* The transfer properties of a read: collective under MPI, and watching the conversion when the
 * file's type is not the one asked for (conv not NULL). */
static hid_t read_dxpl(int parallel, conversion *conv) {
  if (!conv) return op2_h5_dxpl(parallel);
  hid_t dxpl = parallel ? op2_h5_dxpl(1) : H5Pcreate(H5P_DATASET_XFER);
  if (dxpl >= 0 && H5Pset_type_conv_cb(dxpl, note_exception, conv) < 0) {
    H5Pclose(dxpl);
    return -1;
  }
  return dxpl;
}

/* After a read as `want` of values the file holds as `have`: an error naming the values the
 * declared type could not hold, or (OP2_DIAGS>=2) a note that the values were converted. */
static int converted(const source *s, op2_type have, op2_type want, const conversion *c) {
  if (have == want) return OP2_OK;
  const char *from = op2_type_name(have), *to = op2_type_name(want);
  long n = c->range ? c->range : c->fraction ? c->fraction : c->inexact ? c->inexact : c->nonfinite;
  const char *why = c->range      ? "outside the range of"
                    : c->fraction ? "with a fractional part, which cannot be held exactly by"
                    : c->inexact  ? "that cannot be held exactly by"
                                  : "NaN or infinite, which cannot be held by";
  if (n)
    return fail(s, OP2_ERR_ARG,
                "the file holds '%s' values, the call asks for '%s': %ld value%s %s '%s' (OP2 "
                "would store %s changed; declare the dat or constant as '%s')",
                from, to, n, n == 1 ? "" : "s", why, to, n == 1 ? "it" : "them", from);
  op2_diag(2, "%s: file %s, dataset %s: the file holds '%s' values, read as '%s' as the call asks",
           s->fn, s->file, s->name, from, to);
  return OP2_OK;
}

/* Reads rows [first, first + count) (all columns) of a dataset on `set` into a new buffer;
 * collective when parallel. Every read of a mesh dataset comes here: the set keeps the most rows
 * this rank read, which under MPI is its uniform block and never the whole dataset. */
static int read_rows(const source *s, op_set set, hid_t mem_type, size_t elem_bytes, long first,
                     long count, conversion *conv, void **out) {
  if (count > set->rows_read_most) set->rows_read_most = count;
  op2_set_held_rows(set, count);
  size_t bytes = (size_t)count * elem_bytes;
  void *buf = malloc(bytes ? bytes : 1);
  int status = buf ? OP2_OK : fail(s, OP2_ERR_MEM, "out of memory for %zu bytes", bytes);
  if ((status = agree(s, status)) != OP2_OK) {
    free(buf);
    return status;
  }
  if (H5Sget_simple_extent_npoints(s->space) == 0) { /* nothing stored, nothing to read */
    *out = buf;
    return OP2_OK;
  }
  hid_t fspace = H5Scopy(s->space);
  hsize_t cols = s->ndims == 2 ? s->dims[1] : 1;
  hsize_t mdims = (hsize_t)count * cols;
  hid_t mspace = H5Screate_simple(1, mdims ? &mdims : (hsize_t[]){1}, NULL);
  hsize_t start[2] = {(hsize_t)first, 0}, block[2] = {(hsize_t)count, cols};
  int ok = fspace >= 0 && mspace >= 0;
  if (ok && count == 0)
    ok = H5Sselect_none(fspace) >= 0 && H5Sselect_none(mspace) >= 0;
  else if (ok)
    ok = H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, (hsize_t[]){1, 1}, block) >= 0;
  hid_t dxpl = read_dxpl(s->parallel, conv);
  ok = ok && dxpl >= 0 && H5Dread(s->dset, mem_type, mspace, fspace, dxpl, buf) >= 0;
  op2_h5_plist_close(dxpl);
  if (mspace >= 0) H5Sclose(mspace);
  if (fspace >= 0) H5Sclose(fspace);
  status =
      agree(s, ok ? OP2_OK
                  : fail(s, OP2_ERR_IO, "reading rows %ld..%ld failed", first, first + count - 1));
  if (status != OP2_OK) {
    free(buf);
    return status;
  }
  *out = buf;
  return OP2_OK;
}

static op_set declare_set_hdf5(const char *file, const char *name) {
  const char *fn = "op_decl_set_hdf5";
  if (op2_require_init(fn) != OP2_OK) return NULL;
  int rank, nranks = op2_h5_ranks(&rank);
  source s;
  /* A 4-byte read: every rank reads it itself, no collective open needed. */
  int status = source_open(&s, fn, file, name, 0);
  long long global = -1;
  char dbuf[64], sbuf[64];
  if (status == OP2_OK) {
    if (H5Tget_class(s.dtype) != H5T_INTEGER || H5Sget_simple_extent_npoints(s.space) != 1)
      status =
          fail(&s, OP2_ERR_IO,
               "a set's dataset holds one integer (its size); this one is %s of %s values",
               shape(&s, sbuf, sizeof sbuf), op2_h5_describe_dtype(s.dtype, dbuf, sizeof dbuf));
    else if (H5Dread(s.dset, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, &global) < 0)
      status = fail(&s, OP2_ERR_IO, "cannot read the set size");
    else if (global < 0 || global > INT_MAX)
      status = fail(&s, OP2_ERR_IO, "set size %lld is out of range", global);
  }
  source_close(&s);
  if (agree(&s, status) != OP2_OK) return NULL;
  long n_local =
      op2_block_begin((long)global, rank + 1, nranks) - op2_block_begin((long)global, rank, nranks);
  return op_decl_set((int)n_local, name);
}

/* OP2's form for files without a set dataset: the set's size is the row count of a map or dat
 * stored on it (`set_dataset_name`). */
static op_set declare_set_hdf5_infer_size(const char *file, const char *name,
                                          const char *set_dataset_name) {
  const char *fn = "op_decl_set_hdf5_infer_size";
  if (op2_require_init(fn) != OP2_OK) return NULL;
  int rank, nranks = op2_h5_ranks(&rank);
  source s;
  int status = source_open(&s, fn, file, set_dataset_name, 0);
  long long global = -1;
  if (status == OP2_OK && !name) status = fail(&s, OP2_ERR_ARG, "the set name is NULL");
  if (status == OP2_OK) {
    global = s.ndims == 0 ? 1 : (long long)s.dims[0];
    if (global > INT_MAX) status = fail(&s, OP2_ERR_IO, "%lld rows is too many for a set", global);
  }
  source_close(&s);
  if (agree(&s, status) != OP2_OK) return NULL;
  long n_local =
      op2_block_begin((long)global, rank + 1, nranks) - op2_block_begin((long)global, rank, nranks);
  return op_decl_set((int)n_local, name);
}

/* This rank's declared block of a set: what its maps' and dats' rows must cover. */
static void declared_block(op_set set, long *first, long *count) {
  if (op2_h5_ranks(NULL) > 1) {
    *first = set->decl_first - op2_gid_base(op2_ctx()); /* the file's row */
    *count = set->decl_count;
  } else {
    *first = 0;
    *count = set->global_size;
  }
}

static op_map declare_map_hdf5(op_set from, op_set to, int dim, const char *file,
                               const char *name) {
  const char *fn = "op_decl_map_hdf5";
  if (op2_require_init(fn) != OP2_OK) return NULL;
  if (dataset_missing(file, name)) {
    op_printf("op_decl_map_hdf5: no map '%s' in file %s (returns NULL)\n", name, file);
    return NULL;
  }
  int nranks = op2_h5_ranks(NULL);
  source s;
  int status = source_open(&s, fn, file, name, nranks > 1);
  if (status == OP2_OK && (!from || !to))
    status = fail(&s, OP2_ERR_ARG, "the %s set is NULL", from ? "to" : "from");
  if (status == OP2_OK && dim < 1) status = fail(&s, OP2_ERR_ARG, "dim %d must be at least 1", dim);
  if (status == OP2_OK) status = check_table(&s, "map", dim, from);
  op2_type t;
  char dbuf[64];
  if (status == OP2_OK && H5Tget_class(s.dtype) != H5T_INTEGER)
    status = fail(&s, OP2_ERR_IO, "a map holds integers; this dataset holds %s values",
                  op2_h5_describe_dtype(s.dtype, dbuf, sizeof dbuf));
  if (status == OP2_OK) {
    /* OP2 writes "int"; a map stored as 64-bit integers is still a map. */
    status = file_type(&s, &t);
    if (status == OP2_OK && t != OP2_TYPE_INT && t != OP2_TYPE_LONGLONG)
      status = fail(&s, OP2_ERR_IO, "a map holds integers; the file says '%s'", op2_type_name(t));
  }
  status = agree(&s, status);
  /* 64-bit integers stay 64-bit (OP2's "long long" maps): a set they reach may pass 2^31 */
  int wide = status == OP2_OK && t == OP2_TYPE_LONGLONG;
  size_t width = wide ? sizeof(idx_g_t) : sizeof(int);
  void *rows = NULL;
  long first = 0, count = 0;
  if (status == OP2_OK) {
    declared_block(from, &first, &count);
    status = read_rows(&s, from, wide ? H5T_NATIVE_LLONG : H5T_NATIVE_INT, (size_t)dim * width,
                       first, count, NULL, &rows);
  }
  if (status == OP2_OK) {
    /* Checked here so the message names the file and the global row. */
    long n = count * dim;
    int base = op2_ctx()->opt.maps_base_index; /* OP_MAPS_BASE_INDEX=1: values from 1 */
    for (long i = 0; i < n && status == OP2_OK; i++) {
      long long v = wide ? ((const idx_g_t *)rows)[i] : ((const int *)rows)[i];
      if (v - base < 0 || v - base >= to->global_size)
        status = fail(
            &s, OP2_ERR_ARG, "value %lld at row %ld, column %ld is outside set '%s' (size %ld%s)",
            v, first + i / dim, i % dim, to->name, to->global_size, base ? ", values from 1" : "");
    }
    status = agree(&s, status);
  }
  source_close(&s);
  op_map map = status != OP2_OK ? NULL
               : wide           ? op2_decl_map_indices(from, to, dim, rows, name)
                                : op_decl_map(from, to, dim, rows, name);
  free(rows);
  return map;
}

static op_dat declare_dat_hdf5(op_set set, int dim, const char *type, const char *file,
                               const char *name) {
  const char *fn = "op_decl_dat_hdf5";
  if (op2_require_init(fn) != OP2_OK) return NULL;
  if (dataset_missing(file, name)) {
    op_printf("op_decl_dat_hdf5: no dat '%s' in file %s (returns NULL)\n", name, file);
    return NULL;
  }
  int nranks = op2_h5_ranks(NULL);
  source s;
  op2_type want, have;
  int status = source_open(&s, fn, file, name, nranks > 1);
  if (status == OP2_OK && !set) status = fail(&s, OP2_ERR_ARG, "the set is NULL");
  if (status == OP2_OK && dim < 1) status = fail(&s, OP2_ERR_ARG, "dim %d must be at least 1", dim);
  if (status == OP2_OK && op2_type_parse(type, &want) != OP2_OK)
    status = fail(&s, OP2_ERR_ARG, "unknown type '%s' (use double, float, int or long long)",
                  type ? type : "(null)");
  if (status == OP2_OK) status = check_table(&s, "dat", dim, set);
  if (status == OP2_OK) status = file_type(&s, &have);
  status = agree(&s, status);
  void *rows = NULL;
  conversion conv = {0};
  if (status == OP2_OK) {
    long first, count;
    declared_block(set, &first, &count);
    status = read_rows(&s, set, op2_h5_mem_type(want), (size_t)dim * op2_type_size(want), first,
                       count, have != want ? &conv : NULL, &rows);
    if (status == OP2_OK) status = agree(&s, converted(&s, have, want, &conv));
  }
  source_close(&s);
  op_dat dat = status == OP2_OK ? op_decl_dat(set, dim, type, rows, name) : NULL;
  free(rows);
  return dat;
}

void op_get_const_hdf5(const char *name, int dim, const char *type, char *const_data,
                       const char *file_name) {
  const char *fn = "op_get_const_hdf5";
  if (op2_require_init(fn) != OP2_OK) return;
  source s;
  op2_type want, have;
  char sbuf[64];
  long long attr_dim;
  /* Small and wanted by every rank: each reads it on its own. */
  int status = source_open(&s, fn, file_name, name, 0);
  if (status == OP2_OK && !const_data) status = fail(&s, OP2_ERR_ARG, "const_data is NULL");
  if (status == OP2_OK && dim < 1) status = fail(&s, OP2_ERR_ARG, "dim %d must be at least 1", dim);
  if (status == OP2_OK && op2_type_parse(type, &want) != OP2_OK)
    status = fail(&s, OP2_ERR_ARG, "unknown type '%s' (use double, float, int or long long)",
                  type ? type : "(null)");
  if (status == OP2_OK) {
    int got = op2_h5_get_int_attr(s.dset, "dim", &attr_dim);
    if (got < 0)
      status = fail(&s, OP2_ERR_IO, "its 'dim' attribute is not a readable integer");
    else if (got == 1 && attr_dim != dim)
      status = fail(&s, OP2_ERR_ARG,
                    "the file has dim %lld (attribute 'dim'), the call asks for %d", attr_dim, dim);
    else if (H5Sget_simple_extent_npoints(s.space) != dim)
      status = fail(&s, OP2_ERR_ARG, "the dataset's shape is %s; a constant of dim %d needs [%d]",
                    shape(&s, sbuf, sizeof sbuf), dim, dim);
  }
  if (status == OP2_OK) status = file_type(&s, &have);
  /* into a buffer first: const_data changes only when every value converted */
  size_t bytes = status == OP2_OK ? (size_t)dim * op2_type_size(want) : 0;
  void *values = status == OP2_OK ? malloc(bytes) : NULL;
  if (status == OP2_OK && !values)
    status = fail(&s, OP2_ERR_MEM, "out of memory for %zu bytes", bytes);
  conversion conv = {0};
  hid_t dxpl = status == OP2_OK ? read_dxpl(0, have != want ? &conv : NULL) : -1;
  if (status == OP2_OK &&
      (dxpl < 0 || H5Dread(s.dset, op2_h5_mem_type(want), H5S_ALL, H5S_ALL, dxpl, values) < 0))
    status = fail(&s, OP2_ERR_IO, "cannot read the values");
  op2_h5_plist_close(dxpl);
  if (status == OP2_OK) status = converted(&s, have, want, &conv);
  if (status == OP2_OK) memcpy(const_data, values, bytes);
  free(values);
  source_close(&s);
}

/* Under MPI each declaration from a file is one collective call (a step), whose agreements are
 * checked against the other ranks' calls: a rank reading the mesh in another format (its own
 * op_decl_set while this one is in op_decl_set_hdf5) fails on every rank instead of pairing its
 * collectives with others. The op_decl_set/map/dat made inside are steps within this one. */
op_set op_decl_set_hdf5(const char *file, const char *name) {
  op2_context *ctx = op2_ctx();
  if (op2_require_init("op_decl_set_hdf5") != OP2_OK) return NULL;
  op2_chain_flush(ctx, "op_decl_set_hdf5"); /* lazy execution: queued loops first */
  op2_mpi_decl_begin(ctx, "op_decl_set_hdf5", name);
  op_set set = declare_set_hdf5(file, name);
  op2_mpi_decl_end(ctx, set ? OP2_OK : OP2_ERR_IO);
  return set;
}

op_set op_decl_set_hdf5_infer_size(const char *file, const char *name,
                                   const char *set_dataset_name) {
  op2_context *ctx = op2_ctx();
  if (op2_require_init("op_decl_set_hdf5_infer_size") != OP2_OK) return NULL;
  op2_chain_flush(ctx, "op_decl_set_hdf5_infer_size"); /* lazy execution: queued loops first */
  op2_mpi_decl_begin(ctx, "op_decl_set_hdf5_infer_size", name);
  op_set set = declare_set_hdf5_infer_size(file, name, set_dataset_name);
  op2_mpi_decl_end(ctx, set ? OP2_OK : OP2_ERR_IO);
  return set;
}

op_map op_decl_map_hdf5(op_set from, op_set to, int dim, const char *file, const char *name) {
  op2_context *ctx = op2_ctx();
  if (op2_require_init("op_decl_map_hdf5") != OP2_OK) return NULL;
  op2_chain_flush(ctx, "op_decl_map_hdf5"); /* lazy execution: queued loops first */
  op2_mpi_decl_begin(ctx, "op_decl_map_hdf5", name);
  op_map map = declare_map_hdf5(from, to, dim, file, name);
  op2_mpi_decl_end(ctx, map ? OP2_OK : OP2_ERR_IO);
  return map;
}

op_dat op_decl_dat_hdf5(op_set set, int dim, const char *type, const char *file, const char *name) {
  op2_context *ctx = op2_ctx();
  if (op2_require_init("op_decl_dat_hdf5") != OP2_OK) return NULL;
  op2_chain_flush(ctx, "op_decl_dat_hdf5"); /* lazy execution: queued loops first */
  op2_mpi_decl_begin(ctx, "op_decl_dat_hdf5", name);
  op_dat dat = declare_dat_hdf5(set, dim, type, file, name);
  op2_mpi_decl_end(ctx, dat ? OP2_OK : OP2_ERR_IO);
  return dat;
}
