/* SPDX-License-Identifier: BSD-3-Clause */
/* The JIT driver, every target's front door. For a request it generates the target's source
 * (targets.c's table) and finds or makes its kernel: the caller's table first, then the target's
 * compile step (the disk cache, then a compile; for C the tier ladder, ladder.c). In tiered mode
 * (the default) the first call runs TinyCC code at once and the optimising compiler builds the
 * same source in the background; op2_jit_poll() swaps the result in between two calls. */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "jit_internal.h"
#include "kernel_facts.h"

/* What the loader says of an object (op2_loaded_objects.diag), in the engine's voice. */
static void loader_diag(void *ctx, int level, const char *msg) {
  op2_jit_diag(ctx, level, "%s", msg);
}

int op2_jit_create(const op2_jit_config *cfg, op2_jit **out) {
  op2_jit *jit = calloc(1, sizeof *jit);
  *out = jit;
  if (!jit) return OP2_ERR_MEM;
  jit->cfg = *cfg;
  if (!(jit->loaded = malloc(sizeof *jit->loaded))) return free(jit), *out = NULL, OP2_ERR_MEM;
  op2_loaded_objects_init(jit->loaded);
  jit->loaded->loader = cfg->loader;
  jit->loaded->diag = loader_diag;
  jit->loaded->diag_ctx = jit;
  op2_tcc_tier(&jit->tcc);
  if (cfg->mode != OP2_JIT_TCC) {
    jit->cc_usable = op2_cc_tier(cfg->cc, cfg->cflags, cfg->compile_timeout, &jit->cc) == 0;
    /* its builds are the warnings check (kernel_warnings.c), unless warnings would fail them */
    jit->cc.warn = !strstr(jit->cc.flags, "-Werror");
    if (!jit->cc_usable)
      op2_jit_diag(jit, 1, "optimising compiler '%s' not found: kernels stay on TinyCC code",
                   cfg->cc);
  }
  return OP2_OK;
}

void op2_jit_destroy(op2_jit *jit) {
  if (!jit) return;
  op2_background_stop(&jit->background);
  op2_loaded_objects_destroy(jit->loaded);
  free(jit->loaded);
  op2_facts_table_free(jit->facts);
  free(jit);
}

const op2_jit_error *op2_jit_failure(const op2_jit *jit) {
  return &jit->failure;
}

void op2_jit_failure_clear(op2_jit *jit) {
  jit->failure.code = OP2_OK;
}

int op2_jit_fail_at(op2_jit *jit, const char *file, int line, const char *func, int code,
                    const char *fmt, ...) {
  if (jit->failure.code != OP2_OK) return code; /* the first failure is the one to report */
  va_list ap;
  va_start(ap, fmt);
  op2_jit_error_vset(&jit->failure, file, line, func, code, fmt, ap);
  va_end(ap);
  return code;
}

void op2_jit_diag(const op2_jit *jit, int level, const char *fmt, ...) {
  if (jit->cfg.diags < level || !jit->cfg.diag) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *msg = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (!msg) return;
  va_start(ap, fmt);
  vsnprintf(msg, (size_t)n + 1, fmt, ap);
  va_end(ap);
  jit->cfg.diag(level, msg);
  free(msg);
}

