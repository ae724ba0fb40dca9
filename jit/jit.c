/* The JIT driver. For a loop's generated source it finds or makes a kernel: this process's table
 * first, then the disk cache (optimised build before TinyCC build), then a compile. In tiered mode
 * (the default) the first call runs TinyCC code at once and the optimising compiler builds the
 * same source in the background; op2_jit_poll() swaps the result in between two calls. */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "jit.h"

struct op2_jit_state {
  op2_tier tcc, cc, cxx;
  int cc_usable;
  int cxx_state;       /* the C++ tier, set up when first needed: 0 not yet, 1 usable, -1 none */
  int told_unwritable; /* the warning that the cache cannot be written is given once */
  int node_follower;   /* another process of this machine builds and stores optimised code */
  op2_background *background;
};

static struct op2_jit_state *jit_state(op2_context *ctx) {
  if (ctx->jit_state) return ctx->jit_state;
  struct op2_jit_state *st = calloc(1, sizeof *st);
  if (!st) return NULL;
  op2_tcc_tier(&st->tcc);
  if (ctx->opt.jit_mode != OP2_JIT_TCC) {
    st->cc_usable = op2_cc_tier(ctx->opt.cc, ctx->opt.cflags, &st->cc) == 0;
    if (!st->cc_usable)
      op2_diag(1, "optimising compiler '%s' not found: kernels stay on TinyCC code", ctx->opt.cc);
  }
  ctx->jit_state = st;
  return st;
}

/* Finds the compilers at op_init, so a loop's first call pays only for its own kernel. */
int op2_jit_init(op2_context *ctx) {
  return jit_state(ctx) ? OP2_OK : op2_error(OP2_ERR_MEM, "op_init: out of memory");
}

void op2_kernel_free(op2_kernel *k) {
  if (!k) return;
  if (k->dl_handle) dlclose(k->dl_handle);
  op2_tcc_release(k->tcc_state);
  free(k->name);
  free(k->source_path);
  free(k->peer_source);
  free(k);
}

static int compile_failed(const op2_loop *loop, op2_kernel *k, const op2_cache_key *key,
                          const op2_generated *gen, const char *log, const char *cxx_log) {
  if (!k->source_path)
    k->source_path = op2_keep_failed_source(k->name, key, gen->source.data, gen->source.len, "c");
  /* The system compiler's messages, when it finds the error too: they name the exact line and
   * column. When it accepts the source, or finds the error outside the user's kernel (a missing
   * kernel function shows in the generated wrapper), TinyCC's message stands. */
  struct op2_jit_state *st = op2_ctx()->jit_state;
  char *exact = NULL;
  if (st && st->cc_usable && k->source_path &&
      op2_cc_syntax_check(&st->cc, k->source_path, &exact) != 0 && exact &&
      strstr(exact, "kernel:"))
    log = exact;
  /* TinyCC in memory says "undefined symbol 'NAME'", dlopen of a built entry "symbol: NAME";
   * the C file's declaration of an inline kernel after it ("'NAME' undeclared") fails first. */
  char own[300], own_dl[300], own_decl[300];
  snprintf(own, sizeof own, "undefined symbol '%s'", loop->name);
  snprintf(own_dl, sizeof own_dl, "undefined symbol: %s\n", loop->name);
  snprintf(own_decl, sizeof own_decl, "'%s' undeclared", loop->name);
  int err = op2_error(OP2_ERR_JIT,
                      "op_par_loop '%s': the kernel does not compile (generated source: %s)\n%s%s"
                      "%s%s",
                      loop->name, k->source_path ? k->source_path : "(could not be written)", log,
                      strstr(log, own) || strstr(log, own_dl) || strstr(log, own_decl)
                          ? "the kernel source defines no function with the loop's "
                            "name (the loop name must name the kernel function)\n"
                          : "",
                      cxx_log ? "nor as C++ (OP2_CXX):\n" : "", cxx_log ? cxx_log : "");
  free(exact);
  return err;
}

const char *op2_jit_cache_root(op2_context *ctx) {
  if (ctx->opt.cache_mode == OP2_CACHE_OFF) return NULL;
  char why[600];
  if (op2_cache_root_usable(ctx->opt.cache_dir, ctx->opt.cache_mode == OP2_CACHE_ON, why,
                            sizeof why) != 0) {
    op2_diag(1, "kernel cache not used: %s", why);
    return NULL;
  }
  return ctx->opt.cache_dir;
}

