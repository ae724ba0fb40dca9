/* SPDX-License-Identifier: BSD-3-Clause */
/* One cache entry, checked and stored from its directory descriptor (see cache_entry.h). Loading
 * a shared object runs its code, so nothing is loaded from a directory or file that another user
 * could have written, and every file is checked against the manifest's sizes and hashes first. */
#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "base/file_io.h"
#include "jit.h"
#include "cache_entry.h"
#include "elf_load.h"

int op2_cache_private(const struct stat *st, const char *what, op2_jit_error *err) {
  if (st->st_uid != geteuid())
    return op2_jit_error_set(err, OP2_ERR_IO, "%s is owned by uid %d, not by this user", what,
                             (int)st->st_uid);
  if (st->st_mode & (S_IWGRP | S_IWOTH))
    return op2_jit_error_set(err, OP2_ERR_IO, "%s is writable by group or others (mode %03o)", what,
                             (unsigned)(st->st_mode & 0777));
  return OP2_OK;
}

int op2_cache_file_kind(const char *loop, const char *f) {
  static const char *const ext[] = {".cubin", ".F90", ".cu",
                                    ".c",     ".so",  ".ptx"}; /* longest first */
  size_t n = strlen(loop);
  const char *rest = NULL;
  if (strncmp(f, "manifest.json", 13) == 0)
    rest = f + 13;
  else if (strncmp(f, loop, n) == 0)
    for (int i = 0; i < 6 && !rest; i++)
      if (strncmp(f + n, ext[i], strlen(ext[i])) == 0) rest = f + n + strlen(ext[i]);
  if (!rest) return 0;
  if (*rest == '\0') return 1;
  return op2_is_temp_suffix(rest) ? 2 : 0;
}

int op2_entry_open(int atfd, const char *dir, int create, op2_entry *e, op2_jit_error *err) {
  e->fd = -1;
  e->at = atfd;
  snprintf(e->path, sizeof e->path, "%s", dir);
  if (create && mkdirat(atfd, dir, 0700) != 0 && errno != EEXIST)
    return op2_jit_error_set(err, OP2_ERR_IO, "cannot create %s: %s", dir, strerror(errno));
  int fd = openat(atfd, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT && !create)
      return op2_jit_error_set(err, OP2_ERR_IO, "no entry"), OP2_ENTRY_ABSENT;
    int saved = errno; /* ENOENT tells a builder its directory was just removed (store.c) */
    op2_jit_error_set(err, OP2_ERR_IO, "%s is not a directory we can open: %s", dir,
                      strerror(saved));
    return errno = saved, OP2_ERR_IO;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || op2_cache_private(&st, "directory", err) != OP2_OK) {
    close(fd);
    return OP2_ERR_IO;
  }
  e->fd = fd;
  return OP2_OK;
}

void op2_entry_close(op2_entry *e) {
  if (e->fd >= 0) close(e->fd); /* also drops the build lock */
  e->fd = -1;
}

int op2_entry_try_lock(const op2_entry *e) {
  return flock(e->fd, LOCK_EX | LOCK_NB) == 0 ? 0 : -1;
}

int op2_entry_wait_ms(int compile_timeout_s) {
  if (compile_timeout_s <= 0) return OP2_ENTRY_WAIT_MS;
  long long ms = 1000LL * compile_timeout_s + 5000;
  return ms > 2000000000LL ? 2000000000 : (int)ms;
}

int op2_entry_wait_lock(const op2_entry *e, int max_ms) {
  /* Polled with a growing pause rather than a blocking flock: bounded without a signal, and a
   * build takes milliseconds to seconds, so a pause of up to 20 ms costs little. */
  int waited = 0, pause = 1;
  while (op2_entry_try_lock(e) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) return -1;
    if (waited >= max_ms) return -1;
    struct timespec ts = {0, pause * 1000000L};
    nanosleep(&ts, NULL);
    waited += pause;
    if (pause < 20) pause *= 2;
  }
  return 0;
}

