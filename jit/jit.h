/* SPDX-License-Identifier: BSD-3-Clause */
/* The JIT pipeline: loop descriptors -> generated source -> compiled (or cached) kernel. */
#ifndef OP2_JIT_H
#define OP2_JIT_H

#include <stddef.h>
#include <stdint.h>

#include <stdatomic.h>

#include "desc.h"
#include "cache_entry.h"
#include "file_io.h"

/* ---- compiled kernels ---- */
typedef void (*op2_kernel_fn)(void *const *args, const int *const *maps, int begin, int end);

typedef enum { OP2_FROM_COMPILE, OP2_FROM_DISK } op2_kernel_origin;
typedef enum { OP2_TIER_TCC = 0, OP2_TIER_CC = 1 } op2_tier_id;

/* A follower's wait for its machine's optimised build (allocated only while it waits). */
typedef struct op2_kernel_peer {
  char entry[4400]; /* the cache entry it will appear in */
  char *source;     /* the source it is built from, to verify the entry */
  size_t source_len;
} op2_kernel_peer;

typedef struct op2_kernel {
  uint64_t key_hi, key_lo; /* hash of the generated source: one kernel object per source */
  char *name;
  op2_kernel_fn fn; /* what calls run now; swapped only between calls */
  op2_tier_id tier; /* which compiler produced fn */
  bool cxx;         /* fn is C++ (not C: built by the C++ tier), the optimised tier, no other */
  void *dl_handle;  /* shared object holding fn, or NULL */
  void *tcc_state;  /* in-memory TinyCC code holding fn, or NULL */
  op2_kernel_origin origin;
  double compile_ms;     /* compile time this process spent for the first tier, 0 from disk */
  double load_ms;        /* time from request to callable function */
  double requested_at;   /* wall clock of the first request */
  double upgrade_ms;     /* first request -> optimised code in use, 0 if never */
  double cc_compile_ms;  /* background compile time */
  char *source_path;     /* generated source in the cache, or NULL */
  void *job;             /* pending background build, or NULL */
  bool awaiting_peer;    /* another process of this machine builds the optimised code */
  op2_kernel_peer *peer; /* where and from what, while awaiting_peer */
  /* the fn whose live-constant pointers are set (jit_constants.c) */
  op2_kernel_fn constants_bound;
} op2_kernel;
void op2_kernel_free(op2_kernel *k);

/* ---- the engine: compilers, cache policy, the background tier (jit.c) ---- */
typedef enum { OP2_CACHE_OFF, OP2_CACHE_READONLY, OP2_CACHE_ON } op2_cache_mode;
typedef enum { OP2_JIT_TCC, OP2_JIT_CC, OP2_JIT_TIERED } op2_jit_mode;

/* What the engine is made from (runtime/ fills it from the user's options). */
typedef struct op2_jit_config {
  op2_jit_mode mode;
  char cc[1024];     /* optimising compiler */
  char cflags[1024]; /* its flags */
  char cxx[1024];    /* the C++ compiler for kernels that are not C, or "off" */
  int simd;          /* OP2_SIMD: 0 off, -1 auto, else lanes per group */
  int simd_width;    /* lanes the optimised tier uses: 0 scalar */
  op2_cache_mode cache_mode;
  char cache_dir[4096];
  char template_dir[4096]; /* read templates from here instead of the built-in ones, or "" */
  int diags;               /* OP2_DIAGS: which diagnostics are worth formatting */
  int compiler_given;      /* OP2_CC or OP2_CFLAGS set by the user: their failure told at level 0 */
  int compile_timeout;     /* OP2_COMPILE_TIMEOUT: seconds a child compiler may run (0: none) */
  int loader_dlopen;       /* OP2_LOADER=dlopen: no direct loader (cache_entry.h) */
  /* Prints one diagnostic of `level` (the caller decides who speaks, e.g. one rank). */
  void (*diag)(int level, const char *msg);
} op2_jit_config;

typedef struct op2_jit op2_jit;
/* Finds the compilers, so a loop's first call pays only for its own kernel. OP2_ERR_MEM. */
int op2_jit_create(const op2_jit_config *cfg, op2_jit **out);
/* Stops the background tier and frees the engine; op2_jit_shutdown the kernels first. */
void op2_jit_destroy(op2_jit *jit);
/* The first failure since the last op2_jit_failure_clear (code OP2_OK when none). A jit call
 * that returns an error code has recorded it here; the caller reports it once. */