static void tier_key(const op2_tier *t, const op2_generated *gen, op2_cache_key *key) {
  op2_cache_key_make(gen->source.data, gen->source.len, t->identity, t->flags, key);
}

void op2_jit_cache_unwritable(op2_context *ctx, const char *why) {
  ctx->jit.store_failures++;
  struct op2_jit_state *st = ctx->jit_state;
  if (st && st->told_unwritable++) return;
  op2_diag(1, "warning: the kernel cache cannot be written (%s): kernels are built privately", why);
}

int op2_jit_may_write(const op2_context *ctx, const char *entry) {
  if (ctx->opt.cache_mode != OP2_CACHE_ON) return 0;
  if (ctx->jit_state && ctx->jit_state->node_follower) return 0; /* the machine's builder writes */
  /* Once a store has failed (a full disk), later kernels skip the attempt and build privately. */
  if (ctx->jit_state && ctx->jit_state->told_unwritable) return 0;
  op2_entry e;
  char why[600];
  int rc = op2_entry_open(AT_FDCWD, entry, 0, &e, why, sizeof why);
  op2_entry_close(&e);
  return rc >= 0;
}

int op2_jit_entry_lookup(const op2_context *ctx, const char *entry, const op2_entry_expect *ex,
                         op2_entry_verified *v, char *why, size_t whylen) {
  op2_entry e;
  char err[600];
  memset(v, 0, sizeof *v);
  v->bin_fd = -1;
  int rc = op2_entry_open(AT_FDCWD, entry, 0, &e, err, sizeof err);
  if (rc == 0 && op2_entry_verify(&e, ex, v, err, sizeof err) != 0) rc = -1;
  if (rc < 0) snprintf(why, whylen, "%s: %s", entry, err);
  /* Under MPI one rank per node writes the cache, so ranks never race on an entry; a process
   * that is building the entry holds its lock. */
  if (rc < 0 && e.fd >= 0 && op2_jit_may_write(ctx, entry) && op2_entry_try_lock(&e) == 0)
    op2_entry_remove(&e, ex->name, 0, NULL, err, sizeof err);
  op2_entry_close(&e);
  return rc;
}

/* Loads a C kernel's entry if it is there and sound: 0 loaded, 1 absent, -1 refused (why). */
int op2_jit_load_entry(const op2_context *ctx, const char *entry, const char *name,
                       const op2_cache_key *key, const char *source, size_t len, void **handle,
                       op2_kernel_fn *fn, char *why, size_t whylen) {
  const op2_entry_expect ex = {.name = name,
                               .key = key->hex,
                               .bin_ext = "so",
                               .src_ext = "c",
                               .source = source,
                               .source_len = len};
  op2_entry_verified v;
  void *sym;
  int rc = op2_jit_entry_lookup(ctx, entry, &ex, &v, why, whylen);
  if (rc == 0 && op2_load_object_fd(v.bin_fd, entry, "op2_loop", handle, &sym, why, whylen) != 0)
    rc = -1;
  op2_entry_verified_clear(&v);
  if (rc == 0) *fn = (op2_kernel_fn)sym;
  return rc;
}

/* Loads the tier's entry if it is there and sound. Returns 0 when loaded. *may_write says
 * whether a new build may be stored in that entry (it must not if someone else's). */
static int load_from_disk(op2_context *ctx, op2_kernel *k, const char *root, const op2_tier *t,
                          const op2_generated *gen, char *entry, size_t entry_len, int *may_write) {
  op2_cache_key key;
  tier_key(t, gen, &key);
  op2_cache_entry_dir(root, k->name, &key, entry, entry_len);
  char why[1200];
  int rc = op2_jit_load_entry(ctx, entry, k->name, &key, gen->source.data, gen->source.len,
                              &k->dl_handle, &k->fn, why, sizeof why);
  if (rc == 0) {
    ctx->jit.disk_hits++;
    if (ctx->opt.cache_mode == OP2_CACHE_ON) utimensat(AT_FDCWD, entry, NULL, 0);
    char src[4400];
    snprintf(src, sizeof src, "%s/%s.c", entry, k->name);
    free(k->source_path);
    k->source_path = strdup(src);
    return 0;
  }
  if (rc != 1) {
    ctx->jit.disk_rejects++;
    op2_diag(1, "kernel cache: %s entry for loop '%s' refused (%s); building it again", t->name,
             k->name, why);
  }
  /* Processes sharing a machine leave the cache to its builder, so they never race on an entry. */
  *may_write = op2_jit_may_write(ctx, entry);
  return 1;
}