int op2_entry_is_empty(const op2_entry *e) {
  int fd = openat(e->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  if (!d) {
    if (fd >= 0) close(fd);
    return 0;
  }
  int empty = 1;
  for (struct dirent *de; empty && (de = readdir(d));)
    empty = strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0;
  closedir(d);
  return empty;
}

int op2_entry_unlinked(const op2_entry *e) {
  struct stat st;
  return fstat(e->fd, &st) == 0 && st.st_nlink == 0;
}

/* O_NONBLOCK: a FIFO or device planted in the entry must not block the open; it is refused by
 * the fstat that follows (on the same descriptor that would be read). */
int op2_entry_open_file(const op2_entry *e, const char *file, struct stat *st, op2_jit_error *err) {
  int fd = openat(e->fd, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT)
      op2_jit_error_set(err, OP2_ERR_IO, "%s is missing", file);
    else if (errno == ELOOP)
      op2_jit_error_set(err, OP2_ERR_IO, "%s is a symbolic link", file);
    else
      op2_jit_error_set(err, OP2_ERR_IO, "cannot read %s: %s", file, strerror(errno));
    return -1;
  }
  if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
    close(fd);
    return op2_jit_error_set(err, OP2_ERR_IO, "%s is not a regular file", file), -1;
  }
  if (op2_cache_private(st, file, err) != OP2_OK) return close(fd), -1;
  return fd;
}

/* A compiler creates its output with the process's umask (0775 under a umask of 002, as shared
 * HPC systems often set): that file is ours, in our private directory, so its group and other
 * bits are cleared here rather than the entry refused. Anything else is left for the checks. */
int op2_entry_own_output(const op2_entry *e, const char *file, op2_jit_error *err) {
  int fd = openat(e->fd, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return op2_jit_error_set(err, OP2_ERR_IO, "cannot open %s: %s", file, strerror(errno));
  struct stat st;
  int rc =
      fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() ? OP2_OK : OP2_ERR_IO;
  if (rc != OP2_OK)
    op2_jit_error_set(err, OP2_ERR_IO, "%s is not a regular file of this user", file);
  else if ((st.st_mode & 077) && fchmod(fd, st.st_mode & 0700) != 0)
    rc = op2_jit_error_set(err, OP2_ERR_IO, "cannot set the mode of %s: %s", file, strerror(errno));
  close(fd);
  return rc;
}

int op2_read_fd(int fd, char **data, size_t *len) {
  size_t n = 0, cap = 65536;
  char *buf = malloc(cap);
  for (ssize_t got = 1; buf && got != 0;) {
    if (n + 1 == cap) {
      char *nb = realloc(buf, cap *= 2);
      if (!nb) free(buf);
      buf = nb;
      continue;
    }
    got = read(fd, buf + n, cap - n - 1);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) free(buf), buf = NULL;
    if (got > 0) n += (size_t)got;
  }
  if (!buf) return -1;
  buf[n] = '\0';
  *data = buf;
  *len = n;
  return 0;
}

int op2_entry_read(const op2_entry *e, const char *file, char **data, size_t *len,
                   op2_jit_error *err) {
  struct stat st;
  int fd = op2_entry_open_file(e, file, &st, err);
  if (fd < 0) return OP2_ERR_IO;
  /* A source holds a kernel file of up to OP2_KERNEL_FILE_CAP and the generated code around it. */
  if ((unsigned long long)st.st_size > 2 * OP2_KERNEL_FILE_CAP) {
    close(fd);
    return op2_jit_error_set(err, OP2_ERR_IO, "%s is larger than %zu MiB", file,
                             2 * OP2_KERNEL_FILE_CAP >> 20);
  }
  int rc = op2_read_fd(fd, data, len) == 0
               ? OP2_OK
               : op2_jit_error_set(err, OP2_ERR_IO, "cannot read %s: %s", file, strerror(errno));
  close(fd);
  return rc;
}

int op2_entry_write(const op2_entry *e, const char *file, const void *data, size_t len,
                    op2_jit_error *err) {
  op2_jit_error inner;
  if (op2_write_atomic_at(e->fd, file, data, len, &inner) == OP2_OK) return OP2_OK;
  return op2_jit_error_set(err, inner.code, "%s: %s", e->path, inner.msg);
}

