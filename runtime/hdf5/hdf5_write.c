/* SPDX-License-Identifier: BSD-3-Clause */
/* Writing the mesh in OP2's HDF5 layout (see hdf5_impl.h), in the user's original global order
 * whatever renumbering or partitioning happened since. Every rank's rows are gathered to rank 0,
 * which builds the file in memory and writes it whole through a temporary file next to the
 * target, renamed over it only once complete (output_file.h): a failed dump leaves the target as
 * it was (absent or the previous version), and HDF5 never opens a path another user could
 * redirect. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/hdf5/hdf5_impl.h"
#include "runtime/output_file.h"
#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/alloc.h"
#include "runtime/options.h"
#include "runtime/mesh.h"
#include "runtime/backend.h"
#include "runtime/chain.h"

/* ---- this rank's block of the user's order ---- */

/* Without the distributed gather, a rank can only write what it declared, in declared order:
 * true before partitioning, never after. */
static int declared_layout(op_set set, const char *what, const char *name) {
  if (op2_h5_ranks(NULL) == 1) return OP2_OK;
  /* A whole mesh declared on every rank is not a block per rank until it is distributed. */
  if (set->orig || set->halo || set->size != set->decl_count ||
      op2_ctx()->opt.mpi_decl == OP2_DECL_REPLICATED)
    return op2_error(OP2_ERR_STATE,
                     "%s '%s': writing a partitioned mesh needs the runtime's distributed gather "
                     "(op2_dat_gather_block), which this build lacks",
                     what, name);
  return OP2_OK;
}

int op2_h5_dat_block(op_dat dat, long *first, long *count, void **values) {
#ifdef OP2_HAVE_GATHER_BLOCK
  if (op2_h5_ranks(NULL) > 1) return op2_dat_gather_block(dat, first, count, values);
#endif
  op_set set = dat->set;
  OP2_CALL(declared_layout(set, "dat", dat->name));
  OP2_CALL(op2_dat_sync_host(op2_ctx(), dat)); /* an accelerator may hold newer values */
  size_t eb = dat->elem_bytes, n = (size_t)set->size;
  char *out = malloc(n * eb > 0 ? n * eb : 1);
  if (!out)
    return op2_error(OP2_ERR_MEM, "dat '%s': out of memory for %zu bytes", dat->name, n * eb);
  if (set->orig) /* renumbered: element e is the user's element orig[e] */
    for (size_t e = 0; e < n; e++) memcpy(out + (size_t)set->orig[e] * eb, dat->data + e * eb, eb);
  else if (n)
    memcpy(out, dat->data, n * eb);
  *first = op2_h5_ranks(NULL) > 1 ? set->decl_first : 0;
  *count = (long)n;
  *values = out;
  return OP2_OK;
}

int op2_h5_map_block(op_map map, long *first, long *count, int **values) {
  char use[160];
  snprintf(use, sizeof use, "writing map '%.120s'", map->name);
  int rc = op2_map_check(map, use, false); /* the program may have written its values */
  if (op2_h5_ranks(NULL) > 1) rc = op2_mpi_agree(op2_ctx(), rc, "writing a map");
  OP2_CALL(rc);
#ifdef OP2_HAVE_GATHER_BLOCK
  if (op2_h5_ranks(NULL) > 1) return op2_map_gather_block(map, first, count, values);
#endif
  op_set from = map->from;
  const idx_g_t *to_orig = map->to->orig;
  OP2_CALL(declared_layout(from, "map", map->name));
  size_t dim = (size_t)map->dim, n = (size_t)from->size;
  int *out = malloc(n * dim > 0 ? n * dim * sizeof(int) : 1);
  if (!out)
    return op2_error(OP2_ERR_MEM, "map '%s': out of memory for %zu bytes", map->name,
                     n * dim * sizeof(int));
  for (size_t e = 0; e < n; e++) {
    size_t row = from->orig ? (size_t)from->orig[e] : e;
    for (size_t k = 0; k < dim; k++) {
      int v = map->values[e * dim + k];
      out[row * dim + k] = to_orig ? (int)to_orig[v] : v; /* one process: v < its int size */
    }
  }
  *first = op2_h5_ranks(NULL) > 1 ? from->decl_first : 0;
  *count = (long)n;
  *values = out;
  return OP2_OK;
}