/* Fills a build request: into the cache entry when we may write it, otherwise into a private
 * temporary directory removed once the object is loaded. */
static void prepare_request(op2_context *ctx, const op2_tier *t, const op2_loop *loop,
                            const op2_generated *gen, const char *entry, int may_write,
                            op2_build_request *req) {
  memset(req, 0, sizeof *req);
  req->tier = t;
  req->name = loop->name;
  req->target = ctx->backend->target;
  req->signature = gen->signature.data;
  req->source = gen->source.data;
  req->source_len = gen->source.len;
  tier_key(t, gen, &req->key);
  snprintf(req->entry, sizeof req->entry, "%s", may_write ? entry : "");
  req->keep = may_write;
}

static void adopt_build(op2_kernel *k, op2_build_result *res, op2_tier_id tier) {
  if (k->dl_handle) dlclose(k->dl_handle);
  op2_tcc_release(k->tcc_state);
  k->tcc_state = NULL;
  k->dl_handle = res->handle;
  k->fn = res->fn;
  k->tier = tier;
  if (res->source_path) {
    free(k->source_path);
    k->source_path = res->source_path;
    res->source_path = NULL;
  }
}

/* The C++ tier (OP2_CXX) for a kernel TinyCC rejected: its disk entry, else a compile now (the
 * first call waits for it; no background tier follows). 0 when the kernel is ready; otherwise
 * *log holds the C++ compiler's messages (NULL when there is no C++ compiler). */
static int obtain_cxx(op2_context *ctx, const op2_loop *loop, op2_kernel *k,
                      const op2_generated *gen, const char *root, char **log) {
  struct op2_jit_state *st = ctx->jit_state;
  *log = NULL;
  if (!st->cxx_state)
    st->cxx_state = op2_cxx_tier(ctx->opt.cxx, ctx->opt.cflags, &st->cxx) ? -1 : 1;
  if (st->cxx_state < 0) return 1;
  char entry[4400] = "";
  int may_write = 0;
  if (root && load_from_disk(ctx, k, root, &st->cxx, gen, entry, sizeof entry, &may_write) == 0) {
    k->origin = OP2_FROM_DISK;
  } else {
    op2_build_request req;
    op2_build_result res;
    prepare_request(ctx, &st->cxx, loop, gen, entry, may_write, &req);
    int rc = op2_build_into_entry(&req, &res);
    if (res.not_stored) op2_jit_cache_unwritable(ctx, res.why);
    if (rc != OP2_BUILD_OK) {
      *log = res.log ? res.log : strdup(res.why);
      res.log = NULL;
      op2_build_result_clear(&res);
      return 1;
    }
    adopt_build(k, &res, OP2_TIER_CC);
    k->origin = OP2_FROM_COMPILE;
    k->compile_ms = res.compile_ms;
    ctx->jit.compiles++;
    op2_build_result_clear(&res);
  }
  k->tier = OP2_TIER_CC;
  k->cxx = true;
  if (k->origin == OP2_FROM_DISK)
    op2_diag(1, "kernel '%s' is not C (TinyCC rejects it): its C++ build (%s) from the cache",
             loop->name, st->cxx.path);
  else
    op2_diag(1, "kernel '%s' is not C (TinyCC rejects it): compiled as C++ by %s in %.0f ms",
             loop->name, st->cxx.path, k->compile_ms);
  return 0;
}

/* TinyCC rejected the kernel: the C++ tier gets it, else the error stands. */
static int tcc_rejected(op2_context *ctx, const op2_loop *loop, op2_kernel *k,
                        const op2_cache_key *key, const op2_generated *gen, const char *root,
                        const char *log) {
  char *cxx_log;
  if (obtain_cxx(ctx, loop, k, gen, root, &cxx_log) == 0) return OP2_OK;
  int err = compile_failed(loop, k, key, gen, log, cxx_log);
  free(cxx_log);
  return err;
}

