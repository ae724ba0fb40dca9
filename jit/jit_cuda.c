/* SPDX-License-Identifier: BSD-3-Clause */
/* Obtaining compiled CUDA kernels. Generated source -> key -> disk cache entry -> compiler, as for
 * C kernels (jit.c), with the same safety rules: an entry is used only if its directory and files
 * belong to this user, nobody else may write them, and the manifest's sizes and hashes match.
 *   cuda:     ROOT/NAME-HASH16/{NAME.cu, NAME.cubin, NAME.ptx, manifest.json}, built by NVRTC for
 *             one architecture (the key covers NVRTC's version and every option).
 *   cuda-emu: the same .cu text as C (emulation header before, entry point after) in an ordinary
 *             C entry {NAME.c, NAME.so}, built by the system compiler or TinyCC. */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit_internal.h"
#include "jit_cuda.h"

void op2_cuda_binary_clear(op2_cuda_binary *b) {
  free(b->image);
  free(b->ptx);
  free(b->source_path);
  memset(b, 0, sizeof *b);
}

/* Source and PTX first, binary next, manifest last, under the entry's build lock: an entry
 * without a manifest is never used, and one that cannot be completed is removed. */
static int store_cubin_entry(const char *entry, const char *name, const op2_cache_key *key,
                             const op2_nvrtc_options *o, const op2_generated *gen,
                             const char *cubin, size_t cubin_len, const char *ptx, size_t ptx_len,
                             double ms, const char *resources, char **source_path,
                             op2_jit_error *err) {
  const op2_target *t = op2_target_of(OP2_TARGET_CUDA);
  op2_entry e;
  char src[300], bin[300], ptx_file[300];
  snprintf(src, sizeof src, "%s.%s", name, t->src_ext);
  snprintf(bin, sizeof bin, "%s.%s", name, t->bin_ext);
  snprintf(ptx_file, sizeof ptx_file, "%s.%s", name, t->extra_ext);
  int rc = op2_entry_open(AT_FDCWD, entry, 1, &e, err);
  if (rc != OP2_OK) return rc;
  if (op2_entry_try_lock(&e) != 0) { /* another process stores it */
    op2_entry_close(&e);
    return OP2_OK;
  }
  op2_manifest m = {0};
  snprintf(m.loop, sizeof m.loop, "%s", name);
  snprintf(m.key, sizeof m.key, "%s", key->hex);
  snprintf(m.target, sizeof m.target, "%s", t->name);
  op2_nvrtc_identity(m.compiler, sizeof m.compiler);
  snprintf(m.flags, sizeof m.flags, "%s", o->text);
  snprintf(m.source_file, sizeof m.source_file, "%s", src);
  snprintf(m.binary_file, sizeof m.binary_file, "%s", bin);
  m.source_bytes = (long long)gen->source.len;
  m.binary_bytes = (long long)cubin_len;
  op2_hash_hex64(gen->source.data, gen->source.len, m.source_xxh3);
  op2_hash_hex64(cubin, cubin_len, m.binary_xxh3);
  op2_utc_now(m.created, sizeof m.created);
  m.compile_ms = ms;
  snprintf(m.resources, sizeof m.resources, "%s", resources);
  m.signature = gen->signature.data;
  rc = op2_entry_write(&e, src, gen->source.data, gen->source.len, err);
  if (rc == OP2_OK) rc = op2_entry_write(&e, ptx_file, ptx, ptx_len, err);
  if (rc == OP2_OK) rc = op2_entry_write(&e, bin, cubin, cubin_len, err);
  if (rc == OP2_OK) rc = op2_entry_write_manifest(&e, &m, err);
  if (rc == OP2_OK) {
    char path[OP2_PATH_BUF];
    snprintf(path, sizeof path, "%s/%s", entry, src);
    *source_path = strdup(path);
  } else {
    op2_entry_remove(&e, name, 0, NULL, NULL);
  }
  op2_entry_close(&e);
  return rc;
}