/* ---- the kernel's accessors (jit.h: runtime/ reads no field of it) ---- */
op2_kernel_fn op2_kernel_entry(const op2_kernel *k) {
  return k->fn;
}
op2_kernel_call op2_kernel_callable(const op2_kernel *k) {
  return (op2_kernel_call){
      .fn = k->fn, .closure_fn = k->fn ? NULL : k->closure_fn, .closure = k->closure};
}
const char *op2_kernel_name(const op2_kernel *k) {
  return k->name;
}
op2_tier_id op2_kernel_tier(const op2_kernel *k) {
  return k->tier;
}
op2_kernel_origin op2_kernel_origin_of(const op2_kernel *k) {
  return k->origin;
}
const char *op2_kernel_source_path(const op2_kernel *k) {
  return k->source_path;
}
void op2_kernel_key(const op2_kernel *k, uint64_t key[2]) {
  key[0] = k->key_hi, key[1] = k->key_lo;
}
double op2_kernel_upgrade_ms(const op2_kernel *k) {
  return k->upgrade_ms;
}
double op2_kernel_cc_compile_ms(const op2_kernel *k) {
  return k->cc_compile_ms;
}
bool op2_kernel_queued(const op2_kernel *k) {
  return k->job != NULL;
}
void op2_kernel_ran(op2_kernel *k, double seconds) {
  op2_bg_job *job = k->job;
  /* From its second call: a set-up kernel called once (however long its call) has no future
   * calls to gain from a build. */
  if (job && k->runs++ > 0 && seconds > 0)
    atomic_fetch_add_explicit(&job->weight_ns, (unsigned long long)(seconds * 1e9),
                              memory_order_relaxed);
}
bool op2_kernel_upgrading(const op2_kernel *k) {
  return k->job || k->awaiting_peer;
}
bool op2_kernel_awaiting_peer(const op2_kernel *k) {
  return k->awaiting_peer;
}

const void *op2_kernel_image(const op2_kernel *k, size_t *len) {
  *len = k->image_len;
  return k->image;
}
const char *op2_kernel_ptx(const op2_kernel *k) {
  return k->ptx;
}
void *op2_kernel_symbol(const op2_kernel *k, const char *symbol, size_t *bytes) {
  return op2_jit_symbol(k->dl_handle, symbol, bytes);
}
int op2_kernel_constants(const op2_kernel *k, op2_const *const **out) {
  *out = k->consts;
  return k->nconsts;
}

void op2_kernel_free(op2_kernel *k) {
  if (!k) return;
  op2_object_close(k->dl_handle);
  free(k->name);
  free(k->source_path);
  free(k->image), free(k->ptx), free(k->consts);
  free(k->closure);
  for (int i = 0; i < k->nhost; i++) free(k->host_names[i]);
  free(k->host_names), free(k->host_addrs);
  if (k->peer) free(k->peer->source);
  free(k->peer);
  free(k);
}

const char *op2_jit_cache_root(op2_jit *jit) {
  if (jit->cfg.cache_mode == OP2_CACHE_OFF) return NULL;
  op2_jit_error why;
  if (op2_cache_root_usable(jit->cfg.cache_dir, jit->cfg.cache_mode == OP2_CACHE_ON, &why) !=
      OP2_OK) {
    op2_jit_diag(jit, 1, "kernel cache not used: %s", why.msg);
    return NULL;
  }
  return jit->cfg.cache_dir;
}

void op2_jit_tier_key(const op2_tier *t, const op2_generated *gen, op2_cache_key *key) {
  op2_cache_key_make(gen->source.data, gen->source.len, t->identity, t->flags, key);
}

void op2_jit_cache_unwritable(op2_jit *jit, op2_jit_counters *cnt, const char *why) {
  cnt->store_failures++;
  if (jit->told_unwritable++) return;
  op2_jit_diag(
      jit, 1, "warning: the kernel cache cannot be written (%s): kernels are built privately", why);
}

int op2_jit_may_write(const op2_jit *jit, const char *entry) {
  if (jit->cfg.cache_mode != OP2_CACHE_ON) return 0;
  if (jit->node_follower) return 0; /* the machine's builder writes */
  /* Once a store has failed (a full disk), later kernels skip the attempt and build privately. */
  if (jit->told_unwritable) return 0;
  op2_entry e;
  int rc = op2_entry_open(AT_FDCWD, entry, 0, &e, NULL);
  op2_entry_close(&e);
  return rc == OP2_OK || rc == OP2_ENTRY_ABSENT;
}

