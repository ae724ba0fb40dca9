/* SPDX-License-Identifier: BSD-3-Clause */
/* HDF5 mesh I/O in OP2-Common's file layout, shared by the reader, the writer and the XDMF
 * description. The layout (what OP2's own converter writes):
 *   set:      1-element int32 dataset holding the set's global size, no attributes
 *   map/dat:  2-D dataset [set size, dim]; attributes dim (int32[1]), size (int32[1]) and type
 *             (fixed-length ASCII string, NUL-terminated padding, scalar dataspace). For a dat,
 *             `size` is the bytes of one element (dim * sizeof type); for a map it is the number
 *             of rows. OP2 writes map types with a 10-byte string whose bytes after the first NUL
 *             are garbage, so readers stop at the first NUL.
 *   constant: 1-D dataset [dim] with attributes dim and type. */
#ifndef OP2_HDF5_IMPL_H
#define OP2_HDF5_IMPL_H

#include <hdf5.h>

#include "runtime/mpi/op2_mpi.h"
#include "runtime/mesh.h"

#ifndef H5_HAVE_PARALLEL
#error "op2jit's HDF5 I/O needs a parallel HDF5 build (hdf5-openmpi)"
#endif

/* Ranks taking part in I/O: 1 (rank 0) without MPI or before op2_mpi_init has run. */
int op2_h5_ranks(int *rank);
MPI_Comm op2_h5_comm(void);
/* Every rank passes its status and gets the worst one, so that all ranks leave a collective
 * sequence together instead of some waiting forever in the next collective call. */
int op2_h5_agree(int status);
/* An agreement on buffers a call allocated (`allocated` false: out of memory here). A rank that
 * failed reports it naming `fn` and `file`; a rank that did not is told that another rank failed,
 * unless the agreement found the ranks in different calls (it said so itself, naming them). */
int op2_h5_agree_alloc(int allocated, const char *fn, const char *file);
/* Whether the ranks were found in different calls (every later collective call fails at once,
 * and the agreement that found it has reported it). */
int op2_h5_out_of_step(void);

/* HDF5 prints its error stack on every failure; the library reports its own messages instead,
 * so each public call silences it for its duration and then restores the user's setting. */
typedef struct op2_h5_quiet {
  H5E_auto2_t func;
  void *data;
} op2_h5_quiet;
void op2_h5_quiet_begin(op2_h5_quiet *q);
void op2_h5_quiet_end(const op2_h5_quiet *q);

/* Rank 0 receives every rank's block of a [rows, row_bytes] table in the user's order (the
 * blocks of op2_h5_dat_block): *values becomes the whole table there, so that rank 0 alone
 * writes the file (one gather per table instead of parallel HDF5's many collective calls).
 * Collective; an error names `what` and `name`. */
int op2_h5_gather_root(const char *what, const char *name, long rows, size_t row_bytes, long count,
                       void **values);

/* Files in memory (hdf5_image.c): every file the library writes is built with these and written
 * whole through output_file.h, so HDF5 opens no path. A new file (fcpl: H5P_DEFAULT or a user
 * block), a copy of an existing file's bytes (writable or not), and a file's bytes (flushed,
 * malloc'ed; 0 or -1). */
hid_t op2_h5_image_create(hid_t fcpl);
hid_t op2_h5_image_open(const void *image, size_t len, int writable);
int op2_h5_image_take(hid_t fid, char **bytes, size_t *len);

/* File access for reading: MPI-IO when `parallel`, else sec2; never file locks. Transfers:
 * collective when `parallel`, else H5P_DEFAULT. Close with op2_h5_plist_close. */
hid_t op2_h5_fapl(int parallel);
hid_t op2_h5_dxpl(int parallel);
void op2_h5_plist_close(hid_t plist);

hid_t op2_h5_mem_type(op2_type t);
hid_t op2_h5_file_type(op2_type t);
/* The library type a dataset's element datatype stores; OP2_ERR_ARG when it is none of them. */
int op2_h5_type_of_dtype(hid_t dtype, op2_type *out);
/* "64-bit float", "32-bit integer", ... for messages. */
const char *op2_h5_describe_dtype(hid_t dtype, char *buf, size_t len);
/* A type name as OP2 files spell it: the library's names, OP2's ":soa" suffix, Fortran's. */
int op2_h5_parse_type(const char *name, op2_type *out);

/* Attributes. Readers return 1 when read, 0 when absent, -1 when present but unreadable. */
int op2_h5_get_int_attr(hid_t obj, const char *name, long long *out);
int op2_h5_get_str_attr(hid_t obj, const char *name, char *out, size_t len);
int op2_h5_put_int_attr(hid_t obj, const char *name, int value);
/* A fixed-length string of `width` bytes (strlen(value) when 0), NUL-padded like OP2's. */
int op2_h5_put_str_attr(hid_t obj, const char *name, const char *value, size_t width);

/* 1 when every component of a '/'-separated path names an existing link, 0 when not, -1 on error
 * (H5Lexists fails instead of answering for a path whose parent is missing). */
int op2_h5_path_exists(hid_t loc, const char *path);

/* Writes rows [first, first + count) of a [global_rows, cols] dataset (1-D when ndims is 1) from
 * buf. Collective when `parallel`; ranks without rows pass count 0. */
int op2_h5_write_rows(hid_t dset, int ndims, hsize_t first, hsize_t count, hsize_t cols,
                      hid_t mem_type, const void *buf, hid_t dxpl);

/* Before a whole mesh is written under MPI: how the program declared it is settled
 * (op2_mpi_prepare: each rank its block, or the whole mesh on every rank, then cut to blocks),
 * so that set sizes are the global ones before any is written. Until then a mesh declared whole
 * on every rank has the sum of the ranks' sizes as its global size (a program may dump before
 * any loop, as OP2-Common's aero write_hdf5 does). Collective; OP2_OK on one process. */
int op2_h5_settle_mesh(void);

/* This rank's contiguous block of the user's original global order of a dat or map. Uses the
 * distributed gather (op2_dat_gather_block) under MPI when the runtime provides it. */
int op2_h5_dat_block(op_dat dat, long *first, long *count, void **values);
int op2_h5_map_block(op_map map, long *first, long *count, int **values);

/* Every set, map, dat and constant name is distinct (a file holds one dataset per name); the
 * error names `fn` and `file`. */
int op2_h5_check_names(const char *fn, const char *file);

/* The XDMF 3 description of a file op_dump_to_hdf5 has just written (rank 0 only). h5_path is
 * the HDF5 file as the user named it; xdmf_path where the description goes. Returns OP2_OK, or an
 * error code after reporting; sets *written to 0 when the mesh has no cell topology to describe. */
int op2_h5_write_xdmf(const char *h5_path, const char *xdmf_path, int *written);

#endif