/* ---- one output file, built in memory by rank 0 ---- */

/* Rank 0 builds the file in memory (hdf5_image.c) from tables gathered to it and writes it whole
 * through its own descriptor (op2_output: a temporary file beside the target, renamed over it
 * once complete), so HDF5 opens no path and a failed write leaves the target as it was. The other
 * ranks send their rows; after each of rank 0's steps every rank learns its outcome and reports
 * rank 0's reason itself. */
typedef struct sink {
  const char *fn, *file;
  int rank;
  hid_t fid, lcpl;   /* rank 0 only */
  op2_output out;    /* rank 0 only: where the file's bytes go */
  int out_open;      /* rank 0 only */
  char detail[1024]; /* rank 0: why its step failed, reported by every rank */
} sink;

static int sink_fail(const sink *k, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int sink_fail(const sink *k, int code, const char *fmt, ...) {
  char detail[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(detail, sizeof detail, fmt, ap);
  va_end(ap);
  return op2_error(code, "%s: file %s: %s", k->fn, k->file, detail);
}

/* A step every rank took: the worst status, a rank that did not fail told that another did. */
static int sink_agree(const sink *k, int status) {
  int worst = op2_h5_agree(status);
  if (worst != OP2_OK && status == OP2_OK && !op2_h5_out_of_step())
    return sink_fail(k, worst, "failed on another rank (see its message)");
  return worst;
}

/* Rank 0's failure in a step only it takes: recorded, reported by r0_verdict. */
static int r0_fail(sink *k, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int r0_fail(sink *k, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(k->detail, sizeof k->detail, fmt, ap);
  va_end(ap);
  return code;
}

/* The outcome of a step only rank 0 took, on every rank, each reporting rank 0's reason. */
static int r0_verdict(sink *k, int status) {
  int worst = op2_h5_agree(status);
  if (worst == OP2_OK || op2_h5_out_of_step()) return worst;
  if (op2_h5_ranks(NULL) > 1)
    MPI_Bcast(k->detail, (int)sizeof k->detail, MPI_CHAR, 0, op2_h5_comm());
  return sink_fail(k, worst, "%s", k->detail);
}

/* A dataset of [rows] (ndims 1) or [rows, cols], created with any missing parent groups so that
 * names like "group/dat" work as they do in OP2. */
static hid_t create_dataset(const sink *k, const char *name, hid_t ftype, int ndims, hsize_t rows,
                            hsize_t cols) {
  hsize_t dims[2] = {rows, cols};
  hid_t space = H5Screate_simple(ndims, dims, NULL);
  if (space < 0) return -1;
  hid_t dset = H5Dcreate2(k->fid, name, ftype, space, k->lcpl, H5P_DEFAULT, H5P_DEFAULT);
  H5Sclose(space);
  return dset;
}

static int write_set(sink *k, op_set set) {
  if (set->global_size > INT_MAX) /* the same on every rank */
    return sink_fail(k, OP2_ERR_ARG,
                     "set '%s' has %ld elements; OP2's layout keeps a set's size as an int",
                     set->name, set->global_size);
  int status = OP2_OK;
  if (k->rank == 0) {
    hid_t dset = create_dataset(k, set->name, H5T_STD_I32LE, 1, 1, 1);
    int size = (int)set->global_size;
    if (dset < 0 ||
        op2_h5_write_rows(dset, 1, 0, 1, 1, H5T_NATIVE_INT, &size, H5P_DEFAULT) != OP2_OK)
      status = r0_fail(k, OP2_ERR_IO, "cannot write set '%s'", set->name);
    if (dset >= 0) H5Dclose(dset);
  }
  return r0_verdict(k, status);
}

/* A whole [global_rows, dim] table, on rank 0 (its values gathered there). */
static int write_table(sink *k, const char *what, const char *name, op2_type type,
                       const char *type_attr, int dim, long global_rows, int size_attr,
                       const void *values) {
  if (k->rank != 0) return OP2_OK;
  hid_t dset =
      create_dataset(k, name, op2_h5_file_type(type), 2, (hsize_t)global_rows, (hsize_t)dim);
  /* OP2 stores map types in 10-byte strings; dats get their type as declared ("double:soa"
   * too), exactly its length. */
  int ok = dset >= 0 && op2_h5_put_int_attr(dset, "dim", dim) == OP2_OK &&
           op2_h5_put_int_attr(dset, "size", size_attr) == OP2_OK &&
           op2_h5_put_str_attr(dset, "type", type_attr ? type_attr : op2_type_name(type),
                               strcmp(what, "map") == 0 ? 10 : 0) == OP2_OK &&
           op2_h5_write_rows(dset, 2, 0, (hsize_t)global_rows, (hsize_t)dim, op2_h5_mem_type(type),
                             values, H5P_DEFAULT) == OP2_OK;
  if (dset >= 0) H5Dclose(dset);
  return ok ? OP2_OK : r0_fail(k, OP2_ERR_IO, "cannot write %s '%s'", what, name);
}

static int write_map(sink *k, op_map map) {
  long first = 0, count = 0, rows = map->from->global_size;
  int *values = NULL;
  int status = sink_agree(k, op2_h5_map_block(map, &first, &count, &values));
  if (status == OP2_OK)
    status = op2_h5_gather_root(k->fn, map->name, rows, sizeof(int) * (size_t)map->dim, count,
                                (void **)&values);
  /* OP2 puts the row count in a map's `size` attribute. */
  if (status == OP2_OK)
    status = r0_verdict(
        k, write_table(k, "map", map->name, OP2_TYPE_INT, NULL, map->dim, rows, (int)rows, values));
  free(values);
  return status;
}

/* A program may point dat->name at another name (OP2 programs rename a dat before writing it):
 * the dataset takes the name it points to now, which must be one. */
static int named(const char *fn, op_dat dat) {
  if (!dat->name || !dat->name[0])
    return op2_error(OP2_ERR_ARG,
                     "%s: dat '%s' has no name to write it under (the program set dat->name to %s)",
                     fn, dat->decl_name, dat->name ? "\"\"" : "NULL");
  return OP2_OK;
}

static int write_dat(sink *k, op_dat dat) {
  long first = 0, count = 0, rows = dat->set->global_size;
  void *values = NULL;
  int status = named(k->fn, dat);
  if (status == OP2_OK) status = op2_h5_dat_block(dat, &first, &count, &values);
  status = sink_agree(k, status);
  if (status == OP2_OK)
    status = op2_h5_gather_root(k->fn, dat->name, rows, dat->elem_bytes, count, &values);
  /* ...and the bytes of one element in a dat's. */
  if (status == OP2_OK)
    status = r0_verdict(k, write_table(k, "dat", dat->name, dat->type, dat->type_name, dat->dim,
                                       rows, (int)dat->elem_bytes, values));
  free(values);
  return status;
}

static int write_const(sink *k, const op2_const *c) {
  if (k->rank != 0) return OP2_OK;
  hid_t dset = create_dataset(k, c->name, op2_h5_file_type(c->type), 1, (hsize_t)c->dim, 1);
  int ok = dset >= 0 && op2_h5_put_int_attr(dset, "dim", c->dim) == OP2_OK &&
           op2_h5_put_str_attr(dset, "type", op2_type_name(c->type), 0) == OP2_OK &&
           op2_h5_write_rows(dset, 1, 0, (hsize_t)c->dim, 1, op2_h5_mem_type(c->type), c->data,
                             H5P_DEFAULT) == OP2_OK;
  if (dset >= 0) H5Dclose(dset);
  return ok ? OP2_OK : r0_fail(k, OP2_ERR_IO, "cannot write constant '%s'", c->name);
}

/* Why a file cannot be created at path: its directory's problem as the C library tells it, or
 * else what opening it said. */
static const char *create_problem(const char *path, char *buf, size_t len, const char *said) {
  snprintf(buf, len, "%s", path);
  char *slash = strrchr(buf, '/');
  const char *dir = slash ? (slash == buf ? "/" : (*slash = '\0', buf)) : ".";
  struct stat st;
  int err = 0;
  if (stat(dir, &st) != 0)
    err = errno;
  else if (!S_ISDIR(st.st_mode))
    err = ENOTDIR;
  else if (access(dir, W_OK) != 0)
    err = errno;
  if (err)
    snprintf(buf, len, "its directory is unusable: %s", strerror(err));
  else
    snprintf(buf, len, "%s", said);
  return buf;
}

/* Rank 0 opens the target (a regular file or a new name; its temporary file beside it) and
 * the file in memory: a copy of the target's bytes when `keep_old` and it exists, else a new
 * file. */
static int sink_open(sink *k, const char *fn, const char *file, int keep_old) {
  memset(k, 0, sizeof *k);
  k->fn = fn, k->file = file;
  k->fid = k->lcpl = -1;
  op2_h5_ranks(&k->rank);
  /* every rank has entered the call (none failed before it) before rank 0 touches the file */
  int status = sink_agree(k, OP2_OK);
  if (status != OP2_OK) return status;
  if (k->rank == 0) {
    op2_jit_error why;
    char problem[1200];
    char *old = NULL;
    size_t len = 0;
    if (op2_output_open_regular(&k->out, file, &why) != 0) {
      if (errno == EINVAL || errno == EPERM) /* not a regular file; another user's link */
        status = r0_fail(k, OP2_ERR_IO, "%s", why.msg);
      else
        status = r0_fail(k, OP2_ERR_IO, "cannot create %s.tmp* beside it: %s", file,
                         create_problem(file, problem, sizeof problem, why.msg));
    } else if ((k->out_open = 1, keep_old) &&
               op2_output_read_target(&k->out, &old, &len, &why) != 0) {
      status = r0_fail(k, OP2_ERR_IO, "%s", why.msg);
    } else if (old && (k->fid = op2_h5_image_open(old, len, 1)) < 0) {
      status = r0_fail(k, OP2_ERR_IO, "exists but cannot be opened as HDF5 for writing");
    } else if (!old && (k->fid = op2_h5_image_create(H5P_DEFAULT)) < 0) {
      status = r0_fail(k, OP2_ERR_IO, "HDF5 cannot make a file in memory");
    } else if ((k->lcpl = H5Pcreate(H5P_LINK_CREATE)) < 0 ||
               H5Pset_create_intermediate_group(k->lcpl, 1) < 0) {
      status = r0_fail(k, OP2_ERR_MEM, "out of HDF5 property lists");
    }
    free(old);
  }
  return r0_verdict(k, status);
}

/* Rank 0 writes the file's bytes to the target, or after a failure (`status`) leaves the
 * target as it was; every rank gets the outcome of the writing (a failure before it was
 * reported already). */
static int sink_close(sink *k, int status) {
  int wrote = OP2_OK;
  if (k->rank == 0) {
    char *bytes = NULL;
    size_t len = 0;
    if (status == OP2_OK && op2_h5_image_take(k->fid, &bytes, &len) != 0)
      wrote = r0_fail(k, OP2_ERR_IO, "HDF5 cannot finish the file in memory");
    if (k->fid >= 0) H5Fclose(k->fid);
    if (k->lcpl >= 0) H5Pclose(k->lcpl);
    k->fid = k->lcpl = -1;
    if (k->out_open) {
      op2_jit_error why;
      int failed = status != OP2_OK || wrote != OP2_OK || fwrite(bytes, 1, len, k->out.f) != len;
      if (op2_output_close(&k->out, failed, &why) != 0 && status == OP2_OK && wrote == OP2_OK)
        wrote = r0_fail(k, OP2_ERR_IO, "%s", why.msg);
      k->out_open = 0;
    }
    free(bytes);
  }
  if (status != OP2_OK) return status;
  return r0_verdict(k, wrote);
}

/* HDF5 keeps one object per name: two mesh objects with the same name cannot both be dumped. */
int op2_h5_check_names(const char *fn, const char *file) {
  op2_context *ctx = op2_ctx();
  const op2_ptr_list *lists[4] = {&ctx->sets, &ctx->maps, &ctx->dats, &ctx->consts};
  static const char *kinds[4] = {"set", "map", "dat", "constant"};
  for (int a = 0; a < 4; a++)
    for (int i = 0; i < lists[a]->count; i++) {
      const char *na = a == 0   ? ((op_set)lists[a]->items[i])->name
                       : a == 1 ? ((op_map)lists[a]->items[i])->name
                       : a == 2 ? ((op_dat)lists[a]->items[i])->name
                                : ((op2_const *)lists[a]->items[i])->name;
      for (int b = a; b < 4; b++)
        for (int j = b == a ? i + 1 : 0; j < lists[b]->count; j++) {
          const char *nb = b == 0   ? ((op_set)lists[b]->items[j])->name
                           : b == 1 ? ((op_map)lists[b]->items[j])->name
                           : b == 2 ? ((op_dat)lists[b]->items[j])->name
                                    : ((op2_const *)lists[b]->items[j])->name;
          if (strcmp(na, nb) == 0)
            return op2_error(OP2_ERR_ARG,
                             "%s: file %s: %s '%s' and %s '%s' share a name; an HDF5 file holds "
                             "one dataset per name",
                             fn, file, kinds[a], na, kinds[b], nb);
        }
    }
  return OP2_OK;
}

static int dump_contents(sink *k) {
  op2_context *ctx = op2_ctx();
  for (int i = 0; i < ctx->sets.count; i++) OP2_CALL(write_set(k, ctx->sets.items[i]));
  for (int i = 0; i < ctx->maps.count; i++) OP2_CALL(write_map(k, ctx->maps.items[i]));
  for (int i = 0; i < ctx->dats.count; i++) OP2_CALL(write_dat(k, ctx->dats.items[i]));
  /* Not in OP2's dump; written so that op_get_const_hdf5 can restore a run from the file. */
  for (int i = 0; i < ctx->consts.count; i++)
    OP2_CALL(r0_verdict(k, write_const(k, ctx->consts.items[i])));
  return OP2_OK;
}

static void dump(const char *file) {
  const char *fn = "op_dump_to_hdf5";
  if (op2_h5_check_names(fn, file) != OP2_OK || op2_h5_settle_mesh() != OP2_OK) return;
  sink k;
  int status = sink_open(&k, fn, file, 0);
  if (status == OP2_OK) status = dump_contents(&k);
  if (sink_close(&k, status) != OP2_OK || status != OP2_OK) return;

  /* The description only once the data it points at is in place. */
  size_t len = strlen(file) + 8;
  char *xdmf = malloc(len);
  int written = 1;
  if (k.rank == 0) {
    if (!xdmf)
      status = sink_fail(&k, OP2_ERR_MEM, "out of memory");
    else {
      snprintf(xdmf, len, "%s.xdmf", file);
      status = op2_h5_write_xdmf(file, xdmf, &written);
    }
  }
  if (op2_h5_ranks(NULL) > 1) MPI_Bcast(&status, 1, MPI_INT, 0, op2_h5_comm());
  if (status != OP2_OK && k.rank != 0)
    sink_fail(&k, status, "writing its XDMF description failed on rank 0 (see its message)");
  if (status == OP2_OK && !written)
    op2_diag(1,
             "%s: %s written; no XDMF description: no map of arity 3 or 4 leads to a set with "
             "2-D or 3-D double coordinates",
             fn, file);
  free(xdmf);
}

static void dump_to_hdf5(const char *file_name) {
  if (op2_require_init("op_dump_to_hdf5") != OP2_OK) return;
  if (!file_name) {
    op2_error(OP2_ERR_ARG, "op_dump_to_hdf5: file name is NULL");
    return;
  }
  op2_h5_quiet quiet;
  op2_h5_quiet_begin(&quiet);
  dump(file_name);
  op2_h5_quiet_end(&quiet);
}

/* One dataset to put into a file, created or added to: a dat's rows or a constant. */
typedef struct item {
  const char *name; /* its path in the file */
  op_dat dat;       /* a dat's rows (first, count, values) ... */
  long first, count;
  void *values;
  const op2_const *constant; /* ... or a constant */
} item;

static int write_item(sink *k, const item *it, const char *name) {
  if (it->constant) {
    op2_const c = *it->constant;
    c.name = (char *)name;
    return write_const(k, &c);
  }
  return write_table(k, "dat", name, it->dat->type, it->dat->type_name, it->dat->dim,
                     it->dat->set->global_size, (int)it->dat->elem_bytes, it->values);
}

static void put(const char *fn, const char *file, const item *it);

static void fetch(op_dat dat, const char *file, const char *fn, const char *path) {
  sink k = {.fn = fn, .file = file, .fid = -1, .lcpl = -1};
  /* OP2's path form names the dataset itself ("group/p_q"); its groups are created. */
  item it = {.name = path && *path ? path : dat->name, .dat = dat};
  int status = path && *path ? OP2_OK : named(fn, dat);
  /* The values first, all on rank 0: a gather that fails must not have touched the file. */
  if (status == OP2_OK) status = op2_h5_dat_block(dat, &it.first, &it.count, &it.values);
  if (sink_agree(&k, status) == OP2_OK &&
      op2_h5_gather_root(fn, dat->name, dat->set->global_size, dat->elem_bytes, it.count,
                         &it.values) == OP2_OK)
    put(fn, file, &it);
  free(it.values);
}

/* Writes one item into `file` (its values on rank 0): a new file, or a copy of the existing one
 * with the dataset written under a staging name and then moved over the old one; the whole file
 * then replaces the target, so a failed write leaves the earlier file in place. Collective under
 * MPI (rank 0 does the work). */
static void put(const char *fn, const char *file, const item *it) {
  sink k;
  int opened = sink_open(&k, fn, file, 1), status = opened; /* agreed: the same on every rank */
  if (opened == OP2_OK && k.rank == 0) {
    int exists = k.out.replaces;
    size_t len = strlen(it->name) + 16;
    char *staged = malloc(len);
    if (!staged) status = r0_fail(&k, OP2_ERR_MEM, "out of memory");
    if (staged) snprintf(staged, len, "%s%s", it->name, exists ? "~op2new" : "");
    if (staged && exists && op2_h5_path_exists(k.fid, staged) > 0)
      H5Ldelete(k.fid, staged, H5P_DEFAULT);
    if (status == OP2_OK) status = write_item(&k, it, staged);
    if (exists && status == OP2_OK) {
      int there = op2_h5_path_exists(k.fid, it->name);
      if (there < 0 || (there > 0 && H5Ldelete(k.fid, it->name, H5P_DEFAULT) < 0) ||
          H5Lmove(k.fid, staged, k.fid, it->name, k.lcpl, H5P_DEFAULT) < 0)
        status = r0_fail(&k, OP2_ERR_IO, "cannot replace its dataset '%s'", it->name);
    }
    free(staged);
  }
  if (opened == OP2_OK) status = r0_verdict(&k, status);
  sink_close(&k, status);
}

static void fetch_data_hdf5_file(op_dat dat, const char *file_name) {
  if (op2_require_init("op_fetch_data_hdf5_file") != OP2_OK) return;
  if (!dat || !file_name) {
    op2_error(OP2_ERR_ARG, "op_fetch_data_hdf5_file: %s is NULL", dat ? "file name" : "dat");
    return;
  }
  op2_h5_quiet quiet;
  op2_h5_quiet_begin(&quiet);
  fetch(dat, file_name, "op_fetch_data_hdf5_file", NULL);
  op2_h5_quiet_end(&quiet);
}

static void fetch_data_hdf5_file_path(op_dat dat, const char *file_name, const char *path_name) {
  if (op2_require_init("op_fetch_data_hdf5_file_path") != OP2_OK) return;
  if (!dat || !file_name) {
    op2_error(OP2_ERR_ARG, "op_fetch_data_hdf5_file_path: %s is NULL", dat ? "file name" : "dat");
    return;
  }
  op2_h5_quiet quiet;
  op2_h5_quiet_begin(&quiet);
  fetch(dat, file_name, "op_fetch_data_hdf5_file_path", path_name);
  op2_h5_quiet_end(&quiet);
}

static void write_const_hdf5(const char *name, int dim, const char *type, char *const_data,
                             const char *file_name) {
  const char *fn = "op_write_const_hdf5";
  if (op2_require_init(fn) != OP2_OK) return;
  op2_const c = {.name = (char *)name, .dim = dim, .data = const_data};
  if (!name || !file_name || !const_data) {
    op2_error(OP2_ERR_ARG, "%s: %s is NULL", fn,
              !name        ? "the name"
              : !file_name ? "the file name"
                           : "const_data");
    return;
  }
  if (dim < 1) {
    op2_error(OP2_ERR_ARG, "%s '%s': dim %d must be at least 1", fn, name, dim);
    return;
  }
  if (op2_type_parse(type, &c.type) != OP2_OK) {
    op2_error(OP2_ERR_ARG, "%s '%s': unknown type '%s' (use double, float, int or long long)", fn,
              name, type ? type : "(null)");
    return;
  }
  item it = {.name = name, .constant = &c};
  op2_h5_quiet quiet;
  op2_h5_quiet_begin(&quiet);
  put(fn, file_name, &it);
  op2_h5_quiet_end(&quiet);
}

/* Under MPI each call is one collective step (runtime/mpi/agree.c): a failure on one rank,
 * found before or during the file work, is an error on every rank, and a rank in another call
 * is told so instead of pairing its collectives with these. */
static void step_begin(op2_context *ctx, const char *what, unsigned long *errors) {
  op2_chain_flush(ctx, what); /* lazy execution: queued loops first */
  op2_mpi_step(ctx, what);
  *errors = ctx->errors_reported;
}

static void step_end(op2_context *ctx, unsigned long errors) {
  op2_mpi_step_end(ctx, ctx->errors_reported == errors ? OP2_OK : OP2_ERR_IO);
}

void op_dump_to_hdf5(const char *file_name) {
  op2_context *ctx = op2_ctx();
  unsigned long errors;
  step_begin(ctx, "op_dump_to_hdf5", &errors);
  dump_to_hdf5(file_name);
  step_end(ctx, errors);
}

void op_fetch_data_hdf5_file(op_dat dat, const char *file_name) {
  op2_context *ctx = op2_ctx();
  unsigned long errors;
  step_begin(ctx, "op_fetch_data_hdf5_file", &errors);
  fetch_data_hdf5_file(dat, file_name);
  step_end(ctx, errors);
}

void op_fetch_data_hdf5_file_path(op_dat dat, const char *file_name, const char *path_name) {
  op2_context *ctx = op2_ctx();
  unsigned long errors;
  step_begin(ctx, "op_fetch_data_hdf5_file_path", &errors);
  fetch_data_hdf5_file_path(dat, file_name, path_name);
  step_end(ctx, errors);
}

void op_write_const_hdf5(const char *name, int dim, const char *type, char *const_data,
                         const char *file_name) {
  op2_context *ctx = op2_ctx();
  unsigned long errors;
  step_begin(ctx, "op_write_const_hdf5", &errors);
  write_const_hdf5(name, dim, type, const_data, file_name);
  step_end(ctx, errors);
}