/* The TinyCC tier: disk entry, else compile into the entry, else compile in memory. */
static int obtain_tcc(op2_context *ctx, const op2_loop *loop, op2_kernel *k,
                      const op2_generated *gen, const char *root) {
  struct op2_jit_state *st = ctx->jit_state;
  char entry[4400] = "";
  int may_write = 0;
  if (root && load_from_disk(ctx, k, root, &st->tcc, gen, entry, sizeof entry, &may_write) == 0) {
    k->origin = OP2_FROM_DISK;
    k->tier = OP2_TIER_TCC;
    return OP2_OK;
  }
  op2_cache_key key;
  tier_key(&st->tcc, gen, &key);
  char *log = NULL;
  k->origin = OP2_FROM_COMPILE;
  k->tier = OP2_TIER_TCC;
  if (may_write) {
    op2_build_request req;
    op2_build_result res;
    prepare_request(ctx, &st->tcc, loop, gen, entry, 1, &req);
    int rc = op2_build_into_entry(&req, &res);
    if (rc != OP2_BUILD_NOT_STORED) ctx->jit.compiles++;
    if (res.not_stored) op2_jit_cache_unwritable(ctx, res.why);
    if (rc == OP2_BUILD_OK) {
      adopt_build(k, &res, OP2_TIER_TCC);
      k->compile_ms = res.compile_ms;
      op2_build_result_clear(&res);
      return OP2_OK;
    }
    if (rc == OP2_BUILD_COMPILE_ERROR) {
      k->source_path = res.source_path;
      res.source_path = NULL;
      int err = tcc_rejected(ctx, loop, k, &key, gen, root, res.log ? res.log : "");
      op2_build_result_clear(&res);
      return err;
    }
    op2_jit_cache_unwritable(ctx, res.why);
    op2_build_result_clear(&res);
  }
  double t0 = op2_wall_seconds();
  if (op2_tcc_compile(gen->source.data, NULL, &k->tcc_state, &k->fn, &log) != OP2_OK) {
    int err = tcc_rejected(ctx, loop, k, &key, gen, root, log);
    free(log);
    return err;
  }
  k->compile_ms = 1e3 * (op2_wall_seconds() - t0);
  ctx->jit.compiles++;
  if (log && *log && ctx->opt.diags >= 1)
    fprintf(stderr, "op2: compiler messages for loop '%s':\n%s", loop->name, log);
  free(log);
  return OP2_OK;
}

static void queue_optimised_build(op2_context *ctx, const op2_loop *loop, op2_kernel *k,
                                  const op2_generated *gen, const char *entry, int may_write) {
  struct op2_jit_state *st = ctx->jit_state;
  op2_bg_job *job = calloc(1, sizeof *job);
  if (!job) return;
  job->source_copy = malloc(gen->source.len + 1);
  job->signature_copy = strdup(gen->signature.data ? gen->signature.data : "");
  job->name_copy = strdup(loop->name);
  if (!job->source_copy || !job->signature_copy || !job->name_copy) {
    free(job->source_copy), free(job->signature_copy), free(job->name_copy), free(job);
    return;
  }
  prepare_request(ctx, &st->cc, loop, gen, entry, may_write, &job->request);
  memcpy(job->source_copy, gen->source.data, gen->source.len + 1);
  /* The job must not point into anything the main thread may free or change. */
  job->request.source = job->source_copy;
  job->request.signature = job->signature_copy;
  job->request.name = job->name_copy;
  job->request.target = ctx->backend->target; /* static storage */
  job->submitted_at = op2_wall_seconds();
  if (op2_background_submit(&st->background, job) != 0) {
    free(job->source_copy), free(job->signature_copy), free(job->name_copy), free(job);
    return;
  }
  k->job = job;
}

static void free_job(op2_bg_job *job) {
  op2_build_result_clear(&job->result);
  free(job->source_copy), free(job->signature_copy), free(job->name_copy), free(job);
}

void op2_jit_follow_node(op2_context *ctx, int follower) {
  if (ctx->jit_state) ctx->jit_state->node_follower = follower;
}