int op2_cuda_obtain_cubin(op2_jit *jit, op2_jit_counters *cnt, const char *ptxas, const char *name,
                          const op2_generated *gen, const char *arch, int want_ptx,
                          op2_cuda_binary *out) {
  memset(out, 0, sizeof *out);
  const op2_target *t = op2_target_of(OP2_TARGET_CUDA);
  char entry[OP2_PATH_BUF] = "";
  op2_jit_error why = {.code = OP2_OK};
  op2_nvrtc_options opts;
  op2_nvrtc_options_for(arch, &opts);
  op2_cache_key key;
  char nvrtc[64];
  op2_nvrtc_identity(nvrtc, sizeof nvrtc);
  op2_cache_key_make(gen->source.data, gen->source.len, nvrtc, opts.text, &key);
  const char *root = op2_jit_cache_root(jit);
  if (root) {
    op2_cache_entry_dir(root, name, &key, entry, sizeof entry);
    const op2_entry_expect ex = {.name = name,
                                 .key = key.hex,
                                 .target = t->name,
                                 .bin_ext = t->bin_ext,
                                 .src_ext = t->src_ext,
                                 .source = gen->source.data,
                                 .source_len = gen->source.len};
    op2_entry_verified v;
    int rc = op2_jit_entry_lookup(jit, entry, &ex, &v, &why);
    if (rc == OP2_OK && want_ptx) { /* the PTX is read from the directory that was verified */
      op2_entry e;
      char ptx[300];
      snprintf(ptx, sizeof ptx, "%s.%s", name, t->extra_ext);
      rc = op2_entry_open(AT_FDCWD, entry, 0, &e, &why);
      if (rc == OP2_OK) rc = op2_entry_read(&e, ptx, &out->ptx, &out->ptx_len, &why);
      if (rc == OP2_ENTRY_ABSENT) rc = OP2_ERR_IO; /* removed since: refused, as before */
      op2_entry_close(&e);
    }
    if (rc == OP2_OK) {
      cnt->disk_hits++;
      out->from_disk = 1;
      out->image = v.binary, out->len = v.binary_len;
      v.binary = NULL;
      op2_entry_verified_clear(&v);
      char src[OP2_PATH_BUF];
      snprintf(src, sizeof src, "%s/%s.%s", entry, name, t->src_ext);
      out->source_path = strdup(src);
      return OP2_OK;
    }
    op2_entry_verified_clear(&v);
    free(out->ptx);
    out->ptx = NULL;
    if (rc != OP2_ENTRY_ABSENT) {
      cnt->disk_rejects++;
      op2_jit_diag(jit, 1, "kernel cache: cuda entry for loop '%s' refused (%s); building it again",
                   name, why.msg);
    }
  }
  char *ptx = NULL, *log = NULL;
  size_t ptx_len = 0;
  double t0 = op2_wall_seconds();
  int rc = op2_nvrtc_compile(gen->source.data, gen->source.len, name, &opts, &out->image, &out->len,
                             &ptx, &ptx_len, &log);
  out->compile_ms = 1e3 * (op2_wall_seconds() - t0);
  if (rc != OP2_OK) {
    char *path = op2_keep_failed_source(name, &key, gen->source.data, gen->source.len, t->src_ext);
    int err = op2_jit_fail(jit, OP2_ERR_JIT,
                           "op_par_loop '%s': the CUDA kernel does not compile for %s "
                           "(generated source: %s)\n%s",
                           name, arch, path ? path : "(could not be written)", log ? log : "");
    free(path), free(log), free(ptx);
    op2_cuda_binary_clear(out);
    return err;
  }
  cnt->compiles++;
  /* Registers, spills and static shared memory, where a ptxas is at hand (OP2_CUDA_PTXAS):
   * NVRTC does not report them, and no driver here loads the CUBIN to ask. */
  char resources[300] = "";
  if (ptxas && ptxas[0]) {
    char *plog = NULL;
    if (op2_ptxas_check(ptxas, ptx, ptx_len, arch, jit->cfg.compile_timeout, &plog) == 0)
      op2_ptxas_resources(plog, arch, resources, sizeof resources);
    free(plog);
  }
  if (root && op2_jit_may_write(jit, entry) &&
      store_cubin_entry(entry, name, &key, &opts, gen, out->image, out->len, ptx, ptx_len,
                        out->compile_ms, resources, &out->source_path, &why) != OP2_OK) {
    op2_jit_cache_unwritable(jit, cnt, why.msg);
  }
  if (log && *log) { /* to the caller's diagnostics, which decide who prints (one rank) */
    int n = (int)strlen(log);
    op2_jit_diag(jit, 2, "NVRTC messages for loop '%s':\n%.*s", name, n - (log[n - 1] == '\n'),
                 log);
  }
  free(log);
  if (want_ptx)
    out->ptx = ptx, out->ptx_len = ptx_len;
  else
    free(ptx);
  return OP2_OK;
}

/* ---- the emulator's C build ---- */

void op2_cuda_emu_build_release(op2_cuda_emu_build *b) {
  op2_object_close(b->dl_handle);
  memset(b, 0, sizeof *b);
}

static int emu_source(op2_jit *jit, const op2_generated *gen, op2_buf *src) {
  const char *names[] = {"c/prelude.h", "cuda/emu_env.h", "cuda/emu.h", NULL, "cuda/emu_entry.c"};
  memset(src, 0, sizeof *src);
  for (int i = 0; i < 5; i++) {
    if (!names[i]) {
      op2_buf_append(src, gen->source.data, gen->source.len);
      continue;
    }
    char *t = op2_template_load(jit, names[i]);
    if (!t) return op2_buf_free(src), OP2_ERR_JIT;
    op2_buf_append(src, t, strlen(t));
    free(t);
  }
  return src->failed ? (op2_buf_free(src), op2_jit_fail(jit, OP2_ERR_MEM, "out of memory"))
                     : OP2_OK;
}

