/* SPDX-License-Identifier: BSD-3-Clause */
/* The on-disk kernel cache as a whole: keys, the root, where it and temporary files live. One
 * entry, ROOT/NAME-HASH16/{NAME.c, NAME.so, manifest.json}, is checked and stored by
 * cache_entry.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#define XXH_STATIC_LINKING_ONLY /* for the streaming state on the stack */
#include <xxhash.h>

#include "jit_internal.h"

void op2_cache_key_make(const char *source, size_t len, const char *compiler, const char *flags,
                        op2_cache_key *key) {
  XXH3_state_t st;
  XXH3_128bits_reset(&st);
  XXH3_128bits_update(&st, source, len);
  XXH3_128bits_update(&st, "", 1);
  XXH3_128bits_update(&st, compiler, strlen(compiler) + 1);
  XXH3_128bits_update(&st, flags, strlen(flags) + 1);
  XXH128_hash_t h = XXH3_128bits_digest(&st);
  key->hi = h.high64;
  key->lo = h.low64;
  snprintf(key->hex, sizeof key->hex, "%016llx%016llx", (unsigned long long)h.high64,
           (unsigned long long)h.low64);
}

static int mkdir_parents(char *path) {
  for (char *p = path + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    int rc = mkdir(path, 0755);
    *p = '/';
    if (rc != 0 && errno != EEXIST) return -1;
  }
  return 0;
}

/* Whether others may create names in `path`'s directory (a world-writable /tmp, sticky or not;
 * one of another user): then a symbolic link at `path` may have been planted. */
static int parent_open_to_others(const char *path) {
  char dir[OP2_PATH_MAX];
  snprintf(dir, sizeof dir, "%s", path);
  size_t n = strlen(dir);
  while (n > 1 && dir[n - 1] == '/') dir[--n] = '\0';
  char *slash = strrchr(dir, '/');
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else if (slash == dir)
    dir[1] = '\0';
  else
    *slash = '\0';
  struct stat st;
  if (stat(dir, &st) != 0) return 0;
  return (st.st_mode & (S_IWGRP | S_IWOTH)) || (st.st_uid != geteuid() && st.st_uid != 0);
}

int op2_cache_root_usable(const char *root, int create, op2_jit_error *why) {
  struct stat st;
  /* A symbolic link is followed where only we (or root) could have made it (a ~/.cache linked
   * to scratch space), never in a directory others write: another user's link at
   * /tmp/op2-cache-UID would make us build into, and load from, wherever it points. */
  if (lstat(root, &st) == 0 && S_ISLNK(st.st_mode) && parent_open_to_others(root))
    return op2_jit_error_set(why, OP2_ERR_IO,
                             "%s is a symbolic link in a directory other users can write (it may "
                             "have been planted): refused",
                             root);
  if (stat(root, &st) != 0) {
    if (!create) return op2_jit_error_set(why, OP2_ERR_IO, "%s does not exist", root);
    char tmp[OP2_PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", root);
    if (mkdir_parents(tmp) != 0 || (mkdir(root, 0700) != 0 && errno != EEXIST) ||
        stat(root, &st) != 0)
      return op2_jit_error_set(why, OP2_ERR_IO, "cannot create %s: %s", root, strerror(errno));
  }
  if (!S_ISDIR(st.st_mode))
    return op2_jit_error_set(why, OP2_ERR_IO, "%s is not a directory", root);
  return op2_cache_private(&st, root, why);
}

const char *op2_temp_dir(void) {
  const char *tmpdir = getenv("TMPDIR");
  return tmpdir && *tmpdir ? tmpdir : "/tmp";
}

char *op2_keep_failed_source(const char *name, const op2_cache_key *key, const char *src,
                             size_t len, const char *ext) {
  char path[OP2_PATH_BUF];
  snprintf(path, sizeof path, "%s/op2-%s-%.16s.%s", op2_temp_dir(), name, key->hex, ext);
  if (op2_write_file_atomic(path, src, len, NULL) != OP2_OK) return NULL;
  return strdup(path);
}

void op2_cache_entry_dir(const char *root, const char *name, const op2_cache_key *key, char *out,
                         size_t len) {
  snprintf(out, len, "%s/%s-%.16s", root, name, key->hex);
}

int op2_read_file(const char *path, char **data, size_t *len) {
  return op2_read_regular_file(path, OP2_RECORD_FILE_CAP, data, len, NULL);
}
