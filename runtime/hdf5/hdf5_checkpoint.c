/* SPDX-License-Identifier: BSD-3-Clause */
/* A checkpoint's contents in OP2's HDF5 layout (hdf5_impl.h): every set, map, dat and constant
 * as op_dump_to_hdf5 writes them, in the user's original order, plus the dataset
 * "op2_checkpoint" (bytes) holding the loop log. The file starts with a user block for the
 * header checkpoint_file.c fills in; HDF5 tools and OP2 read the file as usual. Restoring reads
 * a verified in-memory image of the file, so what is loaded is exactly what was checked. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/checkpoint.h"
#include "runtime/hdf5/hdf5_impl.h"
#include "runtime/output_file.h"
#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/mesh.h"
#include "runtime/distributed.h"

static const char log_dataset[] = "op2_checkpoint";

typedef struct out_file {
  const char *file; /* as the user named it, for messages */
  hid_t fid;        /* rank 0 only */
  int rank;
} out_file;

static hid_t create(const out_file *o, const char *name, hid_t ftype, int ndims, hsize_t rows,
                    hsize_t cols) {
  hsize_t dims[2] = {rows, cols};
  hid_t space = H5Screate_simple(ndims, dims, NULL);
  if (space < 0) return -1;
  hid_t dset = H5Dcreate2(o->fid, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Sclose(space);
  return dset;
}

/* A 1-D dataset: a set's size, a constant, the log. */
static int write_vector(const out_file *o, const char *name, hid_t ftype, hid_t mtype, hsize_t n,
                        const void *data, int dim_attr, const char *type_attr) {
  hid_t dset = create(o, name, ftype, 1, n, 1);
  int ok = dset >= 0 && (dim_attr <= 0 || op2_h5_put_int_attr(dset, "dim", dim_attr) == OP2_OK) &&
           (!type_attr || op2_h5_put_str_attr(dset, "type", type_attr, 0) == OP2_OK) &&
           op2_h5_write_rows(dset, 1, 0, n, 1, mtype, data, H5P_DEFAULT) == OP2_OK;
  if (dset >= 0) H5Dclose(dset);
  return ok ? OP2_OK
            : op2_error(OP2_ERR_IO, "checkpoint %s: cannot write dataset '%s'", o->file, name);
}

/* A whole [rows, dim] map or dat. */
static int write_table(const out_file *o, const char *name, op2_type type, int dim, long rows,
                       int size_attr, int map_type_width, const void *values) {
  hid_t dset = create(o, name, op2_h5_file_type(type), 2, (hsize_t)rows, (hsize_t)dim);
  int ok =
      dset >= 0 && op2_h5_put_int_attr(dset, "dim", dim) == OP2_OK &&
      op2_h5_put_int_attr(dset, "size", size_attr) == OP2_OK &&
      op2_h5_put_str_attr(dset, "type", op2_type_name(type), (size_t)map_type_width) == OP2_OK &&
      op2_h5_write_rows(dset, 2, 0, (hsize_t)rows, (hsize_t)dim, op2_h5_mem_type(type), values,
                        H5P_DEFAULT) == OP2_OK;
  if (dset >= 0) H5Dclose(dset);
  return ok ? OP2_OK
            : op2_error(OP2_ERR_IO, "checkpoint %s: cannot write dataset '%s'", o->file, name);
}

/* Every rank gathers; rank 0 writes while its file is healthy (*written tells). */
static int write_contents(const out_file *o, const char *blob, size_t blob_len) {
  op2_context *ctx = op2_ctx();
  int root = o->rank == 0, written = OP2_OK;
  for (int i = 0; root && written == OP2_OK && i < ctx->sets.count; i++) {
    op_set s = ctx->sets.items[i];
    if (s->global_size > INT_MAX) {
      written = op2_error(
          OP2_ERR_ARG,
          "checkpoint: set '%s' has %ld elements; OP2's layout keeps a set's size as an int",
          s->name, s->global_size);
      break;
    }
    int size = (int)s->global_size;
    written = write_vector(o, s->name, H5T_STD_I32LE, H5T_NATIVE_INT, 1, &size, 0, NULL);
  }
  for (int i = 0; i < ctx->maps.count; i++) {
    op_map m = ctx->maps.items[i];
    long first = 0, count = 0, rows = m->from->global_size;
    int *values = NULL;
    int rc = op2_h5_agree(op2_h5_map_block(m, &first, &count, &values));
    if (rc == OP2_OK)
      rc = op2_h5_gather_root("checkpoint", m->name, rows, sizeof(int) * (size_t)m->dim, count,
                              (void **)&values);
    if (rc == OP2_OK && root && written == OP2_OK)
      written = write_table(o, m->name, OP2_TYPE_INT, m->dim, rows, (int)rows, 10, values);
    free(values);
    OP2_CALL(rc);
  }
  for (int i = 0; i < ctx->dats.count; i++) {
    op_dat d = ctx->dats.items[i];
    long first = 0, count = 0, rows = d->set->global_size;
    void *values = NULL;
    int rc = op2_h5_agree(op2_h5_dat_block(d, &first, &count, &values));
    if (rc == OP2_OK)
      rc = op2_h5_gather_root("checkpoint", d->decl_name, rows, d->elem_bytes, count, &values);
    if (rc == OP2_OK && root && written == OP2_OK)
      written = write_table(o, d->decl_name, d->type, d->dim, rows, (int)d->elem_bytes, 0, values);
    free(values);
    OP2_CALL(rc);
  }
  for (int i = 0; root && written == OP2_OK && i < ctx->consts.count; i++) {
    const op2_const *c = ctx->consts.items[i];
    written = write_vector(o, c->name, op2_h5_file_type(c->type), op2_h5_mem_type(c->type),
                           (hsize_t)c->dim, c->data, c->dim, op2_type_name(c->type));
  }
  if (root && written == OP2_OK)
    written = write_vector(o, log_dataset, H5T_NATIVE_UCHAR, H5T_NATIVE_UCHAR, (hsize_t)blob_len,
                           blob, 0, NULL);
  return written;
}

static int reserved_name_used(const char *file) {
  op2_context *ctx = op2_ctx();
  for (int i = 0; i < ctx->dats.count; i++)
    if (strcmp(((op_dat)ctx->dats.items[i])->name, log_dataset) == 0)
      return op2_error(OP2_ERR_ARG, "checkpoint %s: dat '%s' has the name of the log dataset", file,
                       log_dataset);
  for (int i = 0; i < ctx->sets.count; i++)
    if (strcmp(((op_set)ctx->sets.items[i])->name, log_dataset) == 0)
      return op2_error(OP2_ERR_ARG, "checkpoint %s: set '%s' has the name of the log dataset", file,
                       log_dataset);
  for (int i = 0; i < ctx->maps.count; i++)
    if (strcmp(((op_map)ctx->maps.items[i])->name, log_dataset) == 0)
      return op2_error(OP2_ERR_ARG, "checkpoint %s: map '%s' has the name of the log dataset", file,
                       log_dataset);
  return op2_const_find(log_dataset)
             ? op2_error(OP2_ERR_ARG,
                         "checkpoint %s: constant '%s' has the name of the log dataset", file,
                         log_dataset)
             : OP2_OK;
}

/* Rank 0 builds the file in memory (its bytes into *image); every rank takes part in the
 * gathers. */
static int write_file(const char *file, char **image, size_t *len, const char *blob,
                      size_t blob_len) {
  OP2_CALL(op2_h5_check_names("op_checkpoint", file));
  OP2_CALL(reserved_name_used(file));
  out_file o = {.file = file, .fid = -1};
  op2_h5_ranks(&o.rank);
  int rc = OP2_OK;
  if (o.rank == 0) {
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    if (fcpl >= 0 && H5Pset_userblock(fcpl, OP2_CKPT_HEADER_BYTES) >= 0)
      o.fid = op2_h5_image_create(fcpl);
    if (fcpl >= 0) H5Pclose(fcpl);
    if (o.fid < 0)
      rc = op2_error(OP2_ERR_IO, "checkpoint %s: HDF5 cannot make the file in memory", file);
  }
  int written = write_contents(&o, blob, blob_len);
  if (rc == OP2_OK) rc = written;
  if (o.fid >= 0 && rc == OP2_OK && op2_h5_image_take(o.fid, image, len) != 0)
    rc = op2_error(OP2_ERR_IO, "checkpoint %s: HDF5 cannot finish the file in memory", file);
  if (o.fid >= 0) H5Fclose(o.fid);
  return op2_h5_agree(rc);
}

int op2_h5_checkpoint_ranks(void) {
  return op2_h5_ranks(NULL);
}

void op2_h5_checkpoint_bcast_int(int *v) {
  /* an agreement (not a raw broadcast): a rank in another call is told, never paired with it */
  if (op2_h5_ranks(NULL) > 1 &&
      op2_mpi_agree_rank0_int(op2_ctx(), v, "checkpoint (whether one is due)") != OP2_OK)
    *v = 0;
}

int op2_h5_checkpoint_save(const char *file, const char *blob, size_t blob_len) {
  OP2_CALL(op2_h5_settle_mesh()); /* the sets' global sizes, as for a dump */
  /* Rank 0 opens the target first (the file the name's links lead to; a device or FIFO cannot
   * hold a checkpoint): a temporary file with an unpredictable name beside it, created
   * exclusively, written through its descriptor and renamed; nothing is opened by name again. */
  int rank = 0, parallel = op2_h5_ranks(&rank) > 1;
  op2_output *out = rank == 0 ? malloc(sizeof *out) : NULL;
  int rc = op2_h5_agree_alloc(rank != 0 || out, "checkpoint", file);
  if (rc != OP2_OK) {
    free(out);
    return rc;
  }
  op2_jit_error why;
  if (rank == 0 && op2_output_open_regular(out, file, &why) != 0) {
    rc = op2_error(OP2_ERR_IO, "checkpoint %s: %s", file, why.msg);
    free(out), out = NULL;
  }
  int agreed = op2_h5_agree(rc);
  if (agreed != OP2_OK) {
    if (out) op2_output_close(out, 1, &why);
    free(out);
    if (rc == OP2_OK && !op2_h5_out_of_step())
      agreed = op2_error(OP2_ERR_IO, "checkpoint %s: failed on rank 0", file);
    return rc != OP2_OK ? rc : agreed;
  }
  char *image = NULL;
  size_t len = 0;
  op2_h5_quiet quiet;
  op2_h5_quiet_begin(&quiet);
  rc = write_file(file, &image, &len, blob, blob_len);
  op2_h5_quiet_end(&quiet);
  if (rank == 0) {
    if (rc == OP2_OK)
      rc = op2_ckpt_write(file, out, image, len);
    else
      op2_output_close(out, 1, &why);
  }
  free(image);
  free(out);
  if (parallel) {
    int code = rc;
    MPI_Bcast(&code, 1, MPI_INT, 0, op2_h5_comm());
    if (code != OP2_OK && rank != 0 && rc == OP2_OK)
      rc = op2_error(code, "checkpoint %s: failed on rank 0 (see its message)", file);
  }
  return rc;
}

/* ---- reading a verified image ---- */

/* Reads dataset `name` whole into a new buffer after checking its shape and element type. */
static int read_dataset(const char *file, hid_t fid, const char *what, const char *name,
                        op2_type type, int ndims, hsize_t rows, hsize_t cols, void **out) {
  *out = NULL;
  if (op2_h5_path_exists(fid, name) <= 0)
    return op2_error(OP2_ERR_ARG, "checkpoint %s: has no dataset for %s '%s' (another program?)",
                     file, what, name);
  hid_t dset = H5Dopen2(fid, name, H5P_DEFAULT);
  hid_t space = dset >= 0 ? H5Dget_space(dset) : -1;
  hid_t dtype = dset >= 0 ? H5Dget_type(dset) : -1;
  hsize_t dims[2] = {0, 0};
  op2_type t;
  int shape_ok = space >= 0 && H5Sget_simple_extent_ndims(space) == ndims &&
                 H5Sget_simple_extent_dims(space, dims, NULL) == ndims && dims[0] == rows &&
                 (ndims == 1 || dims[1] == cols) && dtype >= 0 &&
                 op2_h5_type_of_dtype(dtype, &t) == OP2_OK && t == type;
  size_t bytes = (size_t)rows * (size_t)cols * op2_type_size(type);
  char *buf = shape_ok ? malloc(bytes ? bytes : 1) : NULL;
  int read_ok = buf && (bytes == 0 || H5Dread(dset, op2_h5_mem_type(type), H5S_ALL, H5S_ALL,
                                              H5P_DEFAULT, buf) >= 0);
  if (dtype >= 0) H5Tclose(dtype);
  if (space >= 0) H5Sclose(space);
  if (dset >= 0) H5Dclose(dset);
  if (!shape_ok)
    return op2_error(OP2_ERR_ARG,
                     "checkpoint %s: dataset '%s' does not hold %s '%s' as declared (%s, %llu x "
                     "%llu expected)",
                     file, name, what, name, op2_type_name(type), (unsigned long long)rows,
                     (unsigned long long)cols);
  if (!read_ok) {
    free(buf);
    return op2_error(OP2_ERR_IO, "checkpoint %s: cannot read dataset '%s'", file, name);
  }
  *out = buf;
  return OP2_OK;
}

static int read_blob(const char *file, hid_t fid, char **blob, size_t *blob_len) {
  if (op2_h5_path_exists(fid, log_dataset) <= 0)
    return op2_error(OP2_ERR_ARG, "checkpoint %s: has no '%s' dataset (not a checkpoint)", file,
                     log_dataset);
  hid_t dset = H5Dopen2(fid, log_dataset, H5P_DEFAULT);
  hid_t space = dset >= 0 ? H5Dget_space(dset) : -1;
  hssize_t n = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
  char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
  int ok =
      buf && (n == 0 || H5Dread(dset, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
  if (space >= 0) H5Sclose(space);
  if (dset >= 0) H5Dclose(dset);
  if (!ok) {
    free(buf);
    return op2_error(OP2_ERR_IO, "checkpoint %s: cannot read its '%s' dataset", file, log_dataset);
  }
  *blob = buf;
  *blob_len = (size_t)n;
  return OP2_OK;
}

/* The worst status over the ranks; a rank that was fine says why it stops too. */
static int agree(const char *file, int status) {
  int worst = op2_h5_agree(status);
  if (worst != OP2_OK && status == OP2_OK)
    return op2_error(worst, "checkpoint %s: failed on another rank (see its message)", file);
  return worst;
}

int op2_h5_checkpoint_load(const char *file, char **image, size_t *len, char **blob,
                           size_t *blob_len, int *exists) {
  *blob = NULL;
  int rc = agree(file, op2_ckpt_load_verified(file, image, len, exists));
  int anywhere = *exists;
  /* a raw collective: only once every rank agreed it got here (a failed rank has left) */
  if (rc == OP2_OK && op2_h5_ranks(NULL) > 1)
    MPI_Allreduce(exists, &anywhere, 1, MPI_INT, MPI_MAX, op2_h5_comm());
  if (rc == OP2_OK && anywhere != *exists)
    rc = op2_error(OP2_ERR_IO,
                   "checkpoint %s: exists on some ranks only (not a shared file system?)", file);
  if (rc == OP2_OK && *exists) {
    op2_h5_quiet quiet;
    op2_h5_quiet_begin(&quiet);
    hid_t fid = op2_h5_image_open(*image, *len, 0);
    rc = fid >= 0 ? read_blob(file, fid, blob, blob_len)
                  : op2_error(OP2_ERR_IO, "checkpoint %s: HDF5 cannot open it", file);
    if (fid >= 0) H5Fclose(fid);
    op2_h5_quiet_end(&quiet);
  }
  rc = agree(file, rc);
  if (rc != OP2_OK) {
    free(*image), free(*blob);
    *image = *blob = NULL;
  }
  return rc;
}

/* Every local element (owned and halo) gets the value of its original global index. */
static int restore_dat(const char *file, hid_t fid, op_dat d) {
  op_set s = d->set;
  void *all;
  OP2_CALL(read_dataset(file, fid, "dat", d->decl_name, d->type, 2, (hsize_t)s->global_size,
                        (hsize_t)d->dim, &all));
  size_t n = op2_set_local_count(s), eb = d->elem_bytes;
  long ids = op2_gid_base(op2_ctx()); /* global id - ids: the file's row */
  long base = op2_h5_ranks(NULL) > 1 ? s->decl_first - ids : 0;
  for (size_t e = 0; e < n; e++) {
    long g = s->orig ? s->orig[e] - ids : base + (long)e;
    memcpy(d->data + e * eb, (const char *)all + (size_t)g * eb, eb);
  }
  free(all);
  d->halo_dirty = true; /* every halo copy is refreshed from its owner before it is read */
  return OP2_OK;
}

static int restore_const(const char *file, hid_t fid, const op2_const *c) {
  void *values;
  OP2_CALL(read_dataset(file, fid, "constant", c->name, c->type, 1, (hsize_t)c->dim, 1, &values));
  /* Same name, type and dim: updates the value in place (and recompiles kernels if it changed). */
  op_decl_const(c->dim, op2_type_name(c->type), values, c->name);
  free(values);
  return OP2_OK;
}

int op2_h5_checkpoint_restore(const char *file, const char *image, size_t len) {
  op2_context *ctx = op2_ctx();
  /* Loops were skipped, so the first of them may not have distributed the mesh yet. */
  if (op2_h5_ranks(NULL) > 1 && !ctx->mpi_distributed)
    OP2_CALL(op2_mpi_distribute(ctx, NULL, NULL, NULL));
  op2_h5_quiet quiet;
  op2_h5_quiet_begin(&quiet);
  hid_t fid = op2_h5_image_open(image, len, 0);
  int rc = fid >= 0 ? OP2_OK : op2_error(OP2_ERR_IO, "checkpoint %s: HDF5 cannot open it", file);
  for (int i = 0; rc == OP2_OK && i < ctx->dats.count; i++)
    rc = restore_dat(file, fid, ctx->dats.items[i]);
  for (int i = 0; rc == OP2_OK && i < ctx->consts.count; i++)
    rc = restore_const(file, fid, ctx->consts.items[i]);
  if (fid >= 0) H5Fclose(fid);
  op2_h5_quiet_end(&quiet);
  return agree(file, rc);
}
