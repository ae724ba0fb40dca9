/* SPDX-License-Identifier: BSD-3-Clause */
/* The tier ladder: how a C target's kernel is obtained, as data. plan_ladder() chooses the rungs
 * from the engine's mode and the kernel's constants; walk_ladder() climbs them in order, each rung
 * one tier (TinyCC, the optimising compiler, C++) with what may be done with it: look in its
 * cache entry, build (stored in the entry, or in memory / a private directory), queue the
 * optimised build behind the kernel it gives, and on a compile error hand the kernel to C++.
 *
 * A kernel is C++ when a C compiler rejects it, or when its code (not its comments or strings)
 * uses `auto`, which C compilers accept as an int: a comment or a string cannot switch compilers. A
 * C++ build stored by an earlier run is found on the ladder's lookup rungs, so a warm run of a C++
 * kernel does not try TinyCC first. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jit_internal.h"
#include "kernel_facts.h"

/* One rung: a tier and what the walk may do with it. */
typedef struct rung {
  op2_tier_id tier;
  bool look;       /* its cache entry is loaded when it is there and sound */
  bool build;      /* built when it was not found (false: a lookup only) */
  bool store;      /* the build goes into the cache entry when we may write it */
  bool background; /* the (TinyCC) kernel it gives is upgraded by an optimised build */
  int on_reject;   /* what a compile error leads to: REJECT_* */
} rung;

/* A compile error of a C tier: the error stands, or the kernel goes to the C++ tier, its build
 * stored in the cache or not (a kernel baking a constant that keeps changing stores nothing). */
enum { REJECT_FAILS, REJECT_CXX, REJECT_CXX_UNSTORED };

enum { MAX_RUNGS = 4 };
typedef struct ladder {
  rung rungs[MAX_RUNGS];
  int n;
} ladder;

/* How the constants a kernel uses stand: UNSETTLED when one it bakes has changed value already
 * (its kernel is likely superseded soon), LIVE when it reads one at run time. */
enum { CONSTS_STABLE, CONSTS_UNSETTLED, CONSTS_LIVE };
static int constants_state(op2_jit *jit, const op2_jit_request *rq, int *state) {
  op2_const **used = NULL;
  int n = 0;
  *state = CONSTS_STABLE;
  if (!rq->kernel_src) return OP2_OK;
  OP2_CALL(op2_constants_used(jit, rq->loop, rq->kernel_src, &used, &n));
  for (int i = 0; i < n; i++)
    if (!used[i]->live && used[i]->nvalues > 1)
      *state = CONSTS_UNSETTLED;
    else if (used[i]->live && *state == CONSTS_STABLE)
      *state = CONSTS_LIVE;
  free(used);
  return OP2_OK;
}

static void add(ladder *l, rung r) {
  l->rungs[l->n++] = r;
}

/* The one planning function: which tiers a kernel climbs, in which order. */
static void plan_ladder(const op2_jit *jit, int consts, bool cxx_only, ladder *l) {
  bool use_cc = jit->cfg.mode != OP2_JIT_TCC && jit->cc_usable;
  bool tiered = use_cc && jit->cfg.mode == OP2_JIT_TIERED;
  l->n = 0;
  if (cxx_only) { /* a C compiler would accept it with another meaning (kernel_facts.h) */
    bool stored = !(tiered && consts == CONSTS_UNSETTLED);
    add(l, (rung){.tier = OP2_TIER_CXX, .look = stored, .build = true, .store = stored});
    return;
  }
  /* Tiered, a loop writes at most 3 cache entries whatever its constants do (docs/API.md): a
   * kernel baking a constant that has changed runs TinyCC code built in memory, neither stored
   * nor optimised; one reading a live constant stores its optimised build only. */
  if (tiered && consts == CONSTS_UNSETTLED) {
    add(l, (rung){.tier = OP2_TIER_TCC, .build = true, .on_reject = REJECT_CXX_UNSTORED});
    return;
  }
  bool tcc_cached = !(tiered && consts == CONSTS_LIVE);
  if (use_cc) add(l, (rung){.tier = OP2_TIER_CC, .look = true});
  add(l, (rung){.tier = OP2_TIER_CXX, .look = true});
  if (use_cc && !tiered) /* OP2_JIT=cc: the optimising compiler now, TinyCC if it fails */
    add(l, (rung){.tier = OP2_TIER_CC, .build = true, .store = true, .on_reject = REJECT_CXX});
  add(l, (rung){.tier = OP2_TIER_TCC,
                .look = tcc_cached,
                .build = true,
                .store = tcc_cached,
                .background = tiered,
                .on_reject = REJECT_CXX});
}