int op2_jit_entry_lookup(const op2_jit *jit, const char *entry, const op2_entry_expect *ex,
                         op2_entry_verified *v, op2_jit_error *err) {
  op2_entry e;
  op2_jit_error inner;
  memset(v, 0, sizeof *v);
  v->bin_fd = -1;
  int st = op2_entry_open(AT_FDCWD, entry, 0, &e, &inner);
  int rc = st == OP2_OK ? 0 : st == OP2_ENTRY_ABSENT ? 1 : -1;
  if (rc == 0 && op2_entry_verify(&e, ex, v, &inner) != OP2_OK) rc = -1;
  if (rc < 0 && e.fd >= 0) {
    /* An entry being built holds its lock: processes started together (one per machine under
     * MPI, but also separate programs sharing a cache) wait for its builder, then take what it
     * stored, instead of refusing a half-written entry and building it again. */
    int locked = op2_entry_try_lock(&e) == 0;
    if (!locked && op2_entry_wait_lock(&e, op2_entry_wait_ms(jit->cfg.compile_timeout)) == 0) {
      locked = 1;
      op2_entry_verified_clear(v);
      rc = op2_entry_verify(&e, ex, v, &inner) == OP2_OK ? 0 : -1;
    }
    /* An empty directory is one a builder has just made and is about to lock: absent, not
     * refused, and left to it. Anything else incomplete with no writer is a leftover. */
    if (rc < 0 && locked && op2_entry_is_empty(&e)) {
      rc = 1;
    } else if (rc < 0 && locked && op2_jit_may_write(jit, entry)) {
      op2_entry_remove(&e, ex->name, 0, NULL, &inner);
    }
  }
  op2_entry_close(&e);
  if (rc == 0) return OP2_OK;
  if (rc == 1) return OP2_ENTRY_ABSENT;
  if (err) { /* the entry named first; the place stays where the refusal was found */
    *err = inner;
    snprintf(err->msg, sizeof err->msg, "%s: %s", entry, inner.msg);
  }
  return inner.code != OP2_OK ? inner.code : OP2_ERR_IO;
}

/* Loads a C kernel's entry if it is there and sound: 0 loaded, 1 absent, -1 refused (why). */
int op2_jit_load_entry(const op2_jit *jit, const char *entry, const char *name,
                       const op2_cache_key *key, const char *source, size_t len, void **handle,
                       op2_kernel_fn *fn, op2_jit_error *err) {
  return op2_jit_load_entry_ext(jit, entry, name, "c", key, source, len, handle, fn, err);
}

int op2_jit_load_entry_ext(const op2_jit *jit, const char *entry, const char *name,
                           const char *src_ext, const op2_cache_key *key, const char *source,
                           size_t len, void **handle, op2_kernel_fn *fn, op2_jit_error *err) {
  const op2_entry_expect ex = {.name = name,
                               .key = key->hex,
                               .bin_ext = "so",
                               .src_ext = src_ext,
                               .source = source,
                               .source_len = len};
  op2_entry_verified v;
  void *sym;
  int rc = op2_jit_entry_lookup(jit, entry, &ex, &v, err);
  if (rc == OP2_OK)
    rc = op2_load_object_fd(jit->loaded, v.bin_fd, entry, "op2_loop", handle, &sym, err);
  op2_entry_verified_clear(&v);
  if (rc == OP2_OK) *fn = (op2_kernel_fn)sym;
  return rc;
}

/* Fills a build request: into the cache entry when we may write it, otherwise into a private
 * temporary directory removed once the object is loaded. */
void op2_jit_prepare_build(const op2_jit *jit, const op2_jit_request *rq, const op2_tier *t,
                           const op2_generated *gen, const char *entry, int may_write,
                           op2_build_request *req) {
  memset(req, 0, sizeof *req);
  req->tier = t;
  req->name = rq->loop->name;
  req->target = op2_target_of(rq->target)->name;
  req->signature = gen->signature.data;
  req->source = gen->source.data;
  req->source_len = gen->source.len;
  op2_jit_tier_key(t, gen, &req->key);
  snprintf(req->entry, sizeof req->entry, "%s", may_write ? entry : "");
  req->keep = may_write;
  req->known = jit->loaded;
  req->wait_ms = op2_entry_wait_ms(jit->cfg.compile_timeout);
}

