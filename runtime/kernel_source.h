/* SPDX-License-Identifier: BSD-3-Clause */
/* A kernel given as a function rather than as text: its source found and read (kernel_extract.c,
 * kernel_search.c). */
#ifndef OP2_RUNTIME_KERNEL_SOURCE_H
#define OP2_RUNTIME_KERNEL_SOURCE_H

#include <stddef.h>

typedef struct op2_context op2_context;

/* The definition of function `name` in source text `text` of file `caller_file` (at file scope),
 * under a #line naming the file; malloc'ed, or NULL when there is none (kernel_extract.c). */
char *op2_kernel_from_caller(const char *text, const char *caller_file, const char *name);
/* The definition of function `name` at file scope of `text` (kernel_extract.c): 1 and its
 * [*begin, *end) when found. */
int op2_kernel_definition(const char *text, const char *name, const char **begin, const char **end);
/* The source of kernel function `name` called from `caller_file` (kernel_search.c): the app's
 * user_types.h, then NAME.h, or its definition in the calling file or a header it includes, with
 * quoted includes replaced by their text. malloc'ed; NULL after op2_error. */
char *op2_kernel_function_source(const op2_context *ctx, const char *caller_file, const char *name);
/* The text of a kernel file (a header, user_types.h, the calling file), read as every kernel
 * file is (kernel_search.c): without blocking, a regular file only, at most OP2_KERNEL_FILE_CAP
 * bytes, a UTF-8 byte-order mark dropped (editors on some systems write one); malloc'ed, its
 * length in *len when len is not NULL. NULL with errno: ENODEV not a regular file (a FIFO,
 * device or directory), EFBIG over the cap, EINVAL a NUL byte inside, else the system's. */
char *op2_kernel_file_read(const char *path, size_t *len);
/* Why op2_kernel_file_read failed, in words, for errno `err`. */
const char *op2_kernel_file_failure(int err);
/* `text` of the kernel file at `path` (#line names it `shown`) with its quoted includes replaced
 * by their text, found beside the file that includes them, then in the directories of
 * `kernel_path` (OP2_KERNEL_PATH: ':'-separated) (kernel_search.c); NULL when out of memory or
 * `path` is gone. */
char *op2_kernel_expand_includes(const char *text, const char *path, const char *shown,
                                 const char *kernel_path);

#endif /* OP2_RUNTIME_KERNEL_SOURCE_H */
