/* SPDX-License-Identifier: BSD-3-Clause */
/* Building a kernel into a cache entry: under the entry's build lock, write the source, compile
 * it to a temporary shared object, load it from the descriptor its bytes were hashed through,
 * rename it into place, write the manifest last. A cache that cannot be written (a full disk,
 * a read-only one) never fails the build: the same compile runs in a private temporary
 * directory and whatever was written into the entry is removed. Touches no library state, so
 * the background tier can run it on its own thread. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jit_internal.h"

enum { BUILT, COMPILER_FAILED, NOT_WRITTEN, NOT_LOADED, ABANDONED };

typedef struct built {
  char flags[1024]; /* what the compiler received */
  char bin_xxh3[17];
  long long bin_len;
} built;

/* Whether the compiler's messages say the disk was full: then the cache is at fault. */
static int says_disk_full(const char *log) {
  return log && (strstr(log, strerror(ENOSPC)) || strstr(log, strerror(EDQUOT)));
}

/* Compiles into the open directory `d` and loads the result; NAME.so is in place on BUILT. */
static int compile_in(const op2_build_request *req, const op2_entry *d, op2_build_result *res,
                      built *b) {
  char src[300], bin[300], tmp[320], src_path[OP2_PATH_BUF], tmp_path[OP2_PATH_BUF];
  snprintf(src, sizeof src, "%s.%s", req->name, op2_tier_src_ext(req->tier));
  snprintf(bin, sizeof bin, "%s.so", req->name);
  snprintf(tmp, sizeof tmp, "%s.tmp%d", bin, (int)getpid());
  snprintf(src_path, sizeof src_path, "%s/%s", d->path, src);
  snprintf(tmp_path, sizeof tmp_path, "%s/%s", d->path, tmp);
  free(res->log);
  res->log = NULL;
  if (op2_entry_write(d, src, req->source, req->source_len, &res->why) != OP2_OK)
    return NOT_WRITTEN;
  double t0 = op2_wall_seconds();
  int crc = req->tier->compile(req->tier, req->source, src_path, tmp_path, &res->log, b->flags,
                               sizeof b->flags);
  res->warned = req->tier->warn;
  if (crc == OP2_SPAWN_REJECTED && req->tier->warn && op2_cc_refused_warning_flag(res->log)) {
    /* A compiler that refuses a warning flag (they are the warnings check's, cc.c) still builds
     * the kernel: once more without them; the check then has no messages from this build. A
     * kernel the compiler rejects is not compiled twice. */
    op2_tier plain = *req->tier;
    plain.warn = 0;
    free(res->log); /* the refusal: the second compile's messages are the kernel's */
    res->log = NULL;
    unlinkat(d->fd, tmp, 0);
    crc = plain.compile(&plain, req->source, src_path, tmp_path, &res->log, b->flags,
                        sizeof b->flags);
    res->warned = 0;
  }
  if (crc != 0) {
    unlinkat(d->fd, tmp, 0);
    op2_jit_error_set(&res->why, OP2_ERR_JIT, "%s failed", req->tier->name);
    if (says_disk_full(res->log)) return NOT_WRITTEN;
    res->rejected = crc == OP2_SPAWN_REJECTED;
    return COMPILER_FAILED;
  }
  res->compile_ms = 1e3 * (op2_wall_seconds() - t0);
  if (req->abandon && atomic_load(req->abandon)) { /* superseded while compiling */
    unlinkat(d->fd, tmp, 0);
    op2_jit_error_set(&res->why, OP2_ERR_STATE, "superseded");
    return ABANDONED;
  }
  /* Loaded before it is published: an object that cannot load (an undefined symbol, or one
   * truncated by a full disk) never becomes a cache entry. */
  struct stat st;
  char *data = NULL;
  size_t len = 0;
  void *sym = NULL;
  int fd = op2_entry_own_output(d, tmp, &res->why) == OP2_OK
               ? op2_entry_open_file(d, tmp, &st, &res->why)
               : -1;
  int ok = fd >= 0 && op2_read_fd(fd, &data, &len) == 0 &&
           op2_load_object_fd(req->known, fd, tmp_path, "op2_loop", &res->handle, &sym,
                              &res->why) == OP2_OK;
  if (fd >= 0) close(fd);
  if (data) op2_hash_hex64(data, len, b->bin_xxh3);
  free(data);
  b->bin_len = (long long)len;
  if (!ok) {
    unlinkat(d->fd, tmp, 0);
    return NOT_LOADED;
  }
  res->fn = (op2_kernel_fn)sym;
  if (renameat(d->fd, tmp, d->fd, bin) != 0) {
    op2_jit_error_set(&res->why, OP2_ERR_IO, "cannot store %s/%s: %s", d->path, bin,
                      strerror(errno));
    unlinkat(d->fd, tmp, 0);
    return NOT_WRITTEN;
  }
  return BUILT;
}

