/* Obtaining compiled CUDA kernels. Generated source -> key -> disk cache entry -> compiler, as for
 * C kernels (jit.c), with the same safety rules: an entry is used only if its directory and files
 * belong to this user, nobody else may write them, and the manifest's sizes and hashes match.
 *   cuda:     ROOT/NAME-HASH16/{NAME.cu, NAME.cubin, NAME.ptx, manifest.json}, built by NVRTC for
 *             one architecture (the key covers NVRTC's version and every option).
 *   cuda-emu: the same .cu text as C (emulation header before, entry point after) in an ordinary
 *             C entry {NAME.c, NAME.so}, built by the system compiler or TinyCC. */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jit.h"
#include "../runtime/cuda/cuda.h"

void op2_cuda_binary_clear(op2_cuda_binary *b) {
  free(b->image);
  free(b->ptx);
  free(b->source_path);
  memset(b, 0, sizeof *b);
}

/* Whether a new build may go into `entry`: cache on, this rank writes for its node, and the
 * directory is absent or ours and private. */
static int may_write_entry(op2_context *ctx, const char *entry) {
  struct stat st;
  return ctx->opt.cache_mode == OP2_CACHE_ON && ctx->mpi.node_rank == 0 &&
         (lstat(entry, &st) != 0 ||
          (S_ISDIR(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & (S_IWGRP | S_IWOTH))));
}

/* Regular, ours, writable by nobody else: then read. */
static int read_owned(const char *path, char **data, size_t *len, char *why, size_t whylen) {
  struct stat st;
  if (lstat(path, &st) != 0) return snprintf(why, whylen, "%s is missing", path), -1;
  if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
    return snprintf(why, whylen, "%s is not a regular file", path), -1;
  if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)))
    return snprintf(why, whylen, "%s is not private to this user", path), -1;
  if (!data) return 0;
  if (!S_ISREG(st.st_mode)) return snprintf(why, whylen, "%s is not a regular file", path), -1;
  if (op2_read_file(path, data, len) != 0) return snprintf(why, whylen, "cannot read %s", path), -1;
  return 0;
}

/* 0: the entry is sound and *cubin holds its binary; 1: no entry; -1: refused (why). */
static int verify_cubin_entry(const char *entry, const char *name, const op2_cache_key *key,
                              const op2_generated *gen, char **cubin, size_t *cubin_len, char *why,
                              size_t whylen) {
  struct stat st;
  char path[4400];
  if (lstat(entry, &st) != 0) return snprintf(why, whylen, "no entry"), 1;
  if (!S_ISDIR(st.st_mode)) return snprintf(why, whylen, "%s is not a directory", entry), -1;
  if (read_owned(entry, NULL, NULL, why, whylen) != 0) return -1;
  snprintf(path, sizeof path, "%s/manifest.json", entry);
  if (read_owned(path, NULL, NULL, why, whylen) != 0) return -1;
  op2_manifest m;
  if (op2_manifest_read(path, &m, why, whylen) != 0) return -1;
  char want_bin[300], want_src[300], hex[17];
  snprintf(want_bin, sizeof want_bin, "%s.cubin", name);
  snprintf(want_src, sizeof want_src, "%s.cu", name);
  if (strcmp(m.key, key->hex) != 0 || strcmp(m.loop, name) != 0 || strcmp(m.target, "cuda") ||
      strcmp(m.binary_file, want_bin) != 0 || strcmp(m.source_file, want_src) != 0)
    return snprintf(why, whylen, "%s describes another kernel", path), -1;
  op2_hash_hex64(gen->source.data, gen->source.len, hex);
  if (m.source_bytes != (long long)gen->source.len || strcmp(hex, m.source_xxh3) != 0)
    return snprintf(why, whylen, "%s was written for different source", path), -1;
  char *text;
  size_t text_len;
  snprintf(path, sizeof path, "%s/%s", entry, want_src);
  if (read_owned(path, &text, &text_len, why, whylen) != 0) return -1;
  int same = text_len == gen->source.len && memcmp(text, gen->source.data, text_len) == 0;
  free(text);
  if (!same) return snprintf(why, whylen, "%s is not the source of the cached kernel", path), -1;
  snprintf(path, sizeof path, "%s/%s", entry, want_bin);
  if (read_owned(path, cubin, cubin_len, why, whylen) != 0) return -1;
  op2_hash_hex64(*cubin, *cubin_len, hex);
  if ((long long)*cubin_len != m.binary_bytes || strcmp(hex, m.binary_xxh3) != 0) {
    free(*cubin);
    *cubin = NULL;
    return snprintf(why, whylen, "%s does not match its manifest", path), -1;
  }
  return 0;
}

