/* The on-disk kernel cache: ROOT/NAME-HASH16/{NAME.c, NAME.so, manifest.json}. Loading a shared
 * object runs its code, so nothing is loaded from a directory or file that another user could
 * have written, and every file is checked against the manifest's sizes and hashes first. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#define XXH_STATIC_LINKING_ONLY /* for the streaming state on the stack */
#include <xxhash.h>

#include "jit.h"

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

/* Owned by us and writable by nobody else. */
static int safe_stat(const char *path, const struct stat *st, char *why, size_t whylen) {
  if (st->st_uid != geteuid())
    return snprintf(why, whylen, "%s is owned by uid %d, not by this user", path, (int)st->st_uid),
           -1;
  if (st->st_mode & (S_IWGRP | S_IWOTH))
    return snprintf(why, whylen, "%s is writable by group or others (mode %03o)", path,
                    (unsigned)(st->st_mode & 0777)),
           -1;
  return 0;
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

int op2_cache_root_usable(const char *root, int create, char *why, size_t whylen) {
  struct stat st;
  if (stat(root, &st) != 0) {
    if (!create) return snprintf(why, whylen, "%s does not exist", root), -1;
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", root);
    if (mkdir_parents(tmp) != 0 || (mkdir(root, 0700) != 0 && errno != EEXIST) ||
        stat(root, &st) != 0)
      return snprintf(why, whylen, "cannot create %s: %s", root, strerror(errno)), -1;
  }
  if (!S_ISDIR(st.st_mode)) return snprintf(why, whylen, "%s is not a directory", root), -1;
  return safe_stat(root, &st, why, whylen);
}

void op2_cache_entry_dir(const char *root, const char *name, const op2_cache_key *key, char *out,
                         size_t len) {
  snprintf(out, len, "%s/%s-%.16s", root, name, key->hex);
}

int op2_read_file(const char *path, char **data, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  char *buf = NULL;
  size_t n = 0, cap = 0;
  for (;;) {
    if (n + 4096 + 1 > cap) {
      cap = cap ? 2 * cap : 65536;
      char *nb = realloc(buf, cap);
      if (!nb) {
        free(buf), fclose(f);
        return -1;
      }
      buf = nb;
    }
    size_t got = fread(buf + n, 1, cap - n - 1, f);
    n += got;
    if (got == 0) break;
  }
  int err = ferror(f);
  fclose(f);
  if (err) return free(buf), -1;
  buf[n] = '\0';
  *data = buf;
  *len = n;
  return 0;
}

int op2_write_file_atomic(const char *path, const void *data, size_t len, char *why,
                          size_t whylen) {
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.tmp%d", path, (int)getpid());
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return snprintf(why, whylen, "cannot create %s: %s", tmp, strerror(errno)), -1;
  const char *p = data;
  size_t left = len;
  while (left > 0) {
    ssize_t w = write(fd, p, left);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    p += w, left -= (size_t)w;
  }
  int failed = left > 0;
  failed |= close(fd) != 0;
  if (failed || rename(tmp, path) != 0) {
    snprintf(why, whylen, "cannot write %s: %s", path, strerror(errno));
    unlink(tmp);
    return -1;
  }
  return 0;
}

/* Reads a file of the entry after checking who could have written it. */
static int read_safe(const char *path, char **data, size_t *len, char *why, size_t whylen) {
  struct stat st;
  if (lstat(path, &st) != 0) return snprintf(why, whylen, "%s is missing", path), -1;
  if (!S_ISREG(st.st_mode)) return snprintf(why, whylen, "%s is not a regular file", path), -1;
  if (safe_stat(path, &st, why, whylen) != 0) return -1;
  if (op2_read_file(path, data, len) != 0) return snprintf(why, whylen, "cannot read %s", path), -1;
  return 0;
}

int op2_cache_verify(const char *entry, const char *name, const op2_cache_key *key,
                     const char *source, size_t len, char *so_path, size_t so_len, char *why,
                     size_t whylen) {
  struct stat st;
  char path[4400];
  if (lstat(entry, &st) != 0) return snprintf(why, whylen, "no entry"), 1;
  if (!S_ISDIR(st.st_mode)) return snprintf(why, whylen, "%s is not a directory", entry), -1;
  if (safe_stat(entry, &st, why, whylen) != 0) return -1;
  op2_manifest m;
  snprintf(path, sizeof path, "%s/manifest.json", entry);
  if (lstat(path, &st) != 0) return snprintf(why, whylen, "%s is missing", path), -1;
  if (safe_stat(path, &st, why, whylen) != 0) return -1;
  if (op2_manifest_read(path, &m, why, whylen) != 0) return -1;
  char expect_so[300];
  snprintf(expect_so, sizeof expect_so, "%s.so", name);
  if (strcmp(m.key, key->hex) != 0 || strcmp(m.loop, name) != 0 ||
      strcmp(m.binary_file, expect_so) != 0)
    return snprintf(why, whylen, "%s describes another kernel", path), -1;
  char hex[17];
  op2_hash_hex64(source, len, hex);
  if (m.source_bytes != (long long)len || strcmp(hex, m.source_xxh3) != 0)
    return snprintf(why, whylen, "%s was written for different source", path), -1;
  /* The source beside the binary is what users read when a kernel misbehaves: it must be the
   * text the binary was built from. */
  char *text;
  size_t text_len;
  snprintf(path, sizeof path, "%s/%s.c", entry, name);
  if (read_safe(path, &text, &text_len, why, whylen) != 0) return -1;
  int same = text_len == len && memcmp(text, source, len) == 0;
  free(text);
  if (!same) return snprintf(why, whylen, "%s is not the source of the cached kernel", path), -1;
  char *bin;
  size_t bin_len;
  snprintf(so_path, so_len, "%s/%s", entry, expect_so);
  if (read_safe(so_path, &bin, &bin_len, why, whylen) != 0) return -1;
  op2_hash_hex64(bin, bin_len, hex);
  free(bin);
  if ((long long)bin_len != m.binary_bytes || strcmp(hex, m.binary_xxh3) != 0)
    return snprintf(why, whylen, "%s does not match its manifest (size %zu, expected %lld)",
                    so_path, bin_len, m.binary_bytes),
           -1;
  return 0;
}