const op2_jit_error *op2_jit_failure(const op2_jit *jit);
void op2_jit_failure_clear(op2_jit *jit);
/* Records a failure (the first one stays) and returns `code`. */
int op2_jit_fail_at(op2_jit *jit, const char *file, int line, int code, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
#define op2_jit_fail(jit, ...) op2_jit_fail_at((jit), __FILE__, __LINE__, __VA_ARGS__)
/* A diagnostic at `level`, through the config's diag when its diags level asks for it. */
void op2_jit_diag(const op2_jit *jit, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- request -> result ---- */
typedef struct op2_jit_request {
  const op2_loop_desc *loop;
  const char *kernel_src;
  const char *target;        /* recorded in manifests; static storage */
  op2_kernel *const *loaded; /* the caller's kernels: a source already built is reused */
  int nloaded;
  /* or, when set, the caller's own search of its kernels by source hash: a walk of `loaded` for
   * each new loop costs O(kernels) (runtime/jit_use.c keeps a hash index) */
  op2_kernel *(*find_loaded)(void *arg, uint64_t key_hi, uint64_t key_lo);
  void *find_arg;
} op2_jit_request;
typedef struct op2_jit_result {
  op2_kernel *kernel;      /* NULL on failure (op2_jit_failure says why) */
  bool fresh;              /* a new kernel: the caller keeps it and frees it (op2_kernel_free) */
  op2_jit_counters counts; /* compiles, disk hits and refused entries of this request */
} op2_jit_result;
/* Gives the loop its kernel: one of `loaded`, the disk cache, or a fresh compile (the kernel's
 * origin, tier, compile_ms and load_ms say which and how long). */
int op2_jit_kernel(op2_jit *jit, const op2_jit_request *rq, op2_jit_result *res);
/* Frees a fresh kernel the caller cannot keep, with its pending build. */
void op2_jit_discard(op2_jit *jit, op2_kernel *k);
/* The hash of the loop's generated C source (what op2_jit_kernel keys its kernel by), for
 * backends that build their own kernels: ranks compare it (runtime/mpi/ranks.c). */
int op2_jit_source_hash(op2_jit *jit, const op2_loop_desc *loop, const char *kernel_src,
                        uint64_t hash[2]);

/* ---- templates embedded at build time (templates.c + generated table) ---- */
/* A malloc'ed copy of template `name` (e.g. "c/loop.c"), or NULL with the failure recorded. */
char *op2_template_load(op2_jit *jit, const char *name);

/* ---- code generation (codegen.c, signature.c; the emitter, emit.c: emit.h) ---- */
#define OP2_CODEGEN_VERSION 1

typedef struct op2_generated {
  op2_buf source;
  op2_buf signature;     /* the signature in words, one line per item */
  int kernel_first_line; /* line of the generated file where the user's kernel begins */
} op2_generated;

int op2_signature_describe(op2_jit *jit, const op2_loop_desc *loop, const char *target,
                           op2_buf *out);
/* Declared constants whose names occur as identifiers in the kernel text, in declaration order. */
int op2_constants_used(op2_jit *jit, const op2_loop_desc *loop, const char *kernel_src,
                       op2_const ***out, int *n);
int op2_codegen_c(op2_jit *jit, const op2_loop_desc *loop, const char *kernel_src,
                  op2_generated *out);
/* The kernel text as the generated file holds it (kernel_text.c): `extern` declarations of the
 * loop's constants blanked, C++ standard headers dropped or replaced by C ones and, with
 * rewrite_std (C targets), `std::` calls the prelude provides in C (sqrt, min, ...) without the
 * namespace and file-scope `inline` functions `static inline`.
 * Lines are kept. Appended to `out` (check out->failed). */
void op2_kernel_text_for_c(const op2_loop_desc *loop, const char *src, int rewrite_std,
                           op2_buf *out);
/* Whether the kernel is C++: "::" in its code (not in a comment or literal), other than a
 * `std::` call that op2_kernel_text_for_c rewrites. */
int op2_kernel_is_cxx(const char *src);

/* ---- compilers: a tier is one compiler with its flags (tcc.c, cc.c) ---- */
typedef struct op2_tier op2_tier;
struct op2_tier {
  const char *name; /* "tcc" or "cc" */
  char path[4096];  /* the compiler binary (cc) */
  char identity[600];
  char flags[1024];
  int timeout_s; /* a run of the compiler longer than this is stopped (0: no limit) */
  /* Compiles `source` (also written at src_path) into the shared object so_path; says in
   * flags_used the flags the compiler received (the manifest records them: they must be the
   * `flags` the key was made from). */
  int (*compile)(const op2_tier *t, const char *source, const char *src_path, const char *so_path,
                 char **log, char *flags_used, size_t flags_len);
};
void op2_tcc_tier(op2_tier *t);
/* Runs `path` with argv (spawn.c); its stdout and stderr, and why it failed, are appended to
 * *out. 0 when it ran and exited with status 0. With timeout_s > 0 a child still running after
 * that many seconds is killed with its process group, and that is a failure naming it. */
int op2_spawn_capture(const char *path, char *const argv[], int timeout_s, op2_buf *out);
/* Finds the compiler `cc` (a name in PATH or a path); -1 when there is none. Each run of it is
 * limited to timeout_s seconds (0: no limit). */
int op2_cc_tier(const char *cc, const char *flags, int timeout_s, op2_tier *t);
/* A program as the compiler tiers find it: a path (with a '/') or a name searched on PATH; its
 * resolved path in `out` (PATH_MAX bytes). 0 when it is an executable regular file, else -1. */
int op2_find_program(const char *name, char *out, size_t len);
/* Checks the syntax of the source at src_path with the system compiler `cc`; its messages go to
 * *log (malloc'ed). 0 when it finds no error. */
int op2_cc_syntax_check(const op2_tier *cc, const char *src_path, char **log);
/* The system compiler tier's compile (its `compile`): `cc path, flags, -o so_path, src_path`. */
int op2_cc_compile(const op2_tier *cc, const char *source, const char *src_path,
                   const char *so_path, char **log, char *flags_used, size_t flags_len);
/* The C++ tier (cxx.c): the compiler `cxx` ("off": none) with the optimised tier's flags, for
 * kernels TinyCC rejects; -1 when there is none. */
int op2_cxx_tier(const char *cxx, const char *flags, int timeout_s, op2_tier *t);
/* Compiles the source at src_path with `cc` and warnings that point at bugs (implicit function
 * declarations, unused values and results, uninitialised use) to nowhere; messages to *log. */
int op2_cc_warnings(const op2_tier *cc, const char *src_path, char **log);
void op2_tcc_release(void *tcc_state);
/* Compiles to a shared object at so_path, or in memory when so_path is NULL. The compiler's
 * messages go to *log (malloc'ed). */
int op2_tcc_compile(const char *source, const char *so_path, void **tcc_state, op2_kernel_fn *fn,
                    char **log);

/* ---- the on-disk cache (cache.c, cache_entry.c, manifest.c; types in cache_entry.h) ---- */
/* The cache root this run may use (created if needed), or NULL: cache off, or the directory is
 * unusable or unsafe (said once per call with OP2_DIAGS). */
const char *op2_jit_cache_root(op2_jit *jit);
/* The warnings check's result of a kernel under ROOT/warnings (warnings_record.c): 0 and the
 * lines it found (malloc'ed, "" for none) when recorded. */
struct op2_cache_key;
int op2_warnings_record_read(const char *root, const char *name, const struct op2_cache_key *key,
                             char **text);
void op2_warnings_record_write(const char *root, const char *name, const struct op2_cache_key *key,
                               const char *text, size_t len);
/* Whether a new build may be stored in `entry`: the cache is on, this process is not a follower
 * of its machine's builder, and the directory is absent or a private one of ours. */
int op2_jit_may_write(const op2_jit *jit, const char *entry);
/* Looks at a cache entry that must hold `ex`: 0 sound (v holds the verified binary), 1 absent,
 * -1 refused (why). A refused entry that this process may write is removed, unless another
 * process is building it, so that a later run does not meet it again. */
int op2_jit_entry_lookup(const op2_jit *jit, const char *entry, const op2_entry_expect *ex,
                         op2_entry_verified *v, char *why, size_t whylen);
/* Loads a C kernel's entry (NAME.c, NAME.so) through op2_jit_entry_lookup: 0 loaded, 1 absent,
 * -1 refused (why). */
int op2_jit_load_entry(const op2_jit *jit, const char *entry, const char *name,
                       const op2_cache_key *key, const char *source, size_t len, void **handle,
                       op2_kernel_fn *fn, char *why, size_t whylen);
/* Says once per engine that the cache cannot be written; counts the failed store in *cnt. */
void op2_jit_cache_unwritable(op2_jit *jit, op2_jit_counters *cnt, const char *why);

/* Building into an entry (store.c): thread-safe, touches no library state. NOT_STORED: not even
 * a private build directory could be made. */
enum {
  OP2_BUILD_OK = 0,
  OP2_BUILD_COMPILE_ERROR = -1,
  OP2_BUILD_NOT_STORED = 1,
  OP2_BUILD_ABANDONED = 2
};
typedef struct op2_build_request {
  const op2_tier *tier;
  char entry[4400]; /* the cache entry directory when keep */
  const char *name, *target, *signature;
  const char *source;
  size_t source_len;
  op2_cache_key key;
  int keep;                   /* 0: build in a private temporary directory removed once loaded */
  const _Atomic int *abandon; /* set while compiling: nothing is loaded or stored, if not NULL */
  struct op2_loaded_objects *known; /* the engine's loaded objects (op2_load_object_fd) */
  int wait_ms; /* how long to wait for another process building the entry: op2_entry_wait_ms */
} op2_build_request;
typedef struct op2_build_result {
  int status;
  void *handle;
  op2_kernel_fn fn;
  double compile_ms;
  char *log, *source_path;
  int not_stored; /* built, but the cache could not be written (why): built privately instead */
  int reused;     /* not built: another process stored the entry while we waited for its lock */
  char why[600];
} op2_build_result;
int op2_build_into_entry(const op2_build_request *req, op2_build_result *res);
void op2_build_result_clear(op2_build_result *res);

/* ---- the background tier (background.c) ---- */
enum { OP2_JOB_QUEUED = 1, OP2_JOB_DONE = 2, OP2_JOB_FAILED = 3, OP2_JOB_CANCELLED = 4 };
typedef struct op2_bg_job {
  op2_build_request request;
  op2_build_result result;
  char *source_copy, *signature_copy, *name_copy;
  _Atomic int state;
  _Atomic int cancelled; /* op2_jit_cancel: not built if not started, not stored if running */
  double submitted_at;
  struct op2_bg_job *next;
} op2_bg_job;
typedef struct op2_background op2_background;
int op2_background_submit(op2_background **bg, op2_bg_job *job);
void op2_background_stop(op2_background **bg);

/* Swaps in a finished optimised build (between two loop calls); says what became of the kernel's
 * background build. Finished and failed optimised builds are counted in *cnt. */
enum { OP2_JIT_NO_BUILD, OP2_JIT_BUILDING, OP2_JIT_BUILT, OP2_JIT_BUILD_FAILED };
int op2_jit_poll(op2_jit *jit, op2_kernel *k, op2_jit_counters *cnt);
/* The kernel's loop shape was superseded (a constant changed): its optimised build is dropped if
 * it has not started and not stored if it is running; op2_jit_poll collects it. */
void op2_jit_cancel(op2_kernel *k);
/* Sharing a machine's optimised builds (runtime/mpi/node_build.c decides who builds): a follower
 * never runs the optimising compiler in tiered mode nor writes the cache; its kernels wait
 * (awaiting_peer) until it is told the builder is done, then load the builder's entry if it is
 * there and sound (0 when loaded; the kernel stays on TinyCC code otherwise). */
void op2_jit_follow_node(op2_jit *jit, int follower);
int op2_jit_load_node_build(op2_jit *jit, op2_kernel *k);
/* ---- live constants (jit_constants.c) ---- */
/* The generated code names a live constant's pointer (C) or its __constant__ variable (CUDA)
 * with this prefix and the constant's name. */
#define OP2_LIVE_CONST_PREFIX "op2_live_"
/* Points k's current code at the values of the live constants it reads; once per code object. */
void op2_jit_bind_constants(op2_kernel *k, op2_const *const *consts, int nconsts);
/* The address of `symbol` in a loaded code object (a shared object's handle, or TinyCC's state)
 * or NULL; *bytes (if not NULL) its size where the object says, else 0. */
void *op2_jit_symbol(void *dl_handle, void *tcc_state, const char *symbol, size_t *bytes);
/* Blocks until every queued optimised build of `kernels` has finished (tests and benchmarks). */
void op2_jit_wait(op2_jit *jit, op2_kernel *const *kernels, int n, op2_jit_counters *cnt);
/* Adopts finished builds of `kernels` (so their handles close) and drops pending ones. */
void op2_jit_shutdown(op2_jit *jit, op2_kernel *const *kernels, int n, op2_jit_counters *cnt);

/* Writes a file atomically: temp file in the same directory, then rename. */
int op2_write_file_atomic(const char *path, const void *data, size_t len, char *why, size_t whylen);

#endif /* OP2_JIT_H */