/* Source and PTX first, binary next, manifest last: an entry without a manifest is never used. */
static int store_cubin_entry(const char *entry, const char *name, const op2_cache_key *key,
                             const char *flags, const op2_generated *gen, const char *cubin,
                             size_t cubin_len, const char *ptx, size_t ptx_len, double ms,
                             char **source_path, char *why, size_t whylen) {
  char path[4400];
  if (mkdir(entry, 0700) != 0 && errno != EEXIST)
    return snprintf(why, whylen, "cannot create %s: %s", entry, strerror(errno)), -1;
  snprintf(path, sizeof path, "%s/%s.cu", entry, name);
  if (op2_write_file_atomic(path, gen->source.data, gen->source.len, why, whylen) != 0) return -1;
  *source_path = strdup(path);
  snprintf(path, sizeof path, "%s/%s.ptx", entry, name);
  if (op2_write_file_atomic(path, ptx, ptx_len, why, whylen) != 0) return -1;
  snprintf(path, sizeof path, "%s/%s.cubin", entry, name);
  if (op2_write_file_atomic(path, cubin, cubin_len, why, whylen) != 0) return -1;
  op2_manifest m = {0};
  snprintf(m.loop, sizeof m.loop, "%s", name);
  snprintf(m.key, sizeof m.key, "%s", key->hex);
  snprintf(m.target, sizeof m.target, "cuda");
  op2_nvrtc_identity(m.compiler, sizeof m.compiler);
  snprintf(m.flags, sizeof m.flags, "%s", flags);
  snprintf(m.source_file, sizeof m.source_file, "%s.cu", name);
  snprintf(m.binary_file, sizeof m.binary_file, "%s.cubin", name);
  m.source_bytes = (long long)gen->source.len;
  m.binary_bytes = (long long)cubin_len;
  op2_hash_hex64(gen->source.data, gen->source.len, m.source_xxh3);
  op2_hash_hex64(cubin, cubin_len, m.binary_xxh3);
  op2_utc_now(m.created, sizeof m.created);
  m.compile_ms = ms;
  m.signature = gen->signature.data;
  snprintf(path, sizeof path, "%s/manifest.json", entry);
  return op2_manifest_write(path, &m, why, whylen);
}

/* Leaves the generated source where the user can read it when the cache holds no copy. */
static char *keep_source(const char *name, const op2_cache_key *key, const op2_buf *src,
                         const char *ext) {
  const char *tmpdir = getenv("TMPDIR");
  char path[4096], why[256];
  snprintf(path, sizeof path, "%s/op2-%s-%.16s.%s", tmpdir && *tmpdir ? tmpdir : "/tmp", name,
           key->hex, ext);
  if (op2_write_file_atomic(path, src->data, src->len, why, sizeof why) != 0) return NULL;
  return strdup(path);
}