void op2_jit_adopt_build(op2_kernel *k, op2_build_result *res, op2_tier_id tier) {
  op2_object_close(k->dl_handle);
  k->dl_handle = res->handle;
  k->fn = res->fn;
  k->tier = tier;
  if (res->source_path) {
    free(k->source_path);
    k->source_path = res->source_path;
    res->source_path = NULL;
  }
}

/* Queues the optimised build of a kernel that runs TinyCC code, or, for a follower of its
 * machine's builder with a usable cache, waits for that builder's build (op2_jit_load_node_build).
 */
void op2_jit_upgrade_later(op2_jit *jit, const op2_jit_request *rq, op2_jit_counters *cnt,
                           op2_kernel *k, const op2_generated *gen, const char *entry,
                           int may_write) {
  op2_jit_upgrade_with(jit, rq, cnt, &jit->cc, k, gen, entry, may_write);
}

void op2_jit_upgrade_with(op2_jit *jit, const op2_jit_request *rq, op2_jit_counters *cnt,
                          const op2_tier *t, op2_kernel *k, const op2_generated *gen,
                          const char *entry, int may_write) {
  op2_cache_key key;
  op2_jit_tier_key(t, gen, &key);
  if (op2_jit_failed_before(jit, cnt, k->name, &key)) {
    k->cc_failed_before = true;
    return;
  }
  k->upgrade_tier = t;
  if (jit->node_follower && entry[0]) {
    op2_kernel_peer *peer = malloc(sizeof *peer);
    char *source = peer ? malloc(gen->source.len + 1) : NULL;
    if (!source) {
      free(peer);
      return; /* stays on TinyCC code */
    }
    snprintf(peer->entry, sizeof peer->entry, "%s", entry);
    memcpy(source, gen->source.data, gen->source.len + 1);
    peer->source = source;
    peer->source_len = gen->source.len;
    k->peer = peer;
    k->awaiting_peer = true;
    return;
  }
  op2_bg_job *job = calloc(1, sizeof *job);
  if (!job) return;
  job->source_copy = malloc(gen->source.len + 1);
  job->signature_copy = strdup(gen->signature.data ? gen->signature.data : "");
  job->name_copy = strdup(rq->loop->name);
  if (!job->source_copy || !job->signature_copy || !job->name_copy) {
    free(job->source_copy), free(job->signature_copy), free(job->name_copy), free(job);
    return;
  }
  op2_jit_prepare_build(jit, rq, t, gen, entry, may_write, &job->request);
  memcpy(job->source_copy, gen->source.data, gen->source.len + 1);
  /* The job must not point into anything the main thread may free or change. */
  job->request.source = job->source_copy;
  job->request.signature = job->signature_copy;
  job->request.name = job->name_copy;
  job->request.target = op2_target_of(rq->target)->name; /* static storage */
  job->request.abandon = &job->cancelled;
  job->submitted_at = op2_wall_seconds();
  if (op2_background_submit(&jit->background, jit->cfg.build_workers, job) != 0) {
    free(job->source_copy), free(job->signature_copy), free(job->name_copy), free(job);
    return;
  }
  k->job = job;
}

static void free_job(op2_bg_job *job) {
  op2_build_result_clear(&job->result);
  free(job->source_copy), free(job->signature_copy), free(job->name_copy), free(job);
}

void op2_jit_follow_node(op2_jit *jit, int follower) {
  jit->node_follower = follower;
}