static int write_manifest(const op2_build_request *req, const op2_entry *d, const built *b,
                          op2_build_result *res) {
  op2_manifest m = {0};
  snprintf(m.loop, sizeof m.loop, "%s", req->name);
  snprintf(m.key, sizeof m.key, "%s", req->key.hex);
  snprintf(m.target, sizeof m.target, "%s", req->target);
  snprintf(m.compiler, sizeof m.compiler, "%s", req->tier->identity);
  snprintf(m.flags, sizeof m.flags, "%s", b->flags);
  snprintf(m.source_file, sizeof m.source_file, "%s.%s", req->name, op2_tier_src_ext(req->tier));
  snprintf(m.binary_file, sizeof m.binary_file, "%s.so", req->name);
  m.source_bytes = (long long)req->source_len;
  m.binary_bytes = b->bin_len;
  op2_hash_hex64(req->source, req->source_len, m.source_xxh3);
  memcpy(m.binary_xxh3, b->bin_xxh3, sizeof m.binary_xxh3);
  op2_utc_now(m.created, sizeof m.created);
  m.compile_ms = res->compile_ms;
  m.signature = req->signature;
  return op2_entry_write_manifest(d, &m, &res->why);
}

/* The entry another process stored while we waited for its lock, loaded: 0, else -1. */
static int take_stored(const op2_build_request *req, const op2_entry *e, op2_build_result *res) {
  const op2_entry_expect ex = {.name = req->name,
                               .key = req->key.hex,
                               .bin_ext = "so",
                               .src_ext = op2_tier_src_ext(req->tier),
                               .source = req->source,
                               .source_len = req->source_len};
  op2_entry_verified v;
  void *sym = NULL;
  int rc = op2_entry_verify(e, &ex, &v, NULL) == OP2_OK &&
                   op2_load_object_fd(req->known, v.bin_fd, e->path, "op2_loop", &res->handle, &sym,
                                      NULL) == OP2_OK
               ? 0
               : -1;
  op2_entry_verified_clear(&v);
  if (rc != 0) return -1;
  res->fn = (op2_kernel_fn)sym;
  res->reused = 1;
  char path[OP2_PATH_BUF];
  snprintf(path, sizeof path, "%s/%s.%s", e->path, req->name, op2_tier_src_ext(req->tier));
  res->source_path = strdup(path);
  return 0;
}

/* Opens the entry (made if missing) and takes its lock, waiting for a process that is building
 * it. A directory removed while we waited (its builder failed, or a looker found it unfinished
 * before we locked it) is made again. 0 held, -2 busy past the wait, -1 cannot be opened. */
static int open_locked(const op2_build_request *req, op2_entry *e, op2_build_result *res,
                       int *waited) {
  for (int attempt = 0; attempt < 4; attempt++) {
    if (op2_entry_open(AT_FDCWD, req->entry, 1, e, &res->why) != OP2_OK) {
      if (errno == ENOENT) continue; /* removed between our mkdir and our open */
      return -1;
    }
    *waited = op2_entry_try_lock(e) != 0;
    if (*waited && op2_entry_wait_lock(e, req->wait_ms) != 0) {
      op2_entry_close(e);
      return -2;
    }
    if (!op2_entry_unlinked(e)) return 0;
    op2_entry_close(e);
  }
  op2_jit_error_set(&res->why, OP2_ERR_IO, "%s keeps being removed while it is built", req->entry);
  return -1;
}