int op2_jit_load_node_build(op2_context *ctx, op2_kernel *k) {
  if (!k->awaiting_peer) return -1;
  k->awaiting_peer = false;
  struct op2_jit_state *st = ctx->jit_state;
  op2_cache_key key;
  op2_cache_key_make(k->peer_source, k->peer_source_len, st->cc.identity, st->cc.flags, &key);
  char why[1200];
  void *handle;
  op2_kernel_fn fn;
  int rc = op2_jit_load_entry(ctx, k->peer_entry, k->name, &key, k->peer_source, k->peer_source_len,
                              &handle, &fn, why, sizeof why) == 0
               ? 0
               : -1;
  free(k->peer_source);
  k->peer_source = NULL;
  if (rc != 0) {
    op2_diag(1, "kernel '%s': the optimised build of this machine is not usable here (%s)", k->name,
             why);
    return -1;
  }
  op2_build_result res = {.handle = handle, .fn = fn};
  adopt_build(k, &res, OP2_TIER_CC);
  k->upgrade_ms = 1e3 * (op2_wall_seconds() - k->requested_at);
  return 0;
}

int op2_jit_poll(op2_context *ctx, op2_kernel *k) {
  op2_bg_job *job = k->job;
  if (!job) return OP2_JIT_NO_BUILD;
  int state = atomic_load_explicit(&job->state, memory_order_acquire);
  if (state == OP2_JOB_QUEUED) return OP2_JIT_BUILDING;
  if (state == OP2_JOB_DONE) {
    adopt_build(k, &job->result, OP2_TIER_CC);
    k->cc_compile_ms = job->result.compile_ms;
    k->upgrade_ms = 1e3 * (op2_wall_seconds() - k->requested_at);
    ctx->jit.cc_compiles++;
    if (job->result.not_stored) op2_jit_cache_unwritable(ctx, job->result.why);
    op2_diag(2, "kernel '%s': optimised code in use %.0f ms after the first call (compile %.0f ms)",
             k->name, k->upgrade_ms, k->cc_compile_ms);
  } else if (state == OP2_JOB_FAILED) {
    ctx->jit.cc_failures++;
    if (ctx->jit.cc_failures == 1 || ctx->opt.diags >= 2)
      op2_diag(1, "optimising compile of '%s' failed (%s): staying on TinyCC code%s%s", k->name,
               job->result.why, job->result.log && *job->result.log ? "\n" : "",
               job->result.log ? job->result.log : "");
  }
  free_job(job);
  k->job = NULL;
  return state == OP2_JOB_DONE ? OP2_JIT_BUILT : OP2_JIT_BUILD_FAILED;
}

void op2_jit_wait(op2_context *ctx) {
  for (int i = 0; i < ctx->kernels.count; i++) {
    op2_kernel *k = ctx->kernels.items[i];
    while (k->job) {
      op2_jit_poll(ctx, k);
      if (k->job) usleep(1000);
    }
  }
}

void op2_jit_shutdown(op2_context *ctx) {
  struct op2_jit_state *st = ctx->jit_state;
  if (!st) return;
  op2_background_stop(&st->background);
  for (int i = 0; i < ctx->kernels.count; i++) {
    op2_kernel *k = ctx->kernels.items[i];
    if (k->job) op2_jit_poll(ctx, k); /* finished builds are adopted so their handles close */
    if (k->job) free_job(k->job), k->job = NULL;
  }
  free(st);
  ctx->jit_state = NULL;
}

/* Optimised tier first: from disk, or (OP2_JIT=cc) built now. 0 when the kernel is ready. */
static int obtain_cc(op2_context *ctx, const op2_loop *loop, op2_kernel *k,
                     const op2_generated *gen, const char *root, char *entry, size_t entry_len,
                     int *may_write) {
  struct op2_jit_state *st = ctx->jit_state;
  *may_write = 0;
  if (root && load_from_disk(ctx, k, root, &st->cc, gen, entry, entry_len, may_write) == 0) {
    k->origin = OP2_FROM_DISK;
    k->tier = OP2_TIER_CC;
    return 0;
  }
  if (ctx->opt.jit_mode != OP2_JIT_CC) return 1;
  op2_build_request req;
  op2_build_result res;
  prepare_request(ctx, &st->cc, loop, gen, entry, *may_write, &req);
  int rc = op2_build_into_entry(&req, &res);
  if (res.not_stored) op2_jit_cache_unwritable(ctx, res.why);
  if (rc == OP2_BUILD_OK) {
    adopt_build(k, &res, OP2_TIER_CC);
    k->origin = OP2_FROM_COMPILE;
    k->compile_ms = k->cc_compile_ms = res.compile_ms;
    ctx->jit.cc_compiles++;
  } else {
    ctx->jit.cc_failures++;
    op2_diag(1, "optimising compile of '%s' failed (%s): using TinyCC", loop->name, res.why);
  }
  op2_build_result_clear(&res);
  return rc == OP2_BUILD_OK ? 0 : 1;
}

