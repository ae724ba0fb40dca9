/* SPDX-License-Identifier: BSD-3-Clause */
/* The one way the library writes an output file the user named (op_print_dat_to_*, timing files,
 * OP2_PROFILE_JSON, XDMF, and the target of HDF5 dumps and checkpoints).
 *
 * A regular file, or a new path, is replaced atomically: a temporary file with an unpredictable
 * name (created with O_EXCL|O_NOFOLLOW) in the target's directory, flushed to disk and renamed
 * over it, so a failure leaves the previous file whole and a link planted at a guessable name is
 * never followed. Anything else is written through, as the user asked: a device (/dev/null,
 * /dev/stdout) or a FIFO is opened and written, never replaced by a regular file, and a symbolic
 * link is followed to its target (the target replaced if it is a regular file). */
#ifndef OP2_OUTPUT_FILE_H
#define OP2_OUTPUT_FILE_H

#include <stdio.h>

#include "runtime/error.h"

typedef struct op2_output {
  FILE *f;                 /* write here */
  int dirfd;               /* the target's directory when replacing, else -1 */
  char base[1024];         /* the target's name in dirfd */
  char tmp[1100];          /* the temporary file's name in dirfd, "" when writing through */
  char path[OP2_PATH_MAX]; /* as the user gave it, for messages */
} op2_output;

/* Opens `path` for writing (see above). 0, or -1 with errno set and *why naming the file and the
 * problem (a directory, a FIFO nobody reads, a directory that cannot be written). */
int op2_output_open(op2_output *o, const char *path, op2_jit_error *why);
/* Finishes the file: a replacement is flushed to disk and renamed over its target; with `failed`
 * (the caller's own failure) or any write, flush or rename failure the temporary file is removed
 * and the target left as it was. 0, or -1 with errno and *why. */
int op2_output_close(op2_output *o, int failed, op2_jit_error *why);

/* For files a library writes by name (HDF5): the path to create or replace, with symbolic links
 * followed, into `target`. An existing file that is not regular (a device, a FIFO, a directory)
 * is refused with *why: such a file cannot hold an HDF5 file. 0 or -1. */
int op2_output_target(const char *path, char *target, size_t len, op2_jit_error *why);
/* Creates an empty file with an unpredictable name beside `target` (O_EXCL|O_NOFOLLOW, mode 0666
 * less the umask) for a library to overwrite by name; its path into `tmp`. 0 or -1 with errno. */
int op2_output_temp(const char *target, char *tmp, size_t len);

#endif /* OP2_OUTPUT_FILE_H */
