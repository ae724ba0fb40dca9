/* The JIT driver: generate the source, then take the kernel from this process's table, from the
 * disk cache (verified), or compile it with TinyCC and store it for the next process. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jit.h"

void op2_kernel_free(op2_kernel *k) {
  if (!k) return;
  if (k->dl_handle) dlclose(k->dl_handle);
  op2_tcc_release(k->tcc_state);
  free(k->name);
  free(k->source_path);
  free(k);
}

static int load_shared_object(op2_kernel *k, const char *so_path, char *why, size_t whylen) {
  void *h = dlopen(so_path, RTLD_NOW | RTLD_LOCAL);
  if (!h) return snprintf(why, whylen, "dlopen %s: %s", so_path, dlerror()), -1;
  op2_kernel_fn fn = (op2_kernel_fn)dlsym(h, "op2_loop");
  if (!fn) {
    dlclose(h);
    return snprintf(why, whylen, "%s has no op2_loop symbol", so_path), -1;
  }
  k->dl_handle = h;
  k->fn = fn;
  return 0;
}

/* Leaves the generated source where the user can read it when the cache did not keep it. */
static char *keep_failed_source(const char *name, const op2_cache_key *key, const op2_buf *src) {
  const char *tmpdir = getenv("TMPDIR");
  char path[4096], why[256];
  snprintf(path, sizeof path, "%s/op2-%s-%.16s.c", tmpdir && *tmpdir ? tmpdir : "/tmp", name,
           key->hex);
  if (op2_write_file_atomic(path, src->data, src->len, why, sizeof why) != 0) return NULL;
  return strdup(path);
}

