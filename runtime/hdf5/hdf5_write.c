/* SPDX-License-Identifier: BSD-3-Clause */
/* Writing the mesh in OP2's HDF5 layout (see hdf5_impl.h), in the user's original global order
 * whatever renumbering or partitioning happened since. A dump goes to a temporary file next to
 * the target that is renamed over it only once complete, so a failed dump leaves the target as
 * it was (absent or the previous version). */
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

/* ---- one open output file ---- */

typedef struct sink {
  const char *fn, *file;
  int parallel, rank;
  hid_t fid, dxpl, lcpl;
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

static int sink_agree(const sink *k, int status) {
  int worst = op2_h5_agree(status);
  if (worst != OP2_OK && status == OP2_OK && !op2_h5_out_of_step())
    return sink_fail(k, worst, "failed on another rank (see its message)");
  return worst;
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

static int write_set(const sink *k, op_set set) {
  if (set->global_size > INT_MAX) /* the same on every rank: none creates the dataset */
    return sink_fail(k, OP2_ERR_ARG,
                     "set '%s' has %ld elements; OP2's layout keeps a set's size as an int",
                     set->name, set->global_size);
  hid_t dset = create_dataset(k, set->name, H5T_STD_I32LE, 1, 1, 1);
  int size = (int)set->global_size;
  int ok = dset >= 0 &&
           op2_h5_write_rows(dset, 1, 0, k->rank == 0, 1, H5T_NATIVE_INT, &size, k->dxpl) == OP2_OK;
  if (dset >= 0) H5Dclose(dset);
  return ok ? OP2_OK : sink_fail(k, OP2_ERR_IO, "cannot write set '%s'", set->name);
}

/* The rows were gathered before the collective create, so that a gather failure cannot leave
 * other ranks waiting in HDF5. */
static int write_table(const sink *k, const char *what, const char *name, op2_type type,
                       const char *type_attr, int dim, long global_rows, int size_attr, long first,
                       long count, const void *values) {
  hid_t dset =
      create_dataset(k, name, op2_h5_file_type(type), 2, (hsize_t)global_rows, (hsize_t)dim);
  /* OP2 stores map types in 10-byte strings; dats get their type as declared ("double:soa"
   * too), exactly its length. */
  int ok = dset >= 0 && op2_h5_put_int_attr(dset, "dim", dim) == OP2_OK &&
           op2_h5_put_int_attr(dset, "size", size_attr) == OP2_OK &&
           op2_h5_put_str_attr(dset, "type", type_attr ? type_attr : op2_type_name(type),
                               strcmp(what, "map") == 0 ? 10 : 0) == OP2_OK &&
           op2_h5_write_rows(dset, 2, (hsize_t)first, (hsize_t)count, (hsize_t)dim,
                             op2_h5_mem_type(type), values, k->dxpl) == OP2_OK;
  if (dset >= 0) H5Dclose(dset);
  return ok ? OP2_OK : sink_fail(k, OP2_ERR_IO, "cannot write %s '%s'", what, name);
}

static int write_map(const sink *k, op_map map) {
  long first = 0, count = 0;
  int *values = NULL;
  int status = sink_agree(k, op2_h5_map_block(map, &first, &count, &values));
  long rows = map->from->global_size;
  /* OP2 puts the row count in a map's `size` attribute. */
  if (status == OP2_OK)
    status = write_table(k, "map", map->name, OP2_TYPE_INT, NULL, map->dim, rows, (int)rows, first,
                         count, values);
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

static int write_dat(const sink *k, op_dat dat) {
  long first = 0, count = 0;
  void *values = NULL;
  int status = named(k->fn, dat);
  if (status == OP2_OK) status = op2_h5_dat_block(dat, &first, &count, &values);
  status = sink_agree(k, status);
  /* ...and the bytes of one element in a dat's. */
  if (status == OP2_OK)
    status = write_table(k, "dat", dat->name, dat->type, dat->type_name, dat->dim,
                         dat->set->global_size, (int)dat->elem_bytes, first, count, values);
  free(values);
  return status;
}

static int write_const(const sink *k, const op2_const *c) {
  hid_t dset = create_dataset(k, c->name, op2_h5_file_type(c->type), 1, (hsize_t)c->dim, 1);
  int ok = dset >= 0 && op2_h5_put_int_attr(dset, "dim", c->dim) == OP2_OK &&
           op2_h5_put_str_attr(dset, "type", op2_type_name(c->type), 0) == OP2_OK &&
           op2_h5_write_rows(dset, 1, 0, k->rank == 0 ? (hsize_t)c->dim : 0, 1,
                             op2_h5_mem_type(c->type), c->data, k->dxpl) == OP2_OK;
  if (dset >= 0) H5Dclose(dset);
  return ok ? OP2_OK : sink_fail(k, OP2_ERR_IO, "cannot write constant '%s'", c->name);
}

static int sink_open(sink *k, const char *fn, const char *file, const char *path, int create) {
  int nranks = op2_h5_ranks(&k->rank);
  k->fn = fn;
  k->file = file;
  k->parallel = nranks > 1;
  k->fid = -1;
  k->dxpl = op2_h5_dxpl(k->parallel);
  k->lcpl = H5Pcreate(H5P_LINK_CREATE);
  if (k->lcpl >= 0) H5Pset_create_intermediate_group(k->lcpl, 1);
  hid_t fapl = op2_h5_fapl(k->parallel);
  if (fapl >= 0 && k->dxpl >= 0 && k->lcpl >= 0)
    k->fid = create ? H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl)
                    : H5Fopen(path, H5F_ACC_RDWR, fapl);
  op2_h5_plist_close(fapl);
  return k->fid >= 0 ? OP2_OK : OP2_ERR_IO;
}

/* Closing is collective under MPI and flushes: only a closed file is complete. */
static int sink_close(sink *k) {
  int ok = k->fid < 0 || H5Fclose(k->fid) >= 0;
  op2_h5_plist_close(k->dxpl);
  if (k->lcpl >= 0) H5Pclose(k->lcpl);
  k->fid = k->dxpl = k->lcpl = -1;
  return ok ? OP2_OK : OP2_ERR_IO;
}

/* Why a file cannot be created at path, as well as the C library can tell. */
static const char *create_problem(const char *path, char *buf, size_t len) {
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
    snprintf(buf, len, "HDF5 could not create it");
  return buf;
}

/* Where `file` is written, decided by rank 0 and the same on every rank: the file its links lead
 * to (an existing device or FIFO is refused: HDF5 writes only regular files), whether that
 * exists, and when it does not (or `replace`) a new temporary file beside it with an unpredictable
 * name (op2_output_temp: created with O_EXCL|O_NOFOLLOW, so nothing planted at a guessable name is
 * written through). OP2_OK, or an error reported by rank 0 and agreed by every rank. */
typedef struct target_plan {
  int code, exists;
  char target[OP2_PATH_MAX], tmp[OP2_PATH_MAX];
  char message[2048]; /* rank 0's reason, reported by every rank */
} target_plan;

static int plan_target(const char *fn, const char *file, int replace, target_plan *t) {
  memset(t, 0, sizeof *t);
  int rank = 0, nranks = op2_h5_ranks(&rank);
  if (rank == 0) {
    op2_jit_error why;
    int err = 0;
    if (op2_output_target(file, t->target, sizeof t->target, &why) != 0) {
      err = errno;
      t->target[0] = '\0';
      if (err == EINVAL) /* an existing file that is not regular */
        snprintf(t->message, sizeof t->message, "%s: file %s: %s", fn, file, why.msg);
    } else if ((!(t->exists = access(t->target, F_OK) == 0) || replace) &&
               op2_output_temp(t->target, t->tmp, sizeof t->tmp) != 0) {
      err = errno;
    }
    if (err && !t->message[0]) { /* the directory is missing, not one, or not writable */
      const char *near = t->target[0] ? t->target : file;
      snprintf(t->message, sizeof t->message, "%s: file %s: cannot create %s.tmp* beside it: %s",
               fn, file, near, create_problem(near, why.msg, sizeof why.msg));
    }
    if (err) t->code = OP2_ERR_IO;
  }
  if (nranks > 1) MPI_Bcast(t, (int)sizeof *t, MPI_BYTE, 0, op2_h5_comm());
  if (t->code != OP2_OK) op2_error(t->code, "%s", t->message);
  return t->code;
}

/* Rank 0 renames (or removes, on failure) once every rank has closed the file; the result is
 * everyone's. */
static int finish_temporary(const sink *k, const char *tmp, const char *target, int status) {
  if (k->parallel) MPI_Barrier(op2_h5_comm());
  int result = status;
  if (k->rank == 0) {
    if (status == OP2_OK && rename(tmp, target) != 0) {
      int err = errno;
      result = sink_fail(k, OP2_ERR_IO, "cannot rename %s to it: %s", tmp, strerror(err));
    }
    if (result != OP2_OK) unlink(tmp);
  }
  if (k->parallel) {
    int code = k->rank == 0 ? result : OP2_OK;
    MPI_Bcast(&code, 1, MPI_INT, 0, op2_h5_comm());
    if (code != OP2_OK && k->rank != 0 && status == OP2_OK)
      result = sink_fail(k, code, "failed on rank 0 (see its message)");
  }
  return result;
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

static int dump_contents(const sink *k) {
  op2_context *ctx = op2_ctx();
  for (int i = 0; i < ctx->sets.count; i++)
    OP2_CALL(sink_agree(k, write_set(k, ctx->sets.items[i])));
  for (int i = 0; i < ctx->maps.count; i++) OP2_CALL(write_map(k, ctx->maps.items[i]));
  for (int i = 0; i < ctx->dats.count; i++) OP2_CALL(write_dat(k, ctx->dats.items[i]));
  /* Not in OP2's dump; written so that op_get_const_hdf5 can restore a run from the file. */
  for (int i = 0; i < ctx->consts.count; i++)
    OP2_CALL(sink_agree(k, write_const(k, ctx->consts.items[i])));
  return OP2_OK;
}

static void dump(const char *file) {
  const char *fn = "op_dump_to_hdf5";
  if (op2_h5_check_names(fn, file) != OP2_OK || op2_h5_settle_mesh() != OP2_OK) return;
  target_plan *plan = malloc(sizeof *plan);
  if (op2_h5_agree_alloc(plan != NULL, fn, file) != OP2_OK) {
    free(plan);
    return;
  }
  if (plan_target(fn, file, 1, plan) != OP2_OK) {
    free(plan);
    return;
  }
  char *tmp = plan->tmp;
  sink k;
  int status = sink_open(&k, fn, file, tmp, 1);
  if (op2_h5_agree(status) != OP2_OK) {
    char why[4096];
    sink_close(&k);
    unlink(tmp);
    sink_fail(&k, OP2_ERR_IO, "cannot create %s: %s", tmp, create_problem(tmp, why, sizeof why));
    free(plan);
    return;
  }
  status = dump_contents(&k);
  int closed = sink_close(&k);
  if (status == OP2_OK)
    status =
        sink_agree(&k, closed == OP2_OK ? OP2_OK : sink_fail(&k, OP2_ERR_IO, "closing failed"));
  status = finish_temporary(&k, tmp, plan->target, status);
  free(plan);
  if (status != OP2_OK) return;

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
  if (k.parallel) MPI_Bcast(&status, 1, MPI_INT, 0, op2_h5_comm());
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

static int write_item(const sink *k, const item *it, const char *name) {
  if (it->constant) {
    op2_const c = *it->constant;
    c.name = (char *)name;
    return write_const(k, &c);
  }
  return write_table(k, "dat", name, it->dat->type, it->dat->type_name, it->dat->dim,
                     it->dat->set->global_size, (int)it->dat->elem_bytes, it->first, it->count,
                     it->values);
}

static void put(const char *fn, const char *file, const item *it);

static void fetch(op_dat dat, const char *file, const char *fn, const char *path) {
  sink k = {.fn = fn, .file = file, .fid = -1, .dxpl = -1, .lcpl = -1};
  /* OP2's path form names the dataset itself ("group/p_q"); its groups are created. */
  item it = {.name = path && *path ? path : dat->name, .dat = dat};
  int status = path && *path ? OP2_OK : named(fn, dat);
  /* The values first: a gather that fails must not have touched the file. */
  if (status == OP2_OK) status = op2_h5_dat_block(dat, &it.first, &it.count, &it.values);
  if (sink_agree(&k, status) == OP2_OK) put(fn, file, &it);
  free(it.values);
}

/* Writes one item into `file`: a new file is written under a temporary name and renamed; into an
 * existing one the dataset is written under a staging name and then moved over the old one, so
 * a failed write leaves the earlier values in place. Collective under MPI. */
static void put(const char *fn, const char *file, const item *it) {
  sink k = {.fn = fn, .file = file, .fid = -1, .dxpl = -1, .lcpl = -1};
  /* Rank 0 decides, so that every rank takes the same (collective) path. */
  target_plan *plan = malloc(sizeof *plan);
  size_t len = strlen(it->name) + 16;
  char *staged = malloc(len);
  if (op2_h5_agree_alloc(plan && staged, fn, file) != OP2_OK) {
    free(plan), free(staged);
    return;
  }
  if (plan_target(fn, file, 0, plan) != OP2_OK) {
    free(plan), free(staged);
    return;
  }
  int exists = plan->exists;
  char *tmp = exists ? NULL : plan->tmp;
  int status = sink_open(&k, fn, file, exists ? plan->target : tmp, !exists);
  if (op2_h5_agree(status) != OP2_OK) {
    char why[4096];
    sink_close(&k);
    if (exists) {
      sink_fail(&k, OP2_ERR_IO, "exists but cannot be opened as HDF5 for writing");
    } else {
      unlink(tmp);
      sink_fail(&k, OP2_ERR_IO, "cannot create %s: %s", tmp, create_problem(tmp, why, sizeof why));
    }
    free(plan), free(staged);
    return;
  }
  snprintf(staged, len, "%s%s", it->name, exists ? "~op2new" : "");
  if (exists && op2_h5_path_exists(k.fid, staged) > 0) H5Ldelete(k.fid, staged, H5P_DEFAULT);
  status = sink_agree(&k, write_item(&k, it, staged));
  if (exists && status == OP2_OK) {
    int there = op2_h5_path_exists(k.fid, it->name);
    if (there < 0 || (there > 0 && H5Ldelete(k.fid, it->name, H5P_DEFAULT) < 0) ||
        H5Lmove(k.fid, staged, k.fid, it->name, k.lcpl, H5P_DEFAULT) < 0)
      status = sink_fail(&k, OP2_ERR_IO, "cannot replace its dataset '%s'", it->name);
    status = sink_agree(&k, status);
  } else if (exists) {
    H5Ldelete(k.fid, staged, H5P_DEFAULT);
  }
  int closed = sink_close(&k);
  if (status == OP2_OK)
    status =
        sink_agree(&k, closed == OP2_OK ? OP2_OK : sink_fail(&k, OP2_ERR_IO, "closing failed"));
  if (!exists) finish_temporary(&k, tmp, plan->target, status);
  free(plan);
  free(staged);
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