int op2_cuda_obtain_cubin(op2_context *ctx, op2_jit_counters *cnt, const char *name,
                          const op2_generated *gen, const char *arch, int want_ptx,
                          op2_cuda_binary *out) {
  memset(out, 0, sizeof *out);
  char flags[128], why[600] = "", entry[4400] = "";
  snprintf(flags, sizeof flags, "-arch=%s -default-device --fmad=false -std=c++17", arch);
  op2_cache_key key;
  char nvrtc[64];
  op2_nvrtc_identity(nvrtc, sizeof nvrtc);
  op2_cache_key_make(gen->source.data, gen->source.len, nvrtc, flags, &key);
  const char *root = op2_jit_cache_root(ctx);
  if (root) {
    op2_cache_entry_dir(root, name, &key, entry, sizeof entry);
    int rc = verify_cubin_entry(entry, name, &key, gen, &out->image, &out->len, why, sizeof why);
    if (rc == 0) {
      cnt->disk_hits++;
      out->from_disk = 1;
      char src[4500];
      snprintf(src, sizeof src, "%s/%s.cu", entry, name);
      out->source_path = strdup(src);
      snprintf(src, sizeof src, "%s/%s.ptx", entry, name);
      if (want_ptx && read_owned(src, &out->ptx, &out->ptx_len, why, sizeof why) != 0) {
        op2_cuda_binary_clear(out);
        return op2_error(OP2_ERR_JIT, "kernel cache: %s", why);
      }
      return OP2_OK;
    }
    if (rc < 0) {
      cnt->disk_rejects++;
      op2_diag(1, "kernel cache: cuda entry for loop '%s' refused (%s); building it again", name,
               why);
    }
  }
  char *ptx = NULL, *log = NULL;
  size_t ptx_len = 0;
  double t0 = op2_wall_seconds();
  int rc = op2_nvrtc_compile(gen->source.data, gen->source.len, name, arch, &out->image, &out->len,
                             &ptx, &ptx_len, &log);
  out->compile_ms = 1e3 * (op2_wall_seconds() - t0);
  if (rc != OP2_OK) {
    char *path = keep_source(name, &key, &gen->source, "cu");
    int err = op2_error(OP2_ERR_JIT,
                        "op_par_loop '%s': the CUDA kernel does not compile for %s "
                        "(generated source: %s)\n%s",
                        name, arch, path ? path : "(could not be written)", log ? log : "");
    free(path), free(log), free(ptx);
    op2_cuda_binary_clear(out);
    return err;
  }
  cnt->compiles++;
  if (root && may_write_entry(ctx, entry) &&
      store_cubin_entry(entry, name, &key, flags, gen, out->image, out->len, ptx, ptx_len,
                        out->compile_ms, &out->source_path, why, sizeof why) != 0) {
    cnt->store_failures++;
    op2_diag(1, "kernel cache: %s", why);
  }
  if (log && *log && ctx->opt.diags >= 2)
    fprintf(stderr, "op2: NVRTC messages for loop '%s':\n%s", name, log);
  free(log);
  if (want_ptx)
    out->ptx = ptx, out->ptx_len = ptx_len;
  else
    free(ptx);
  return OP2_OK;
}

/* ---- the emulator's C build ---- */

void op2_cuda_emu_build_release(op2_cuda_emu_build *b) {
  if (b->dl_handle) dlclose(b->dl_handle);
  op2_tcc_release(b->tcc_state);
  memset(b, 0, sizeof *b);
}

static int emu_source(op2_context *ctx, const op2_generated *gen, op2_buf *src) {
  const char *names[] = {"c/prelude.h", "cuda/emu_env.h", "cuda/emu.h", NULL, "cuda/emu_entry.c"};
  memset(src, 0, sizeof *src);
  for (int i = 0; i < 5; i++) {
    if (!names[i]) {
      op2_buf_append(src, gen->source.data, gen->source.len);
      continue;
    }
    char *t = op2_template_load(ctx, names[i]);
    if (!t) return op2_buf_free(src), OP2_ERR_JIT;
    op2_buf_append(src, t, strlen(t));
    free(t);
  }
  return src->failed ? (op2_buf_free(src), op2_error(OP2_ERR_MEM, "out of memory")) : OP2_OK;
}