int op2_entry_write_manifest(const op2_entry *e, const op2_manifest *m, op2_jit_error *err) {
  char *text = op2_manifest_format(m);
  if (!text) return op2_jit_error_set(err, OP2_ERR_MEM, "out of memory");
  int rc = op2_entry_write(e, "manifest.json", text, strlen(text), err);
  free(text);
  return rc;
}

int op2_entry_remove(const op2_entry *e, const char *loop, int temps_only, long long *freed,
                     op2_jit_error *err) {
  int dfd = dup(e->fd);
  DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
  if (!d) {
    if (dfd >= 0) close(dfd);
    return op2_jit_error_set(err, OP2_ERR_IO, "cannot read %s: %s", e->path, strerror(errno));
  }
  rewinddir(d);
  char names[64][300];
  long long bytes = 0;
  int n = 0, failed = 0;
  for (struct dirent *de; (de = readdir(d)) != NULL;) {
    if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
    int kind = op2_cache_file_kind(loop, de->d_name);
    if (kind == 0 || n == 64) {
      op2_jit_error_set(err, OP2_ERR_IO, "%s holds %s: left alone", e->path, de->d_name);
      failed = 1;
      break;
    }
    if (temps_only && kind != 2) continue;
    struct stat st;
    if (fstatat(e->fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
      bytes += (long long)st.st_size;
    snprintf(names[n++], sizeof names[0], "%s", de->d_name);
  }
  closedir(d);
  /* A directory planted under a cache file's name goes too when it is empty. */
  for (int i = 0; !failed && i < n; i++)
    if (unlinkat(e->fd, names[i], 0) != 0 && errno != ENOENT &&
        (errno != EISDIR || unlinkat(e->fd, names[i], AT_REMOVEDIR) != 0)) {
      op2_jit_error_set(err, OP2_ERR_IO, "cannot remove %s/%s: %s", e->path, names[i],
                        strerror(errno));
      failed = 1;
    }
  /* The directory goes by its name: it was checked private, so nobody else can have moved it. */
  if (!failed && !temps_only && unlinkat(e->at, e->path, AT_REMOVEDIR) != 0 && errno != ENOENT) {
    op2_jit_error_set(err, OP2_ERR_IO, "cannot remove %s: %s", e->path, strerror(errno));
    failed = 1;
  }
  if (freed) *freed = bytes;
  return failed ? OP2_ERR_IO : OP2_OK;
}

/* A file the manifest describes, read through the descriptor that is checked; kept open in
 * *fd_out when asked. */
static int check_file(const op2_entry *e, const char *f, long long bytes, const char *xxh3,
                      int *fd_out, char **data_out, size_t *len_out, op2_jit_error *err) {
  struct stat st;
  char *data, hex[17];
  size_t n;
  int fd = op2_entry_open_file(e, f, &st, err);
  if (fd < 0) return OP2_ERR_IO;
  if (op2_read_fd(fd, &data, &n) != 0) {
    op2_jit_error_set(err, OP2_ERR_IO, "cannot read %s: %s", f, strerror(errno));
    return close(fd), OP2_ERR_IO;
  }
  op2_hash_hex64(data, n, hex);
  int bad = 1;
  if ((long long)n != bytes)
    op2_jit_error_set(err, OP2_ERR_IO, "%s has %zu bytes, its manifest says %lld", f, n, bytes);
  else if (strcmp(hex, xxh3) != 0)
    op2_jit_error_set(err, OP2_ERR_IO, "%s does not match the hash in its manifest", f);
  else
    bad = 0;
  if (bad || !fd_out)
    close(fd);
  else
    *fd_out = fd;
  if (bad || !data_out)
    free(data);
  else
    *data_out = data, *len_out = n;
  return bad ? OP2_ERR_IO : OP2_OK;
}

int op2_entry_verify(const op2_entry *e, const op2_entry_expect *ex, op2_entry_verified *v,
                     op2_jit_error *err) {
  memset(v, 0, sizeof *v);
  v->bin_fd = -1;
  char *text, bin[300], src[300], hex[17];
  size_t len;
  if (op2_entry_read(e, "manifest.json", &text, &len, err) != OP2_OK) return OP2_ERR_IO;
  char bad[600];
  int rc = op2_manifest_parse(text, len, &v->m, bad, sizeof bad);
  free(text);
  if (rc != 0)
    return op2_jit_error_set(err, OP2_ERR_IO, "manifest.json is not a valid manifest (%s)", bad);
  v->manifest_ok = 1;
  const op2_manifest *m = &v->m;
  const char *bin_ext = ex->bin_ext, *src_ext = ex->src_ext;
  if (!bin_ext) { /* CUDA entries hold LOOP.cu and LOOP.cubin instead of LOOP.c and LOOP.so,
                   * Fortran entries LOOP.F90 and LOOP.so */
    snprintf(bin, sizeof bin, "%s.cubin", ex->name);
    snprintf(src, sizeof src, "%s.F90", ex->name);
    int cubin = strcmp(m->binary_file, bin) == 0, fortran = strcmp(m->source_file, src) == 0;
    bin_ext = cubin ? "cubin" : "so", src_ext = cubin ? "cu" : fortran ? "F90" : "c";
  }
  snprintf(bin, sizeof bin, "%s.%s", ex->name, bin_ext);
  snprintf(src, sizeof src, "%s.%s", ex->name, src_ext);
  size_t klen = strlen(ex->key);
  if (strcmp(m->loop, ex->name) != 0 || strlen(m->key) != 32 ||
      strncmp(m->key, ex->key, klen) != 0 || strcmp(m->binary_file, bin) != 0 ||
      strcmp(m->source_file, src) != 0 || (ex->target && strcmp(m->target, ex->target) != 0))
    return op2_jit_error_set(err, OP2_ERR_IO, "manifest.json describes another kernel");
  if (ex->source) {
    op2_hash_hex64(ex->source, ex->source_len, hex);
    if (m->source_bytes != (long long)ex->source_len || strcmp(hex, m->source_xxh3) != 0)
      return op2_jit_error_set(err, OP2_ERR_IO, "manifest.json was written for different source");
  }
  /* The source beside the binary is what users read when a kernel misbehaves: it must be the
   * text the binary was built from. */
  char *text_read = NULL;
  size_t text_len = 0;
  if (check_file(e, src, m->source_bytes, m->source_xxh3, NULL, ex->source ? &text_read : NULL,
                 &text_len, err) != OP2_OK)
    return OP2_ERR_IO;
  int same =
      !ex->source || (text_len == ex->source_len && !memcmp(text_read, ex->source, text_len));
  free(text_read);
  if (!same)
    return op2_jit_error_set(err, OP2_ERR_IO, "%s is not the source of the cached kernel", src);
  return check_file(e, bin, m->binary_bytes, m->binary_xxh3, &v->bin_fd, &v->binary, &v->binary_len,
                    err);
}

void op2_entry_verified_clear(op2_entry_verified *v) {
  if (v->bin_fd >= 0) close(v->bin_fd);
  free(v->binary);
  v->bin_fd = -1;
  v->binary = NULL;
}

/* The device and inode of the file mapped at address p (/proc/self/maps). */
static int mapped_file(const void *p, dev_t *dev, ino_t *ino) {
  FILE *f = fopen("/proc/self/maps", "re");
  if (!f) return -1;
  char *line = NULL;
  size_t cap = 0;
  int rc = -1;
  while (rc != 0 && getline(&line, &cap, f) > 0) {
    unsigned long lo, hi, off, inode;
    unsigned maj, min;
    if (sscanf(line, "%lx-%lx %*s %lx %x:%x %lu", &lo, &hi, &off, &maj, &min, &inode) == 6 &&
        (uintptr_t)p >= lo && (uintptr_t)p < hi)
      *dev = makedev(maj, min), *ino = (ino_t)inode, rc = 0;
  }
  free(line);
  fclose(f);
  return rc;
}

/* The file a loaded object came from: the engine's table knows its own objects; any other is
 * looked up in /proc/self/maps (30+ KB of text, so never for the engine's own). */
static int object_file(op2_loaded_objects *known, void *handle, dev_t *dev, ino_t *ino) {
  if (op2_loaded_objects_find(known, handle, dev, ino)) return 0;
  struct link_map *lm = NULL;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &lm) != 0 || !lm) return -1;
  return mapped_file(lm->l_ld, dev, ino);
}

