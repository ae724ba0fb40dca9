/* SPDX-License-Identifier: BSD-3-Clause */
/* Reading and creating files safely, for every layer (base/, jit/, runtime/, tools/).
 *
 * Reading: a file the library reads (a kernel header, a tuning record, a manifest, a checkpoint)
 * may be anything a user or another user put at its path: a FIFO must not block the read, and a
 * device (/dev/zero, /dev/urandom) must not be read until memory runs out. op2_read_regular_at
 * opens without blocking, accepts only a regular file, and caps what it reads.
 *
 * Creating: a temporary file next to a target gets an unpredictable name and is created with
 * O_EXCL|O_NOFOLLOW, so a symbolic link or file planted at a name another user can guess (in a
 * sticky directory such as /tmp) is never followed or written into. */
#ifndef OP2_FILE_IO_H
#define OP2_FILE_IO_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "base/base.h"

/* Caps of what the library reads: kernel headers (a long comment can be large) and the small
 * records (manifests, tuning records, templates). */
#define OP2_KERNEL_FILE_CAP ((size_t)64 << 20)
#define OP2_RECORD_FILE_CAP ((size_t)16 << 20)

/* Reads all of `path` (relative to dirfd; AT_FDCWD for a plain path) into *data (malloc'ed,
 * NUL-terminated, its length in *len). The file must be a regular file of at most `cap` bytes;
 * `nofollow` refuses a symbolic link as the last component. 0, else -1 with errno set and *why
 * (OP2_ERR_IO; NULL: not wanted) naming the file and the problem (ENOENT: "no such file"; EINVAL:
 * not a regular file; EFBIG: over the cap). */
int op2_read_regular_at(int dirfd, const char *path, int nofollow, size_t cap, char **data,
                        size_t *len, op2_jit_error *why);
int op2_read_regular_file(const char *path, size_t cap, char **data, size_t *len,
                          op2_jit_error *why);
/* Opens `path` for reading without blocking on a FIFO and checks that it is a regular file
 * (its status in *st). The descriptor (blocking again), or -1 with errno and *why. */
int op2_open_regular(int dirfd, const char *path, int nofollow, struct stat *st,
                     op2_jit_error *why);

/* Creates a new file `base`.tmpXXXXXXXX (8 random letters and digits) relative to dirfd with
 * O_EXCL|O_NOFOLLOW and `mode` (before the umask); its name goes to `name`. The descriptor
 * (O_WRONLY, close-on-exec), or -1 with errno set. */
int op2_temp_create_at(int dirfd, const char *base, mode_t mode, char *name, size_t namelen);
/* Whether `suffix` is what op2_temp_create_at puts after `base`: ".tmp" and then letters and
 * digits (a process id in older versions). */
int op2_is_temp_suffix(const char *suffix);

/* Writes `file` (relative to dirfd) atomically: FILE.tmpRANDOM (op2_temp_create_at), then rename;
 * no partial file stays on failure. OP2_OK, else OP2_ERR_IO with the reason in *err. */
int op2_write_atomic_at(int dirfd, const char *file, const void *data, size_t len,
                        op2_jit_error *err);
/* Writes a file atomically: temp file in the same directory, then rename. OP2_OK, else
 * OP2_ERR_IO with the reason in *err (NULL: not wanted). */
int op2_write_file_atomic(const char *path, const void *data, size_t len, op2_jit_error *err);

/* The default cache root: $XDG_CACHE_HOME/op2, else $HOME/.cache/op2, else /tmp/op2-cache-UID
 * ($OP2_CACHE_DIR is an option and is read by the caller). -1 when it does not fit. */
int op2_cache_default_root(char *out, size_t len);

/* A program as the compiler tiers find it: a path (with a '/') or a name searched on PATH; its
 * resolved path in `out` (PATH_MAX bytes). 0 when it is an executable regular file, else -1. */
int op2_find_program(const char *name, char *out, size_t len);

#endif /* OP2_FILE_IO_H */