static void utc_now(char *out, size_t len) {
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Compiles into the cache entry and loads from there. Returns 0 when loaded, 1 when the entry
 * could not be written (the caller compiles in memory), -1 on a compile error (log is set). */
static int compile_into_cache(op2_context *ctx, op2_kernel *k, const char *entry,
                              const op2_generated *gen, const op2_cache_key *key, char **log) {
  char src_path[4400], so_path[4400], tmp_so[4500], man_path[4400], why[512];
  snprintf(src_path, sizeof src_path, "%s/%s.c", entry, k->name);
  snprintf(so_path, sizeof so_path, "%s/%s.so", entry, k->name);
  snprintf(tmp_so, sizeof tmp_so, "%s.tmp%d", so_path, (int)getpid());
  snprintf(man_path, sizeof man_path, "%s/manifest.json", entry);
  if (mkdir(entry, 0700) != 0 && errno != EEXIST) {
    op2_diag(1, "kernel cache: cannot create %s: %s", entry, strerror(errno));
    return 1;
  }
  if (op2_write_file_atomic(src_path, gen->source.data, gen->source.len, why, sizeof why) != 0) {
    op2_diag(1, "kernel cache: %s", why);
    return 1;
  }
  k->source_path = strdup(src_path);
  double t0 = op2_wall_seconds();
  if (op2_tcc_compile(gen->source.data, tmp_so, NULL, NULL, log) != OP2_OK) {
    unlink(tmp_so);
    return -1;
  }
  k->compile_ms = 1e3 * (op2_wall_seconds() - t0);
  ctx->jit.compiles++;
  char *bin;
  size_t bin_len;
  op2_manifest m = {0};
  int ok = op2_read_file(tmp_so, &bin, &bin_len) == 0;
  if (ok) {
    op2_hash_hex64(bin, bin_len, m.binary_xxh3);
    free(bin);
    ok = rename(tmp_so, so_path) == 0;
  }
  if (!ok) {
    unlink(tmp_so);
    op2_diag(1, "kernel cache: cannot store %s", so_path);
    return 1;
  }
  snprintf(m.loop, sizeof m.loop, "%s", k->name);
  snprintf(m.key, sizeof m.key, "%s", key->hex);
  snprintf(m.target, sizeof m.target, "%s", ctx->backend->target);
  snprintf(m.compiler, sizeof m.compiler, "%s", op2_tcc_identity());
  snprintf(m.flags, sizeof m.flags, "%s", op2_tcc_flags());
  snprintf(m.source_file, sizeof m.source_file, "%s.c", k->name);
  snprintf(m.binary_file, sizeof m.binary_file, "%s.so", k->name);
  m.source_bytes = (long long)gen->source.len;
  m.binary_bytes = (long long)bin_len;
  op2_hash_hex64(gen->source.data, gen->source.len, m.source_xxh3);
  utc_now(m.created, sizeof m.created);
  m.compile_ms = k->compile_ms;
  m.signature = gen->signature.data;
  /* The manifest goes last: an entry without one is never loaded. */
  if (op2_manifest_write(man_path, &m, why, sizeof why) != 0) {
    op2_diag(1, "kernel cache: %s", why);
    ctx->jit.store_failures++;
  }
  if (load_shared_object(k, so_path, why, sizeof why) != 0) {
    op2_diag(1, "kernel cache: %s", why);
    return 1;
  }
  return 0;
}

/* 0 loaded from the cache; 1 not there (entry_writable tells whether we may write it). */
static int load_from_cache(op2_context *ctx, op2_kernel *k, const char *entry,
                           const op2_generated *gen, const op2_cache_key *key,
                           int *entry_writable) {
  char so_path[4400], why[600];
  int rc = op2_cache_verify(entry, k->name, key, gen->source.data, gen->source.len, so_path,
                            sizeof so_path, why, sizeof why);
  if (rc == 0 && load_shared_object(k, so_path, why, sizeof why) == 0) {
    ctx->jit.disk_hits++;
    if (ctx->opt.cache_mode == OP2_CACHE_ON) utimensat(AT_FDCWD, entry, NULL, 0);
    char src[4400];
    snprintf(src, sizeof src, "%s/%s.c", entry, k->name);
    k->source_path = strdup(src);
    return 0;
  }
  if (rc != 1) {
    ctx->jit.disk_rejects++;
    op2_diag(1, "kernel cache: entry for loop '%s' refused (%s); compiling again", k->name, why);
  }
  struct stat st;
  *entry_writable = lstat(entry, &st) != 0 ||
                    (S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
                     !(st.st_mode & (S_IWGRP | S_IWOTH)));
  return 1;
}

static int compile_failed(const op2_loop *loop, op2_kernel *k, const op2_cache_key *key,
                          const op2_generated *gen, const char *log) {
  if (!k->source_path) k->source_path = keep_failed_source(k->name, key, &gen->source);
  return op2_error(OP2_ERR_JIT,
                   "op_par_loop '%s': the kernel does not compile (generated source: %s)\n%s",
                   loop->name, k->source_path ? k->source_path : "(could not be written)", log);
}

static int obtain_kernel(op2_context *ctx, const op2_loop *loop, op2_kernel *k,
                         const op2_generated *gen, const op2_cache_key *key) {
  char root_why[600], entry[4400];
  const char *root = ctx->opt.cache_dir;
  int mode = ctx->opt.cache_mode, writable = 0, rc = 1;
  char *log = NULL;
  if (mode != OP2_CACHE_OFF &&
      op2_cache_root_usable(root, mode == OP2_CACHE_ON, root_why, sizeof root_why) != 0) {
    op2_diag(1, "kernel cache not used: %s", root_why);
    mode = OP2_CACHE_OFF;
  }
  if (mode != OP2_CACHE_OFF) {
    op2_cache_entry_dir(root, k->name, key, entry, sizeof entry);
    if (load_from_cache(ctx, k, entry, gen, key, &writable) == 0) {
      k->origin = OP2_FROM_DISK;
      return OP2_OK;
    }
    if (mode == OP2_CACHE_ON && writable) rc = compile_into_cache(ctx, k, entry, gen, key, &log);
  }
  if (rc < 0) {
    int err = compile_failed(loop, k, key, gen, log);
    free(log);
    return err;
  }
  if (rc == 1) {
    free(log);
    log = NULL;
    double t0 = op2_wall_seconds();
    if (op2_tcc_compile(gen->source.data, NULL, &k->tcc_state, &k->fn, &log) != OP2_OK) {
      int err = compile_failed(loop, k, key, gen, log);
      free(log);
      return err;
    }
    k->compile_ms = 1e3 * (op2_wall_seconds() - t0);
    ctx->jit.compiles++;
  }
  if (log && *log && ctx->opt.diags >= 1)
    fprintf(stderr, "op2: compiler messages for loop '%s':\n%s", loop->name, log);
  free(log);
  k->origin = OP2_FROM_COMPILE;
  return OP2_OK;
}

int op2_jit_kernel(op2_context *ctx, const op2_loop *loop, const char *kernel_src,
                   op2_kernel **out) {
  double t0 = op2_wall_seconds();
  op2_generated gen;
  OP2_CALL(op2_codegen_c(ctx, loop, kernel_src, &gen));
  op2_cache_key key;
  op2_cache_key_make(gen.source.data, gen.source.len, op2_tcc_identity(), op2_tcc_flags(), &key);
  for (int i = 0; i < ctx->kernels.count; i++) {
    op2_kernel *k = ctx->kernels.items[i];
    if (k->key_hi == key.hi && k->key_lo == key.lo) {
      op2_buf_free(&gen.source), op2_buf_free(&gen.signature);
      *out = k;
      return OP2_OK;
    }
  }
  op2_kernel *k = calloc(1, sizeof *k);
  if (!k || !(k->name = strdup(loop->name))) {
    free(k);
    op2_buf_free(&gen.source), op2_buf_free(&gen.signature);
    return op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory", loop->name);
  }
  k->key_hi = key.hi;
  k->key_lo = key.lo;
  int rc = obtain_kernel(ctx, loop, k, &gen, &key);
  op2_buf_free(&gen.source), op2_buf_free(&gen.signature);
  if (rc == OP2_OK) rc = op2_list_push(&ctx->kernels, k);
  if (rc != OP2_OK) {
    op2_kernel_free(k);
    return rc;
  }
  k->load_ms = 1e3 * (op2_wall_seconds() - t0);
  if (k->origin == OP2_FROM_DISK) loop->stats->kernels_from_disk++;
  else loop->stats->kernels_compiled++;
  op2_diag(2, "kernel '%s': %s in %.2f ms (%s)", k->name,
           k->origin == OP2_FROM_DISK ? "loaded from disk cache" : "compiled", k->load_ms,
           k->source_path ? k->source_path : "not cached");
  *out = k;
  return OP2_OK;
}