/* Spelling `serial` of /proc/self/fd/FD. Linux reads repeated slashes as one, so the serial's
 * four base-16 digits become the slashes before each of the four components: 65,536 names of
 * one descriptor, at most 85 characters. */
static void fd_name(char *out, size_t len, int fd, unsigned serial) {
  static const char *const parts[] = {"proc", "self", "fd", NULL};
  size_t n = 0;
  for (int i = 0; i < 4 && n < len; i++) {
    for (unsigned k = 0; k <= ((serial >> (4 * i)) & 15) && n + 1 < len; k++) out[n++] = '/';
    out[n] = '\0';
    n += (size_t)(parts[i] ? snprintf(out + n, len - n, "%s", parts[i])
                           : snprintf(out + n, len - n, "%d", fd));
  }
}

/* The object is loaded through /proc/self/fd/N of the descriptor whose bytes were verified: the
 * loader opens the very inode that was checked, whatever happens to the names in the entry
 * meanwhile. glibc recognises an already loaded object by the name it was opened under (and by
 * its inode), and N is reused once the descriptor is closed, so each load spells the name
 * differently (fd_name, the engine's next serial): the name is new, the one RTLD_NOLOAD question
 * finds nothing, and a load costs no more than glibc's own walk of its list. Probing descriptor
 * numbers instead (the next free one while a name was taken) cost each load a question per kernel
 * loaded before it, each a walk of that list, so a load's cost grew with the kernels loaded
 * (docs/PERFORMANCE.md, "Measurements behind the code"). An object
 * still loaded under the name (another engine's, or after 65,536 loads) that is another file
 * moves us to the next spelling. No other thread can load under our name between the question
 * and the dlopen: it would need our open descriptor. */