/* A climb in progress: the request, the kernel being made, and what the rungs left behind. */
typedef struct walk {
  op2_jit *jit;
  const op2_jit_request *rq;
  op2_jit_counters *cnt;
  op2_kernel *k;
  const op2_generated *gen;
  const char *root;            /* the cache root, or NULL */
  char cc_entry[OP2_PATH_BUF]; /* the optimised build's entry (for the background build) */
  int cc_may_write;
  char *cxx_log; /* the C++ compiler's messages, once it was tried and failed */
  bool cxx_tried;
  char *cc_failure; /* the optimising compiler's messages: told unless C++ takes the kernel */
  int cc_rejected;  /* it ran and rejected the source (recorded: build_failures.c) */
  op2_cache_key cc_key;
} walk;

enum { CLIMB_READY = 0, CLIMB_ABSENT = 1, CLIMB_REJECTED = -1 };

/* The compiler of a tier, or NULL when there is none (the C++ compiler is looked for when
 * first needed). */
static const op2_tier *tier_of(op2_jit *jit, op2_tier_id id) {
  switch (id) {
    case OP2_TIER_TCC:
      return &jit->tcc;
    case OP2_TIER_CC:
      return jit->cc_usable ? &jit->cc : NULL;
    case OP2_TIER_CXX:
      if (!jit->cxx_state)
        jit->cxx_state =
            op2_cxx_tier(jit->cfg.cxx, jit->cfg.cflags, jit->cfg.compile_timeout, &jit->cxx) ? -1
                                                                                             : 1;
      return jit->cxx_state > 0 ? &jit->cxx : NULL;
  }
  return NULL;
}

/* Loads the tier's entry if it is there and sound. Returns 0 when loaded. *may_write says
 * whether a new build may be stored in that entry (it must not if someone else's). */
static int load_from_disk(walk *w, const op2_tier *t, char *entry, size_t entry_len,
                          int *may_write) {
  op2_jit *jit = w->jit;
  op2_kernel *k = w->k;
  op2_cache_key key;
  op2_jit_tier_key(t, w->gen, &key);
  op2_cache_entry_dir(w->root, k->name, &key, entry, entry_len);
  op2_jit_error why;
  int rc = op2_jit_load_entry(jit, entry, k->name, &key, w->gen->source.data, w->gen->source.len,
                              &k->dl_handle, &k->fn, &why);
  if (rc == OP2_OK) {
    w->cnt->disk_hits++;
    if (jit->cfg.cache_mode == OP2_CACHE_ON) utimensat(AT_FDCWD, entry, NULL, 0);
    char src[OP2_PATH_BUF];
    snprintf(src, sizeof src, "%s/%s.c", entry, k->name);
    free(k->source_path);
    k->source_path = strdup(src);
    return 0;
  }
  if (rc != OP2_ENTRY_ABSENT) {
    w->cnt->disk_rejects++;
    op2_jit_diag(jit, 1, "kernel cache: %s entry for loop '%s' refused (%s); building it again",
                 t->name, k->name, why.msg);
  }
  /* Processes sharing a machine leave the cache to its builder, so they never race on an entry. */
  *may_write = op2_jit_may_write(jit, entry);
  return 1;
}