static int obtain_kernel(op2_context *ctx, const op2_loop *loop, op2_kernel *k,
                         const op2_generated *gen) {
  struct op2_jit_state *st = jit_state(ctx);
  if (!st) return op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory", loop->name);
  const char *root = op2_jit_cache_root(ctx);
  char entry[4400] = "";
  int may_write = 0;
  int use_cc = ctx->opt.jit_mode != OP2_JIT_TCC && st->cc_usable;
  if (use_cc && obtain_cc(ctx, loop, k, gen, root, entry, sizeof entry, &may_write) == 0)
    return OP2_OK;
  OP2_CALL(obtain_tcc(ctx, loop, k, gen, root));
  if (use_cc && ctx->opt.jit_mode == OP2_JIT_TIERED && !k->cxx) {
    /* A follower with a usable cache leaves the compile to the machine's builder and loads its
     * result when told it is there (op2_jit_load_node_build). */
    if (st->node_follower && root && ctx->opt.cache_mode != OP2_CACHE_OFF) {
      k->awaiting_peer = true;
      snprintf(k->peer_entry, sizeof k->peer_entry, "%s", entry);
      k->peer_source = malloc(gen->source.len + 1);
      if (k->peer_source) memcpy(k->peer_source, gen->source.data, gen->source.len + 1);
      k->peer_source_len = gen->source.len;
      if (!k->peer_source) k->awaiting_peer = false;
    } else {
      queue_optimised_build(ctx, loop, k, gen, entry, may_write);
    }
  }
  return OP2_OK;
}

int op2_jit_source_hash(op2_context *ctx, const op2_loop *loop, const char *kernel_src,
                        uint64_t hash[2]) {
  op2_generated gen;
  OP2_CALL(op2_codegen_c(ctx, loop, kernel_src, &gen));
  XXH128_hash_t h = XXH3_128bits(gen.source.data, gen.source.len);
  op2_buf_free(&gen.source), op2_buf_free(&gen.signature);
  hash[0] = h.high64, hash[1] = h.low64;
  return OP2_OK;
}

int op2_jit_kernel(op2_context *ctx, const op2_loop *loop, const char *kernel_src,
                   op2_kernel **out) {
  double t0 = op2_wall_seconds();
  op2_generated gen;
  OP2_CALL(op2_codegen_c(ctx, loop, kernel_src, &gen));
  XXH128_hash_t h = XXH3_128bits(gen.source.data, gen.source.len);
  for (int i = 0; i < ctx->kernels.count; i++) {
    op2_kernel *k = ctx->kernels.items[i];
    if (k->key_hi == h.high64 && k->key_lo == h.low64) {
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
  k->key_hi = h.high64;
  k->key_lo = h.low64;
  k->requested_at = t0;
  int rc = obtain_kernel(ctx, loop, k, &gen);
  op2_buf_free(&gen.source), op2_buf_free(&gen.signature);
  if (rc == OP2_OK) rc = op2_list_push(&ctx->kernels, k);
  if (rc != OP2_OK) {
    if (k->job) op2_background_stop(&ctx->jit_state->background), free_job(k->job);
    op2_kernel_free(k);
    return rc;
  }
  k->load_ms = 1e3 * (op2_wall_seconds() - t0);
  if (k->origin == OP2_FROM_DISK)
    loop->stats->kernels_from_disk++;
  else
    loop->stats->kernels_compiled++;
  op2_diag(2, "kernel '%s': %s %s code in %.2f ms (%s)", k->name,
           k->origin == OP2_FROM_DISK ? "loaded" : "compiled",
           k->cxx                   ? "C++"
           : k->tier == OP2_TIER_CC ? "optimised"
                                    : "TinyCC",
           k->load_ms, k->source_path ? k->source_path : "not cached");
  *out = k;
  return OP2_OK;
}