static int dlopen_fd(op2_loaded_objects *known, int fd, const char *what, const char *symbol,
                     void **handle, void **sym, op2_jit_error *err) {
  struct stat st;
  if (fstat(fd, &st) != 0)
    return op2_jit_error_set(err, OP2_ERR_IO, "cannot load %s: %s", what, strerror(errno));
  char name[128];
  unsigned serial = op2_loaded_objects_serial(known);
  for (unsigned tries = 0;; tries++, serial++) {
    if (tries > 65536)
      return op2_jit_error_set(err, OP2_ERR_IO,
                               "cannot load %s: every name of its descriptor is taken", what);
    fd_name(name, sizeof name, fd, serial);
    void *old = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (!old) break;
    dev_t dev = 0;
    ino_t ino = 0;
    int same = object_file(known, old, &dev, &ino) == 0 && dev == st.st_dev && ino == st.st_ino;
    dlclose(old);
    if (same) break; /* this very file is loaded already: dlopen hands that copy back */
  }
  void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  const char *dl_err = h ? NULL : dlerror();
  if (!h)
    return op2_jit_error_set(err, OP2_ERR_IO, "cannot load %s: %s", what, dl_err ? dl_err : "?");
  void *s = dlsym(h, symbol);
  if (!s) {
    dlclose(h);
    return op2_jit_error_set(err, OP2_ERR_IO, "%s has no %s symbol", what, symbol);
  }
  op2_loaded_objects_add(known, h, st.st_dev, st.st_ino);
  *handle = h;
  *sym = s;
  return OP2_OK;
}