/* TinyCC without files: the cache is not to be written. */
static int tcc_in_memory(walk *w, char **log) {
  op2_kernel *k = w->k;
  double t0 = op2_wall_seconds();
  void *handle = NULL;
  op2_kernel_fn fn = NULL;
  if (op2_tcc_compile_memory(w->gen->source.data, w->jit->loaded, &handle, &fn, log) != OP2_OK) {
    if (!*log) *log = strdup("");
    return CLIMB_REJECTED;
  }
  op2_object_close(k->dl_handle);
  k->dl_handle = handle, k->fn = fn;
  k->tier = OP2_TIER_TCC;
  k->origin = OP2_FROM_COMPILE;
  k->compile_ms = 1e3 * (op2_wall_seconds() - t0);
  w->cnt->compiles++;
  /* TinyCC's warnings: to the caller's diagnostics, which decide who prints (one rank). */
  if (*log && **log) {
    size_t n = strlen(*log);
    op2_jit_diag(w->jit, 1, "compiler messages for loop '%s':\n%.*s", k->name,
                 (int)(n && (*log)[n - 1] == '\n' ? n - 1 : n), *log);
  }
  free(*log);
  *log = NULL;
  return CLIMB_READY;
}

/* The optimising compiler's failure, kept until the walk knows whether C++ takes the kernel. */
static void keep_cc_failure(walk *w, const op2_build_request *req, const op2_build_result *res) {
  free(w->cc_failure);
  w->cc_failure = strdup(res->log && *res->log ? res->log : res->why.msg);
  w->cc_rejected = res->rejected;
  w->cc_key = req->key;
}

/* C++ did not take it either: said once and recorded, with C++'s messages after the compiler's. */
static void tell_cc_failure(walk *w) {
  if (!w->cc_failure) return;
  w->cnt->cc_failures++;
  op2_buf log = {0};
  op2_buf_printf(&log, "%s", w->cc_failure);
  if (w->cxx_log && *w->cxx_log) op2_buf_printf(&log, "\nnor as C++ (OP2_CXX):\n%s", w->cxx_log);
  op2_jit_build_failed(w->jit, w->k->name, &w->jit->cc, &w->cc_key,
                       log.data ? log.data : w->cc_failure, w->cc_rejected);
  op2_buf_free(&log);
  free(w->cc_failure);
  w->cc_failure = NULL;
}

/* One rung: the tier's entry, else a build. READY, ABSENT (nothing found, nothing to build, or
 * no such compiler) or REJECTED (the compiler's messages in *log). */