static int emu_failed(op2_jit *jit, const char *name, const op2_cache_key *key, const op2_buf *src,
                      const char *source_path, const char *log) {
  char *kept = source_path ? NULL : op2_keep_failed_source(name, key, src->data, src->len, "c");
  int err = op2_jit_fail(jit, OP2_ERR_JIT,
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

/* One attempt with `tier`: the disk entry, else a compile. 0 ready; 1 the compiler rejected the
 * source (*log, *source_path: its messages and where the source was kept, malloc'ed). */
static int emu_attempt(op2_jit *jit, op2_jit_counters *cnt, const char *name,
                       const op2_generated *gen, const op2_buf *src, const op2_tier *tier,
                       op2_cuda_emu_build *out, op2_cache_key *key, char **log,
                       char **source_path) {
  op2_cache_key_make(src->data, src->len, tier->identity, tier->flags, key);
  const char *root = op2_jit_cache_root(jit);
  char entry[OP2_PATH_BUF] = "";
  op2_jit_error why;
  if (root) {
    op2_cache_entry_dir(root, name, key, entry, sizeof entry);
    int rc = op2_jit_load_entry(jit, entry, name, key, src->data, src->len, &out->dl_handle,
                                &out->entry, &why);
    if (rc == OP2_OK) {
      cnt->disk_hits++;
      out->from_disk = 1;
      return 0;
    }
    if (rc != OP2_ENTRY_ABSENT) {
      cnt->disk_rejects++;
      op2_jit_diag(jit, 1,
                   "kernel cache: cuda-emu entry for loop '%s' refused (%s); building it again",
                   name, why.msg);
    }
  }
  int keep = root && op2_jit_may_write(jit, entry);
  if (!keep && strcmp(tier->name, "tcc") == 0) { /* TinyCC needs no files */
    double t0 = op2_wall_seconds();
    int rc = op2_tcc_compile_memory(src->data, jit->loaded, &out->dl_handle, &out->entry, log);
    out->tcc_memory = rc == OP2_OK;
    out->compile_ms = 1e3 * (op2_wall_seconds() - t0);
    if (rc != OP2_OK && !*log) *log = strdup("");
    return rc == OP2_OK ? 0 : 1;
  }
  op2_build_request req = {.tier = tier,
                           .name = name,
                           .target = op2_target_of(OP2_TARGET_CUDA_EMU)->name,
                           .signature = gen->signature.data,
                           .source = src->data,
                           .source_len = src->len,
                           .key = *key,
                           .keep = keep,
                           .known = jit->loaded,
                           .wait_ms = op2_entry_wait_ms(jit->cfg.compile_timeout)};
  snprintf(req.entry, sizeof req.entry, "%s", entry);
  op2_build_result res;
  int st = op2_build_into_entry(&req, &res);
  if (st == OP2_BUILD_OK) {
    out->dl_handle = res.handle;
    out->entry = res.fn;
    out->compile_ms = res.compile_ms;
    if (res.not_stored) op2_jit_cache_unwritable(jit, cnt, res.why.msg);
  } else {
    *log = res.log ? res.log : strdup(res.why.msg);
    res.log = NULL;
    *source_path = res.source_path;
    res.source_path = NULL;
  }
  op2_build_result_clear(&res);
  return st == OP2_BUILD_OK ? 0 : 1;
}

int op2_cuda_obtain_emu(op2_jit *jit, op2_jit_counters *cnt, const char *name,
                        const op2_generated *gen, int use_tcc, op2_cuda_emu_build *out) {
  memset(out, 0, sizeof *out);
  op2_tier tier;
  /* gcc -O2 code runs the emulation several times faster than TinyCC's; -ffp-contract=off keeps
   * the arithmetic the CPU backends' (no fused multiply-adds). */
  const char *flags = "-O2 -ffp-contract=off -fPIC -shared -w";
  if (use_tcc || op2_cc_tier(jit->cfg.cc, flags, jit->cfg.compile_timeout, &tier) != 0)
    op2_tcc_tier(&tier);
  op2_buf src;
  OP2_CALL(emu_source(jit, gen, &src));
  op2_cache_key key;
  char *log = NULL, *source_path = NULL;
  int rc = emu_attempt(jit, cnt, name, gen, &src, &tier, out, &key, &log, &source_path);
  /* A kernel that is not C (OP2's C++ kernels): the same text as C++ (cfg.cxx), as the CPU
   * backends do. */
  op2_tier cxx;
  if (rc != 0 && op2_cxx_tier(jit->cfg.cxx, flags, jit->cfg.compile_timeout, &cxx) == 0) {
    char *cxx_log = NULL, *cxx_path = NULL;
    op2_cuda_emu_build_release(out);
    op2_cache_key cxx_key;
    if (emu_attempt(jit, cnt, name, gen, &src, &cxx, out, &cxx_key, &cxx_log, &cxx_path) == 0) {
      rc = 0;
      op2_jit_diag(jit, 1, "kernel '%s' is not C: its emulated CUDA code is built as C++ by %s",
                   name, cxx.path);
    } else {
      op2_buf both = {0};
      op2_buf_printf(&both, "%snor as C++ (OP2_CXX):\n%s", log, cxx_log);
      free(log);
      log = both.data ? both.data : strdup("");
    }
    free(cxx_log);
    free(cxx_path);
  }
  if (rc == 0)
    cnt->compiles += !out->from_disk;
  else
    rc = emu_failed(jit, name, &key, &src, source_path, log ? log : "");
  free(log);
  free(source_path);
  op2_buf_free(&src);
  return rc;
}

/* ---- the target table's compile steps (targets.c) ---- */

/* The constants a loop's kernel text uses (runtime/cuda/ copies the live ones before launches). */
static int kernel_constants(op2_jit *jit, const op2_jit_request *rq, op2_kernel *k) {
  if (!rq->loop || !rq->kernel_src) return OP2_OK;
  return op2_constants_used(jit, rq->loop, rq->kernel_src, &k->consts, &k->nconsts);
}

int op2_cuda_target_obtain(op2_jit *jit, const op2_jit_request *rq, op2_jit_counters *cnt,
                           op2_kernel *k, const op2_generated *gen) {
  OP2_CALL(kernel_constants(jit, rq, k));
  /* the PTX too: the driver can compile it for a device its CUBIN does not run on */
  op2_cuda_binary bin;
  OP2_CALL(op2_cuda_obtain_cubin(jit, cnt, rq->cuda.ptxas, k->name, gen, rq->cuda.arch, 1, &bin));
  k->image = bin.image, k->image_len = bin.len;
  k->ptx = bin.ptx, k->ptx_len = bin.ptx_len;
  k->source_path = bin.source_path;
  k->origin = bin.from_disk ? OP2_FROM_DISK : OP2_FROM_COMPILE;
  k->compile_ms = bin.compile_ms;
  return OP2_OK;
}

/* Proof that the emulated text is also a valid CUDA kernel: NVRTC for each architecture asked,
 * then ptxas on the PTX. */
static int emu_verify(op2_jit *jit, const op2_jit_request *rq, op2_jit_counters *cnt,
                      const char *name, const op2_generated *gen) {
  const char *ptxas = rq->cuda.ptxas ? rq->cuda.ptxas : "";
  char archs[256];
  snprintf(archs, sizeof archs, "%s", rq->cuda.verify_archs ? rq->cuda.verify_archs : "");
  int rc = OP2_OK;
  for (char *save = NULL, *a = strtok_r(archs, ", ", &save); a && rc == OP2_OK;
       a = strtok_r(NULL, ", ", &save)) {
    op2_cuda_binary vb;
    rc = op2_cuda_obtain_cubin(jit, cnt, ptxas, name, gen, a, ptxas[0] != 0, &vb);
    char *log = NULL;
    if (rc == OP2_OK && ptxas[0] &&
        op2_ptxas_check(ptxas, vb.ptx, vb.ptx_len, a, jit->cfg.compile_timeout, &log) != 0)
      rc = op2_jit_fail(jit, OP2_ERR_JIT, "op_par_loop '%s': ptxas rejects the PTX for %s:\n%s",
                        name, a, log ? log : "");
    free(log);
    op2_cuda_binary_clear(&vb);
  }
  return rc;
}

int op2_cuda_emu_target_obtain(op2_jit *jit, const op2_jit_request *rq, op2_jit_counters *cnt,
                               op2_kernel *k, const op2_generated *gen) {
  OP2_CALL(kernel_constants(jit, rq, k));
  OP2_CALL(emu_verify(jit, rq, cnt, k->name, gen));
  /* The emulator's builds follow the user's OP2_JIT. */
  op2_cuda_emu_build b;
  OP2_CALL(op2_cuda_obtain_emu(jit, cnt, k->name, gen, jit->cfg.mode == OP2_JIT_TCC, &b));
  k->fn = b.entry;
  k->dl_handle = b.dl_handle;
  k->tier = b.tcc_memory ? OP2_TIER_TCC : OP2_TIER_CC;
  k->origin = b.from_disk ? OP2_FROM_DISK : OP2_FROM_COMPILE;
  k->compile_ms = b.compile_ms;
  return OP2_OK;
}
