/* SPDX-License-Identifier: BSD-3-Clause */
/* The one way the library writes an output file the user named (op_print_dat_to_*, timing files,
 * OP2_PROFILE_JSON, XDMF, and the target of HDF5 dumps and checkpoints).
 *
 * A regular file, or a new path, is replaced atomically: a temporary file with an unpredictable
 * name (created with O_EXCL|O_NOFOLLOW) in the target's directory, flushed to disk and renamed
 * over it, so a failure leaves the previous file whole and a link planted at a guessable name is
 * never followed. Anything else is written through, as the user asked: a device (/dev/null,
 * /dev/stdout) or a FIFO is opened and written, never replaced by a regular file, and a symbolic
 * link is followed to its target (the target replaced if it is a regular file) when it belongs
 * to this user or to root: a link another user owns, planted or swapped in a directory others
 * may write, is refused. Nothing is written by path after the temporary file is created: its
 * descriptor is written and renamed through the directory's descriptor.
 *
 * HDF5 files (dumps, fetches into files, checkpoints) are built in memory (runtime/hdf5/
 * hdf5_image.c) and written here whole: HDF5 never opens a path, so no one can point it
 * elsewhere. */
#ifndef OP2_OUTPUT_FILE_H
#define OP2_OUTPUT_FILE_H

#include <stdio.h>
#include <sys/types.h>

#include "runtime/error.h"

typedef struct op2_output {
  FILE *f;         /* write here */
  int dirfd;       /* the target's directory when replacing, else -1 */
  char base[1024]; /* the target's name in dirfd */
  char tmp[1100];  /* the temporary file's name in dirfd, "" when writing through */
  int replaces;    /* a regular file is at the target: it is replaced */
  dev_t tmp_dev;   /* the temporary file, to know it is still ours at the rename */
  ino_t tmp_ino;
  char path[OP2_PATH_MAX]; /* as the user gave it, for messages */
} op2_output;

/* Opens `path` for writing (see above). 0, or -1 with errno set and *why naming the file and the
 * problem (a directory, a FIFO nobody reads, a directory that cannot be written). */
int op2_output_open(op2_output *o, const char *path, op2_jit_error *why);
/* Finishes the file: a replacement is flushed to disk and renamed over its target; with `failed`
 * (the caller's own failure) or any write, flush or rename failure the temporary file is removed
 * and the target left as it was. 0, or -1 with errno and *why. */
int op2_output_close(op2_output *o, int failed, op2_jit_error *why);

/* The same for a file that must be a regular file (an HDF5 file): a device, FIFO, directory or
 * one of the process's descriptors is refused with *why ("X is a FIFO, not a regular file"). */
int op2_output_open_regular(op2_output *o, const char *path, op2_jit_error *why);
/* The bytes of the regular file being replaced, read through the target's directory without
 * following a link: *bytes (malloc'ed) and *len, or NULL when the target is new. 0 or -1. */
int op2_output_read_target(const op2_output *o, char **bytes, size_t *len, op2_jit_error *why);

#endif /* OP2_OUTPUT_FILE_H */