static int climb(walk *w, const rung *r, char **log) {
  op2_jit *jit = w->jit;
  op2_kernel *k = w->k;
  const op2_tier *t = tier_of(jit, r->tier);
  if (!t) return CLIMB_ABSENT;
  char entry[OP2_PATH_BUF] = "";
  int may_write = 0;
  if (w->root && r->look) {
    if (load_from_disk(w, t, entry, sizeof entry, &may_write) == 0) {
      k->origin = OP2_FROM_DISK;
      k->tier = r->tier;
      return CLIMB_READY;
    }
  } else if (w->root && r->store) {
    op2_cache_key key;
    op2_jit_tier_key(t, w->gen, &key);
    op2_cache_entry_dir(w->root, k->name, &key, entry, sizeof entry);
    may_write = op2_jit_may_write(jit, entry);
  }
  if (r->tier == OP2_TIER_CC && w->root) {
    snprintf(w->cc_entry, sizeof w->cc_entry, "%s", entry);
    w->cc_may_write = may_write;
  }
  if (!r->build) return CLIMB_ABSENT;
  if (r->tier == OP2_TIER_CC) { /* a build the compiler rejected before is not tried again */
    op2_cache_key key;
    op2_jit_tier_key(t, w->gen, &key);
    if (op2_jit_failed_before(jit, w->cnt, k->name, &key)) {
      k->cc_failed_before = true;
      return CLIMB_ABSENT;
    }
  }
  if (!r->store || !w->root) may_write = 0;
  k->origin = OP2_FROM_COMPILE;
  if (r->tier == OP2_TIER_TCC && !may_write) return tcc_in_memory(w, log);
  op2_build_request req;
  op2_build_result res;
  op2_jit_prepare_build(jit, w->rq, t, w->gen, entry, may_write, &req);
  int rc = op2_build_into_entry(&req, &res);
  if (res.not_stored) op2_jit_cache_unwritable(jit, w->cnt, res.why.msg);
  if (r->tier == OP2_TIER_TCC && !res.reused && rc != OP2_BUILD_NOT_STORED) w->cnt->compiles++;
  if (rc == OP2_BUILD_OK) {
    op2_jit_adopt_build(k, &res, r->tier);
    k->compile_ms = res.compile_ms;
    if (res.reused) /* another process built it meanwhile */
      w->cnt->disk_hits++, k->origin = OP2_FROM_DISK;
    else if (r->tier == OP2_TIER_CC) {
      w->cnt->cc_compiles++, k->cc_compile_ms = res.compile_ms;
      if (res.warned) op2_jit_build_warnings(jit, k, &req.key, res.log ? res.log : "");
    } else if (r->tier == OP2_TIER_CXX)
      w->cnt->compiles++;
    op2_build_result_clear(&res);
    return CLIMB_READY;
  }
  if (r->tier == OP2_TIER_TCC && rc != OP2_BUILD_COMPILE_ERROR) {
    /* the cache could not take it: TinyCC needs no files */
    op2_jit_cache_unwritable(jit, w->cnt, res.why.msg);
    op2_build_result_clear(&res);
    return tcc_in_memory(w, log);
  }
  if (r->tier == OP2_TIER_CC) keep_cc_failure(w, &req, &res);
  if (r->tier == OP2_TIER_TCC) {
    free(k->source_path);
    k->source_path = res.source_path;
    res.source_path = NULL;
  }
  *log = res.log ? res.log : strdup(res.why.msg);
  res.log = NULL;
  op2_build_result_clear(&res);
  return CLIMB_REJECTED;
}

static int compile_failed(walk *w, const char *log) {
  op2_jit *jit = w->jit;
  op2_kernel *k = w->k;
  const op2_loop_desc *loop = w->rq->loop;
  const op2_generated *gen = w->gen;
  const char *cxx_log = w->cxx_log;
  op2_cache_key key;
  op2_jit_tier_key(&jit->tcc, gen, &key);
  if (!k->source_path)
    k->source_path = op2_keep_failed_source(k->name, &key, gen->source.data, gen->source.len, "c");
  /* The system compiler's messages, when it finds the error too: they name the exact line and
   * column. When it accepts the source, or finds the error outside the user's kernel (a missing
   * kernel function shows in the generated wrapper), TinyCC's message stands. */
  char *exact = NULL;
  if (jit->cc_usable &&
      op2_cc_syntax_check(&jit->cc, k->name, gen->source.data, gen->source.len, &exact) != 0 &&
      exact && strstr(exact, "kernel:"))
    log = exact;
  /* TinyCC in memory says "undefined symbol 'NAME'", dlopen of a built entry "symbol: NAME";
   * the C file's declaration of an inline kernel after it ("'NAME' undeclared") fails first. */
  char own[300], own_dl[300], own_decl[300];
  snprintf(own, sizeof own, "undefined symbol '%s'", loop->name);
  snprintf(own_dl, sizeof own_dl, "undefined symbol: %s\n", loop->name);
  snprintf(own_decl, sizeof own_decl, "'%s' undeclared", loop->name);
  /* Tried as C++ without a C++ compiler: say so, or TinyCC's "'std' undeclared" would be all the
   * user sees of a C++ kernel. */
  char no_cxx[1200] = "";
  if (!cxx_log && jit->cxx_state < 0 && strcmp(jit->cfg.cxx, "off") != 0)
    snprintf(no_cxx, sizeof no_cxx, "nor as C++: the C++ compiler OP2_CXX=%s was not found\n",
             jit->cfg.cxx);
  int err = op2_jit_fail(
      jit, OP2_ERR_JIT,
      "op_par_loop '%s': the kernel does not compile (generated source: %s)\n%s%s%s%s%s",
      loop->name, k->source_path ? k->source_path : "(could not be written)", log,
      strstr(log, own) || strstr(log, own_dl) || strstr(log, own_decl)
          ? "the kernel source defines no function with the loop's "
            "name (the loop name must name the kernel function)\n"
          : "",
      cxx_log ? "nor as C++ (OP2_CXX):\n" : "", cxx_log ? cxx_log : "", no_cxx);
  free(exact);
  return err;
}

