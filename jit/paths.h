/* SPDX-License-Identifier: BSD-3-Clause */
/* The one size of path buffers, for jit/, runtime/ and tools/ alike (jit/desc.h includes it). */
#ifndef OP2_JIT_PATHS_H
#define OP2_JIT_PATHS_H

#include <limits.h>

/* A path as the user gives it (options, output files, the cache root) or as the system resolves
 * it (realpath): Linux's PATH_MAX, the longest path a system call takes, its NUL included. */
#define OP2_PATH_MAX 4096
#if defined(PATH_MAX) && PATH_MAX > OP2_PATH_MAX
#error "OP2_PATH_MAX is shorter than this system's PATH_MAX"
#endif
/* A path the library composes below one of those (a cache entry below the root, a file in the
 * entry, a record below ROOT/tune/, a template below its directory): room for the names it adds,
 * so that a root of OP2_PATH_MAX - 1 bytes is never cut short here, before the system says it is
 * too long. */
#define OP2_PATH_BUF (OP2_PATH_MAX + 1024)

#endif /* OP2_JIT_PATHS_H */