/* Says at `level` how an object was loaded (the engine's diagnostics), when it has a voice. */
static void loader_note(op2_loaded_objects *known, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void loader_note(op2_loaded_objects *known, int level, const char *fmt, ...) {
  if (!known || !known->diag) return;
  char msg[1200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  known->diag(known->diag_ctx, level, msg);
}

/* Whether this load goes to the direct loader (OP2_LOADER): under auto, once dlopen's cost has
 * grown with the objects loaded before (said once). */
static int direct_now(op2_loaded_objects *known) {
  if (!known) return 0;
  pthread_mutex_lock(&known->lock);
  int direct = known->loader == OP2_LOADER_DIRECT ||
               (known->loader == OP2_LOADER_AUTO && known->loads >= known->direct_after);
  int engaged = known->loader == OP2_LOADER_AUTO && known->loads == known->direct_after;
  pthread_mutex_unlock(&known->lock);
  if (engaged)
    loader_note(known, 2,
                "%d kernel objects loaded with dlopen, whose cost grows with each: the direct "
                "loader loads the rest (OP2_LOADER=auto; they are not in gdb's or dladdr's view)",
                known->direct_after);
  return direct;
}

static void count_load(op2_loaded_objects *known) {
  if (!known) return;
  pthread_mutex_lock(&known->lock);
  known->loads++;
  pthread_mutex_unlock(&known->lock);
}

/* The needed libraries of an object checked without an engine's table: opened each time
 * (they stay loaded: kernels may call into them). */
static void *needed_untabled(void *ctx, const char *name) {
  (void)ctx;
  return dlopen(name, RTLD_NOW | RTLD_LOCAL);
}

/* Every object is checked by the direct loader before anything loads it: a malformed one is
 * refused here and never handed to dlopen, which trusts what it reads and crashes on it. The
 * direct loader then loads it when engaged (OP2_LOADER=direct, or auto past OP2_DIRECT_AFTER
 * objects) unless it needs glibc's loader; dlopen loads the rest, never an object without a
 * PT_GNU_STACK header (glibc would make every thread's stack executable: the direct loader takes
 * it when it can). */
int op2_load_object_fd(op2_loaded_objects *known, int fd, const char *what, const char *symbol,
                       void **handle, void **sym, op2_jit_error *err) {
  op2_elf_needed_fn needed = known ? op2_loaded_objects_needed : needed_untabled;
  int direct = direct_now(known);
  op2_elf_verdict v;
  op2_elf_image *img = NULL;
  op2_jit_error why = {.code = OP2_OK};
  if (op2_elf_load(fd, needed, known, direct ? &img : NULL, &v, &why) != OP2_OK)
    return op2_jit_error_set(err, OP2_ERR_JIT, "%s is malformed, not loaded: %s", what, why.msg);
  if (!img && !v.glibc_only && v.no_stack_note) {
    loader_note(known, 2,
                "%s: loaded by the direct loader: it has no PT_GNU_STACK header, and dlopen "
                "would make the stack executable",
                what);
    if (op2_elf_load(fd, needed, known, &img, &v, &why) != OP2_OK)
      return op2_jit_error_set(err, OP2_ERR_JIT, "%s is malformed, not loaded: %s", what, why.msg);
  }
  if (img) {
    void *s = op2_elf_symbol(img, symbol, NULL);
    op2_object *o = s ? op2_object_wrap(NULL, img) : NULL;
    if (!o) {
      op2_elf_unload(img);
      return op2_jit_error_set(err, s ? OP2_ERR_MEM : OP2_ERR_IO,
                               s ? "cannot load %s: out of memory" : "%s has no %s symbol", what,
                               symbol);
    }
    count_load(known);
    *handle = o, *sym = s;
    return OP2_OK;
  }
  if (v.no_stack_note)
    return op2_jit_error_set(err, OP2_ERR_JIT,
                             "%s is not loaded: it needs glibc's loader (%s) but has no "
                             "PT_GNU_STACK header, and glibc would make every thread's stack "
                             "executable",
                             what, v.reason);
  void *dl = NULL, *s = NULL;
  int rc = dlopen_fd(known, fd, what, symbol, &dl, &s, err);
  if (rc != OP2_OK) return rc;
  count_load(known);
  op2_object *o = op2_object_wrap(dl, NULL);
  if (!o) {
    dlclose(dl);
    return op2_jit_error_set(err, OP2_ERR_MEM, "cannot load %s: out of memory", what);
  }
  /* the direct loader's reason, for the kernel's diagnostics and its record, said there once per
   * kernel (jit.c's op2_jit_note_loader; no slow path is silent: each dlopen makes the next one
   * dearer) */
  if (direct) op2_object_set_dlopen_why(o, v.reason);
  *handle = o, *sym = s;
  return OP2_OK;
}