/* Into the cache entry, holding its lock. -1 when the entry is busy or cannot be opened. */
static int build_kept(const op2_build_request *req, op2_build_result *res, int *rc) {
  op2_entry e;
  int waited = 0, opened = open_locked(req, &e, res, &waited);
  if (opened != 0) return opened;
  /* Another process built it while we waited, or between our look and our lock: its build is
   * ours, never built twice. */
  (void)waited;
  if (take_stored(req, &e, res) == 0) {
    op2_entry_close(&e);
    *rc = BUILT;
    return 0;
  }
  built b;
  *rc = compile_in(req, &e, res, &b);
  if (*rc == BUILT && write_manifest(req, &e, &b, res) != 0) *rc = NOT_WRITTEN;
  if (*rc == BUILT) {
    char path[OP2_PATH_BUF];
    snprintf(path, sizeof path, "%s/%s.%s", e.path, req->name, op2_tier_src_ext(req->tier));
    res->source_path = strdup(path);
  } else { /* no partial entry stays behind; the loaded object stays mapped */
    op2_entry_remove(&e, req->name, 0, NULL, NULL);
  }
  op2_entry_close(&e);
  return 0;
}

/* In a private temporary directory, removed once the object is loaded. */
static int build_private(const op2_build_request *req, op2_build_result *res) {
  char dir[OP2_PATH_BUF];
  snprintf(dir, sizeof dir, "%s/op2-build-XXXXXX", op2_temp_dir());
  op2_entry d;
  if (!mkdtemp(dir) || op2_entry_open(AT_FDCWD, dir, 0, &d, NULL) != OP2_OK) {
    op2_jit_error_set(&res->why, OP2_ERR_IO, "cannot create a build directory in %s: %s",
                      op2_temp_dir(), strerror(errno));
    return NOT_WRITTEN;
  }
  built b;
  int rc = compile_in(req, &d, res, &b);
  op2_entry_remove(&d, req->name, 0, NULL, NULL);
  op2_entry_close(&d);
  return rc;
}

int op2_build_into_entry(const op2_build_request *req, op2_build_result *res) {
  memset(res, 0, sizeof *res);
  int rc = NOT_WRITTEN;
  if (req->keep) {
    int opened = build_kept(req, res, &rc);
    if (opened == 0 && rc == BUILT) return res->status = OP2_BUILD_OK;
    if (opened == 0 && rc == COMPILER_FAILED) return res->status = OP2_BUILD_COMPILE_ERROR;
    if (opened == 0 && rc == ABANDONED) return res->status = OP2_BUILD_ABANDONED;
    if (res->handle) { /* loaded, but the entry could not be completed */
      res->not_stored = 1;
      return res->status = OP2_BUILD_OK;
    }
    op2_jit_error cache_why = res->why;
    rc = build_private(req, res);
    /* The private build tells a fault of the cache from one of the kernel. */
    if (rc == BUILT && opened != -2) {
      res->not_stored = 1;
      res->why = cache_why;
    }
  } else {
    rc = build_private(req, res);
  }
  if (rc == BUILT) return res->status = OP2_BUILD_OK;
  if (rc == NOT_WRITTEN) return res->status = OP2_BUILD_NOT_STORED;
  if (rc == ABANDONED) return res->status = OP2_BUILD_ABANDONED;
  if (rc == NOT_LOADED) { /* the loader's reason is the compiler's last message */
    op2_buf log = {0};
    if (res->log) op2_buf_printf(&log, "%s", res->log);
    op2_buf_printf(&log, "%s\n", res->why.msg);
    free(res->log);
    res->log = log.data;
  }
  return res->status = OP2_BUILD_COMPILE_ERROR;
}

void op2_build_result_clear(op2_build_result *res) {
  free(res->log);
  free(res->source_path);
  res->log = res->source_path = NULL;
}