static int emu_failed(const char *name, const op2_cache_key *key, const op2_buf *src,
                      const char *source_path, const char *log) {
  char *kept = source_path ? NULL : keep_source(name, key, src, "c");
  int err = op2_error(OP2_ERR_JIT,
                      "op_par_loop '%s': the emulated CUDA kernel does not compile "
                      "(source: %s)\n%s",
                      name,
                      source_path ? source_path
                      : kept      ? kept
                                  : "(could not be written)",
                      log);
  free(kept);
  return err;
}

int op2_cuda_obtain_emu(op2_context *ctx, op2_jit_counters *cnt, const char *name,
                        const op2_generated *gen, int use_tcc, op2_cuda_emu_build *out) {
  memset(out, 0, sizeof *out);
  op2_tier tier;
  /* gcc -O2 code runs the emulation several times faster than TinyCC's; -ffp-contract=off keeps
   * the arithmetic the CPU backends' (no fused multiply-adds). */
  if (use_tcc || op2_cc_tier(ctx->opt.cc, "-O2 -ffp-contract=off -fPIC -shared -w", &tier) != 0)
    op2_tcc_tier(&tier);
  op2_buf src;
  OP2_CALL(emu_source(ctx, gen, &src));
  op2_cache_key key;
  op2_cache_key_make(src.data, src.len, tier.identity, tier.flags, &key);
  const char *root = op2_jit_cache_root(ctx);
  char entry[4400] = "", so_path[4400], why[600];
  if (root) {
    op2_cache_entry_dir(root, name, &key, entry, sizeof entry);
    int rc = op2_cache_verify(entry, name, &key, src.data, src.len, so_path, sizeof so_path, why,
                              sizeof why);
    if (rc == 0 &&
        op2_load_shared_object(so_path, &out->dl_handle, &out->entry, why, sizeof why) == 0) {
      cnt->disk_hits++;
      out->from_disk = 1;
      op2_buf_free(&src);
      return OP2_OK;
    }
    if (rc != 1) {
      cnt->disk_rejects++;
      op2_diag(1, "kernel cache: cuda-emu entry for loop '%s' refused (%s); building it again",
               name, why);
    }
  }
  int keep = root && may_write_entry(ctx, entry);
  int rc = OP2_OK;
  if (!keep && strcmp(tier.name, "tcc") == 0) { /* TinyCC needs no files */
    char *log = NULL;
    double t0 = op2_wall_seconds();
    if (op2_tcc_compile(src.data, NULL, &out->tcc_state, &out->entry, &log) != OP2_OK)
      rc = emu_failed(name, &key, &src, NULL, log ? log : "");
    out->compile_ms = 1e3 * (op2_wall_seconds() - t0);
    free(log);
  } else {
    op2_build_request req = {.tier = &tier,
                             .name = name,
                             .target = "cuda-emu",
                             .signature = gen->signature.data,
                             .source = src.data,
                             .source_len = src.len,
                             .key = key,
                             .keep = keep};
    const char *tmpdir = getenv("TMPDIR");
    if (keep)
      snprintf(req.entry, sizeof req.entry, "%s", entry);
    else
      snprintf(req.entry, sizeof req.entry, "%s/op2-build-XXXXXX",
               tmpdir && *tmpdir ? tmpdir : "/tmp");
    op2_build_result res;
    if (!keep && !mkdtemp(req.entry)) {
      rc = op2_error(OP2_ERR_IO, "op_par_loop '%s': cannot create a build directory", name);
    } else {
      int st = op2_build_into_entry(&req, &res);
      if (st == OP2_BUILD_OK) {
        out->dl_handle = res.handle;
        out->entry = res.fn;
        out->compile_ms = res.compile_ms;
        if (res.manifest_failed) cnt->store_failures++;
      } else {
        rc = emu_failed(name, &key, &src, res.source_path, res.log ? res.log : res.why);
      }
      op2_build_result_clear(&res);
    }
  }
  if (rc == OP2_OK) cnt->compiles++;
  op2_buf_free(&src);
  return rc;
}