int op2_jit_load_node_build(op2_jit *jit, op2_kernel *k, int stored) {
  if (!k->awaiting_peer) return -1;
  k->awaiting_peer = false;
  op2_kernel_peer *peer = k->peer;
  k->peer = NULL;
  if (!stored) { /* the builder's compile failed: TinyCC code stays */
    free(peer->source);
    free(peer);
    return -1;
  }
  const op2_tier *t = k->upgrade_tier ? k->upgrade_tier : &jit->cc;
  op2_cache_key key;
  op2_cache_key_make(peer->source, peer->source_len, t->identity, t->flags, &key);
  op2_jit_error why;
  void *handle;
  op2_kernel_fn fn;
  int rc = op2_jit_load_entry_ext(jit, peer->entry, k->name, op2_tier_src_ext(t), &key,
                                  peer->source, peer->source_len, &handle, &fn, &why) == OP2_OK
               ? 0
               : -1;
  free(peer->source);
  free(peer);
  if (rc != 0) {
    op2_jit_diag(jit, 1, "kernel '%s': the optimised build of this machine is not usable here (%s)",
                 k->name, why.msg);
    return -1;
  }
  op2_build_result res = {.handle = handle, .fn = fn};
  op2_jit_adopt_build(k, &res, OP2_TIER_CC);
  op2_jit_note_loader(jit, k, &key);
  op2_jit_build_warnings(jit, k, &key, NULL); /* the builder's record */
  k->upgrade_ms = 1e3 * (op2_wall_seconds() - k->requested_at);
  return 0;
}

int op2_jit_poll(op2_jit *jit, op2_kernel *k, op2_jit_counters *cnt) {
  op2_bg_job *job = k->job;
  if (!job) return OP2_JIT_NO_BUILD;
  int state = atomic_load_explicit(&job->state, memory_order_acquire);
  if (state == OP2_JOB_QUEUED) return OP2_JIT_BUILDING;
  if (state == OP2_JOB_DONE) {
    op2_jit_adopt_build(k, &job->result, OP2_TIER_CC);
    k->cc_compile_ms = job->result.compile_ms;
    k->upgrade_ms = 1e3 * (op2_wall_seconds() - k->requested_at);
    cnt->cc_compiles++;
    if (job->result.not_stored) op2_jit_cache_unwritable(jit, cnt, job->result.why.msg);
    op2_jit_diag(jit, 2,
                 "kernel '%s': optimised in use %.0f ms after its first call (compile %.0f ms)",
                 k->name, k->upgrade_ms, k->cc_compile_ms);
    op2_jit_note_loader(jit, k, &job->request.key);
    /* (another process's build, taken while waiting for its lock, brings no messages) */
    if (job->result.reused || job->result.warned)
      op2_jit_build_warnings(jit, k, &job->request.key,
                             job->result.reused ? NULL
                             : job->result.log  ? job->result.log
                                                : "");
  } else if (state == OP2_JOB_CANCELLED && atomic_load(&job->cancelled)) {
    op2_jit_diag(jit, 2, "kernel '%s': optimised build dropped (its loop shape was superseded)",
                 k->name);
  } else if (state == OP2_JOB_CANCELLED) {
    cnt->cc_dropped++; /* not started before exit: one line for all (op2_jit_shutdown) */
  } else if (state == OP2_JOB_FAILED && k->upgrade_tier == &jit->fortran) {
    cnt->cc_failures++; /* each Fortran loop's once: its own kernel, its own reason */
    op2_jit_diag(jit, 0,
                 "optimised build of Fortran loop '%s' failed (%s): the program's procedure runs "
                 "by its address (OP2_FC=%s OP2_FFLAGS=%s)%s%s",
                 k->name, job->result.why.msg, jit->cfg.fc, jit->cfg.fflags,
                 job->result.log && *job->result.log ? "\n" : "",
                 job->result.log ? job->result.log : "");
  } else if (state == OP2_JOB_FAILED) {
    cnt->cc_failures++;
    op2_jit_build_failed(
        jit, k->name, &jit->cc, &job->request.key,
        job->result.log && *job->result.log ? job->result.log : job->result.why.msg,
        job->result.rejected);
  }
  free_job(job);
  k->job = NULL;
  return state == OP2_JOB_DONE ? OP2_JIT_BUILT : OP2_JIT_BUILD_FAILED;
}

