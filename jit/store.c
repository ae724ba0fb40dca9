/* Building a kernel into a cache entry: write the source, compile it to a temporary shared
 * object, hash it, rename it into place, write the manifest last, load it. Touches no library
 * state, so the background tier can run it on its own thread. */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jit.h"

int op2_load_shared_object(const char *so_path, void **handle, op2_kernel_fn *fn, char *why,
                           size_t whylen) {
  void *h = dlopen(so_path, RTLD_NOW | RTLD_LOCAL);
  if (!h) return snprintf(why, whylen, "dlopen %s: %s", so_path, dlerror()), -1;
  op2_kernel_fn f = (op2_kernel_fn)dlsym(h, "op2_loop");
  if (!f) {
    dlclose(h);
    return snprintf(why, whylen, "%s has no op2_loop symbol", so_path), -1;
  }
  *handle = h;
  *fn = f;
  return 0;
}

static void remove_entry_files(const char *entry, const char *name) {
  char path[4400];
  const char *suffixes[] = {".c", ".so"};
  for (int i = 0; i < 2; i++) {
    snprintf(path, sizeof path, "%s/%s%s", entry, name, suffixes[i]);
    unlink(path);
  }
  snprintf(path, sizeof path, "%s/manifest.json", entry);
  unlink(path);
  rmdir(entry);
}

int op2_build_into_entry(const op2_build_request *req, op2_build_result *res) {
  char src_path[4400], so_path[4400], tmp_so[4500], man_path[4400];
  const char *entry = req->entry, *name = req->name;
  memset(res, 0, sizeof *res);
  snprintf(src_path, sizeof src_path, "%s/%s.c", entry, name);
  snprintf(so_path, sizeof so_path, "%s/%s.so", entry, name);
  snprintf(tmp_so, sizeof tmp_so, "%s.tmp%d", so_path, (int)getpid());
  snprintf(man_path, sizeof man_path, "%s/manifest.json", entry);
  if (mkdir(entry, 0700) != 0 && errno != EEXIST) {
    snprintf(res->why, sizeof res->why, "cannot create %s: %s", entry, strerror(errno));
    return res->status = OP2_BUILD_NOT_STORED;
  }
  if (op2_write_file_atomic(src_path, req->source, req->source_len, res->why, sizeof res->why) != 0)
    return res->status = OP2_BUILD_NOT_STORED;
  res->source_path = strdup(src_path);
  double t0 = op2_wall_seconds();
  if (req->tier->compile(req->tier, req->source, src_path, tmp_so, &res->log) != 0) {
    unlink(tmp_so);
    snprintf(res->why, sizeof res->why, "%s failed", req->tier->name);
    return res->status = OP2_BUILD_COMPILE_ERROR;
  }
  res->compile_ms = 1e3 * (op2_wall_seconds() - t0);
  /* Loaded before it is published: an object that cannot load (an undefined symbol) is a compile
   * error, never a cache entry. dlopen keeps the mapping when the file is renamed below. */
  if (op2_load_shared_object(tmp_so, &res->handle, &res->fn, res->why, sizeof res->why) != 0) {
    unlink(tmp_so);
    op2_buf log = {0};
    if (res->log) op2_buf_printf(&log, "%s", res->log);
    op2_buf_printf(&log, "%s\n", res->why);
    free(res->log);
    res->log = log.data;
    return res->status = OP2_BUILD_COMPILE_ERROR;
  }
  op2_manifest m = {0};
  char *bin;
  size_t bin_len = 0;
  int ok = op2_read_file(tmp_so, &bin, &bin_len) == 0;
  if (ok) {
    op2_hash_hex64(bin, bin_len, m.binary_xxh3);
    free(bin);
    ok = rename(tmp_so, so_path) == 0;
  }
  if (!ok) { /* the object is loaded and usable; it just is not cached */
    unlink(tmp_so);
    snprintf(res->why, sizeof res->why, "cannot store %s", so_path);
    res->manifest_failed = 1;
    return res->status = OP2_BUILD_OK;
  }
  if (req->keep) {
    snprintf(m.loop, sizeof m.loop, "%s", name);
    snprintf(m.key, sizeof m.key, "%s", req->key.hex);
    snprintf(m.target, sizeof m.target, "%s", req->target);
    snprintf(m.compiler, sizeof m.compiler, "%s", req->tier->identity);
    snprintf(m.flags, sizeof m.flags, "%s", req->tier->flags);
    snprintf(m.source_file, sizeof m.source_file, "%s.c", name);
    snprintf(m.binary_file, sizeof m.binary_file, "%s.so", name);
    m.source_bytes = (long long)req->source_len;
    m.binary_bytes = (long long)bin_len;
    op2_hash_hex64(req->source, req->source_len, m.source_xxh3);
    op2_utc_now(m.created, sizeof m.created);
    m.compile_ms = res->compile_ms;
    m.signature = req->signature;
    /* The manifest goes last: an entry without one is never loaded. */
    if (op2_manifest_write(man_path, &m, res->why, sizeof res->why) != 0) res->manifest_failed = 1;
  }
  if (!req->keep) { /* a private build directory: the loaded object stays mapped */
    remove_entry_files(entry, name);
    free(res->source_path);
    res->source_path = NULL;
  }
  return res->status = OP2_BUILD_OK;
}

void op2_build_result_clear(op2_build_result *res) {
  free(res->log);
  free(res->source_path);
  res->log = res->source_path = NULL;
}