/* The kernel is ready on rung r. */
static int arrived(walk *w, const rung *r) {
  op2_kernel *k = w->k;
  free(w->cc_failure); /* C++ took the kernel the optimising compiler rejected */
  w->cc_failure = NULL;
  if (k->tier == OP2_TIER_CXX && k->origin == OP2_FROM_DISK)
    op2_jit_diag(w->jit, 1, "kernel '%s' is C++: its C++ build (%s) from the cache", k->name,
                 w->jit->cxx.path);
  else if (k->tier == OP2_TIER_CXX)
    op2_jit_diag(w->jit, 1, "kernel '%s' is C++: compiled as C++ by %s in %.0f ms", k->name,
                 w->jit->cxx.path, k->compile_ms);
  if (r->background && k->tier == OP2_TIER_TCC)
    op2_jit_upgrade_later(w->jit, w->rq, w->cnt, k, w->gen, w->root ? w->cc_entry : "",
                          w->cc_may_write);
  return OP2_OK;
}

static int walk_ladder(walk *w, const ladder *l) {
  static const rung cxx = {.tier = OP2_TIER_CXX, .look = true, .build = true, .store = true};
  static const rung cxx_unstored = {.tier = OP2_TIER_CXX, .build = true};
  for (int i = 0; i < l->n; i++) {
    const rung *r = &l->rungs[i];
    char *log = NULL;
    int rc = climb(w, r, &log);
    if (rc == CLIMB_READY) return arrived(w, r);
    if (rc == CLIMB_ABSENT) continue;
    if (r->on_reject != REJECT_FAILS && !w->cxx_tried) {
      const rung *next = r->on_reject == REJECT_CXX ? &cxx : &cxx_unstored;
      w->cxx_tried = true;
      if (climb(w, next, &w->cxx_log) == CLIMB_READY) {
        free(log);
        return arrived(w, next);
      }
    }
    if (r->tier == OP2_TIER_CC) { /* the optimiser failed: the next rungs are TinyCC's */
      tell_cc_failure(w);
      free(log);
      continue;
    }
    int err = compile_failed(w, log);
    free(log);
    return err;
  }
  return op2_jit_fail(w->jit, OP2_ERR_JIT, "op_par_loop '%s': no compiler tier is usable",
                      w->k->name);
}

int op2_jit_obtain(op2_jit *jit, const op2_jit_request *rq, op2_jit_counters *cnt, op2_kernel *k,
                   const op2_generated *gen) {
  int consts;
  OP2_CALL(constants_state(jit, rq, &consts));
  const op2_kernel_facts *facts =
      rq->kernel_src ? op2_kernel_facts_of(jit, rq->kernel_src, op2_jit_request_name(rq)) : NULL;
  if (rq->kernel_src && !facts) return OP2_ERR_MEM;
  ladder l;
  plan_ladder(jit, consts, facts && facts->needs_cxx, &l);
  walk w = {.jit = jit, .rq = rq, .cnt = cnt, .k = k, .gen = gen, .root = op2_jit_cache_root(jit)};
  int rc = walk_ladder(&w, &l);
  free(w.cxx_log);
  free(w.cc_failure);
  return rc;
}