void op2_jit_cancel(op2_kernel *k) {
  op2_bg_job *job = k->job;
  if (job) atomic_store(&job->cancelled, 1);
}

void op2_jit_wait(op2_jit *jit, op2_kernel *const *kernels, int n, op2_jit_counters *cnt) {
  for (int i = 0; i < n; i++) {
    op2_kernel *k = kernels[i];
    while (k->job) {
      op2_jit_poll(jit, k, cnt);
      if (k->job) usleep(1000);
    }
  }
}

void op2_jit_shutdown(op2_jit *jit, op2_kernel *const *kernels, int n, op2_jit_counters *cnt) {
  if (!jit) return;
  op2_background_stop(&jit->background);
  int dropped = cnt->cc_dropped;
  for (int i = 0; i < n; i++) {
    op2_kernel *k = kernels[i];
    if (k->job) op2_jit_poll(jit, k, cnt); /* finished builds are adopted so their handles close */
    if (k->job) free_job(k->job), k->job = NULL;
  }
  dropped = cnt->cc_dropped - dropped;
  if (dropped)
    op2_jit_diag(jit, 2, "%d optimised build%s not started before exit: the next run builds %s",
                 dropped, dropped == 1 ? "" : "s", dropped == 1 ? "it" : "them");
}

int op2_jit_source_hash(op2_jit *jit, const op2_loop_desc *loop, const char *kernel_src,
                        uint64_t hash[2]) {
  op2_generated gen;
  OP2_CALL(op2_codegen_c(jit, loop, kernel_src, &gen));
  XXH128_hash_t h = XXH3_128bits(gen.source.data, gen.source.len);
  op2_buf_free(&gen.source), op2_buf_free(&gen.signature);
  hash[0] = h.high64, hash[1] = h.low64;
  return OP2_OK;
}

static const char *const tier_words[] = {"TinyCC", "optimised", "C++"};

void op2_jit_note_loader(op2_jit *jit, const op2_kernel *k, const op2_cache_key *key) {
  const char *why = op2_object_dlopen_why(k->dl_handle);
  if (!why) return;
  op2_jit_diag(jit, 2, "kernel '%s': loaded with dlopen, not the direct loader (%s)", k->name, why);
  const char *root = jit->cfg.cache_mode == OP2_CACHE_ON ? op2_jit_cache_root(jit) : NULL;
  char *known = NULL;
  size_t n = strlen(why);
  if (!root || (op2_kernel_record_read(root, OP2_RECORD_LOADER, k->name, key, &known) == 0 &&
                strncmp(known, why, n) == 0 && known[n] == '\n')) {
    free(known);
    return;
  }
  free(known);
  op2_buf text = {0};
  op2_buf_printf(&text, "%s\n", why);
  op2_jit_error err;
  if (!text.failed && op2_kernel_record_write(root, OP2_RECORD_LOADER, k->name, key, text.data,
                                              text.len, &err) != OP2_OK)
    op2_jit_diag(jit, 1, "loop '%s': that its object is loaded with dlopen is not kept (%s)",
                 k->name, err.msg);
  op2_buf_free(&text);
}

void op2_jit_c_finish(op2_jit *jit, op2_kernel *k, const op2_generated *gen) {
  if (k->dl_handle) {
    op2_cache_key key;
    op2_jit_tier_key(k->tier == OP2_TIER_CC    ? &jit->cc
                     : k->tier == OP2_TIER_CXX ? &jit->cxx
                                               : &jit->tcc,
                     gen, &key);
    op2_jit_note_loader(jit, k, &key);
  }
  op2_jit_kernel_warnings(jit, k, gen);
  /* one short line (the generated source's path at OP2_DIAGS=3, and in op2-cache show) */
  const char *next = k->job             ? ", optimised queued"
                     : k->awaiting_peer ? ", optimised by this machine's builder"
                                        : "";
  int variant = gen->variant[0] && (k->tier == OP2_TIER_CC || *next);
  op2_jit_diag(jit, 2, "kernel '%s': %s %s in %.1f ms%s%s%s%s", k->name, tier_words[k->tier],
               k->origin == OP2_FROM_DISK ? "from the cache" : "compiled", k->load_ms, next,
               variant ? " (" : "", variant ? gen->variant : "", variant ? ")" : "");
  op2_jit_diag(jit, 3, "kernel '%s': generated source %s", k->name,
               k->source_path ? k->source_path : "not kept");
}

/* One kernel per generated source, and per architecture for the targets whose code is a
 * device's. */
static XXH128_hash_t kernel_key(const op2_target *t, const op2_jit_request *rq,
                                const op2_generated *gen) {
  if (!t->per_arch || !rq->cuda.arch) return XXH3_128bits(gen->source.data, gen->source.len);
  XXH3_state_t hs;
  XXH3_128bits_reset(&hs);
  XXH3_128bits_update(&hs, gen->source.data, gen->source.len);
  XXH3_128bits_update(&hs, rq->cuda.arch, strlen(rq->cuda.arch) + 1);
  return XXH3_128bits_digest(&hs);
}

int op2_jit_kernel(op2_jit *jit, const op2_jit_request *rq, op2_jit_result *res) {
  memset(res, 0, sizeof *res);
  const char *name = op2_jit_request_name(rq);
  const op2_target *t = op2_target_of(rq->target);
  if (!t)
    return op2_jit_fail(jit, OP2_ERR_ARG, "op_par_loop '%s': this build has no target %d", name,
                        (int)rq->target);
  double t0 = op2_wall_seconds();
  op2_generated gen;
  OP2_CALL(t->codegen(jit, rq, &gen));
  XXH128_hash_t h = kernel_key(t, rq, &gen);
  op2_kernel *known = rq->find_loaded ? rq->find_loaded(rq->find_arg, h.high64, h.low64) : NULL;
  for (int i = 0; !rq->find_loaded && !known && i < rq->nloaded; i++)
    if (rq->loaded[i]->key_hi == h.high64 && rq->loaded[i]->key_lo == h.low64)
      known = rq->loaded[i];
  if (known) {
    op2_buf_free(&gen.source), op2_buf_free(&gen.signature);
    res->kernel = known;
    return OP2_OK;
  }
  op2_kernel *k = calloc(1, sizeof *k);
  if (!k || !(k->name = strdup(name))) {
    free(k);
    op2_buf_free(&gen.source), op2_buf_free(&gen.signature);
    return op2_jit_fail(jit, OP2_ERR_MEM, "op_par_loop '%s': out of memory", name);
  }
  k->key_hi = h.high64;
  k->key_lo = h.low64;
  k->requested_at = t0;
  int rc = t->obtain(jit, rq, &res->counts, k, &gen);
  if (rc != OP2_OK) {
    op2_buf_free(&gen.source), op2_buf_free(&gen.signature);
    op2_kernel_free(k);
    return rc;
  }
  k->load_ms = 1e3 * (op2_wall_seconds() - t0);
  if (t->finish) t->finish(jit, k, &gen);
  op2_buf_free(&gen.source), op2_buf_free(&gen.signature);
  res->kernel = k;
  res->fresh = true;
  return OP2_OK;
}

/* A kernel the caller could not keep (its table is full): its pending build is dropped. */
void op2_jit_discard(op2_jit *jit, op2_kernel *k) {
  if (k->job) op2_background_stop(&jit->background), free_job(k->job), k->job = NULL;
  op2_kernel_free(k);
}
