/* The JIT pipeline: loop descriptors -> generated source -> compiled (or cached) kernel. */
#ifndef OP2_JIT_H
#define OP2_JIT_H

#include <stddef.h>
#include <stdint.h>

#include <stdatomic.h>

#include "../runtime/op2_impl.h"
#include "cache_entry.h"

/* The hash of the loop's generated C source (what op2_jit_kernel keys its kernel by), for
 * backends that build their own kernels: ranks compare it (runtime/mpi/ranks.c). */
int op2_jit_source_hash(op2_context *ctx, const op2_loop *loop, const char *kernel_src,
                        uint64_t hash[2]);
/* Gives the loop its kernel: from this process's table, the disk cache, or a fresh compile. */
int op2_jit_kernel(op2_context *ctx, const op2_loop *loop, const char *kernel_src,
                   op2_kernel **out);
void op2_kernel_free(op2_kernel *k);

/* ---- a growable text buffer (strbuf.c) ---- */
typedef struct op2_buf {
  char *data;
  size_t len, cap;
  int failed; /* an allocation failed: the content is incomplete */
} op2_buf;
void op2_buf_printf(op2_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void op2_buf_append(op2_buf *b, const char *s, size_t len);
void op2_buf_free(op2_buf *b);

/* ---- templates embedded at build time (templates.c + generated table) ---- */
/* A malloc'ed copy of template `name` (e.g. "c/loop.c"), or NULL with an error raised. */
char *op2_template_load(const op2_context *ctx, const char *name);

/* ---- code generation (codegen.c, signature.c; the emitter, emit.c: emit.h) ---- */
#define OP2_CODEGEN_VERSION 1

typedef struct op2_generated {
  op2_buf source;
  op2_buf signature;     /* the signature in words, one line per item */
  int kernel_first_line; /* line of the generated file where the user's kernel begins */
} op2_generated;

int op2_signature_describe(const op2_loop *loop, const char *target, op2_buf *out);
/* Declared constants whose names occur as identifiers in the kernel text, in declaration order. */
int op2_constants_used(const op2_context *ctx, const char *kernel_src, op2_const ***out, int *n);
int op2_codegen_c(const op2_context *ctx, const op2_loop *loop, const char *kernel_src,
                  op2_generated *out);

/* ---- compilers: a tier is one compiler with its flags (tcc.c, cc.c) ---- */
typedef struct op2_tier op2_tier;
struct op2_tier {
  const char *name; /* "tcc" or "cc" */
  char path[4096];  /* the compiler binary (cc) */
  char identity[600];
  char flags[1024];
  /* Compiles `source` (also written at src_path) into the shared object so_path; says in
   * flags_used the flags the compiler received (the manifest records them: they must be the
   * `flags` the key was made from). */
  int (*compile)(const op2_tier *t, const char *source, const char *src_path, const char *so_path,
                 char **log, char *flags_used, size_t flags_len);
};
void op2_tcc_tier(op2_tier *t);
/* Runs `path` with argv (spawn.c); its stdout and stderr, and why it failed, are appended to
 * *out. 0 when it ran and exited with status 0. */
int op2_spawn_capture(const char *path, char *const argv[], op2_buf *out);
/* Finds the compiler `cc` (a name in PATH or a path); -1 when there is none. */
int op2_cc_tier(const char *cc, const char *flags, op2_tier *t);
/* Checks the syntax of the source at src_path with the system compiler `cc`; its messages go to
 * *log (malloc'ed). 0 when it finds no error. */
int op2_cc_syntax_check(const op2_tier *cc, const char *src_path, char **log);
/* The system compiler tier's compile (its `compile`): `cc path, flags, -o so_path, src_path`. */
int op2_cc_compile(const op2_tier *cc, const char *source, const char *src_path,
                   const char *so_path, char **log, char *flags_used, size_t flags_len);
/* The C++ tier (cxx.c): the compiler `cxx` ("off": none) with the optimised tier's flags, for
 * kernels TinyCC rejects; -1 when there is none. */
int op2_cxx_tier(const char *cxx, const char *flags, op2_tier *t);
void op2_tcc_release(void *tcc_state);
/* Compiles to a shared object at so_path, or in memory when so_path is NULL. The compiler's
 * messages go to *log (malloc'ed). */
int op2_tcc_compile(const char *source, const char *so_path, void **tcc_state, op2_kernel_fn *fn,
                    char **log);

/* ---- the on-disk cache (cache.c, cache_entry.c, manifest.c; types in cache_entry.h) ---- */
/* The cache root this run may use (created if needed), or NULL: cache off, or the directory is
 * unusable or unsafe (said once per call with OP2_DIAGS). */
const char *op2_jit_cache_root(op2_context *ctx);
/* Whether a new build may be stored in `entry`: the cache is on, this rank writes for its node,
 * and the directory is absent or a private one of ours. */
int op2_jit_may_write(const op2_context *ctx, const char *entry);
/* Looks at a cache entry that must hold `ex`: 0 sound (v holds the verified binary), 1 absent,
 * -1 refused (why). A refused entry that this process may write is removed, unless another
 * process is building it, so that a later run does not meet it again. */
int op2_jit_entry_lookup(const op2_context *ctx, const char *entry, const op2_entry_expect *ex,
                         op2_entry_verified *v, char *why, size_t whylen);
/* Loads a C kernel's entry (NAME.c, NAME.so) through op2_jit_entry_lookup: 0 loaded, 1 absent,
 * -1 refused (why). */
int op2_jit_load_entry(const op2_context *ctx, const char *entry, const char *name,
                       const op2_cache_key *key, const char *source, size_t len, void **handle,
                       op2_kernel_fn *fn, char *why, size_t whylen);
/* Says once per process that the cache cannot be written. */
void op2_jit_cache_unwritable(op2_context *ctx, const char *why);

/* Building into an entry (store.c): thread-safe, touches no library state. NOT_STORED: not even
 * a private build directory could be made. */
enum { OP2_BUILD_OK = 0, OP2_BUILD_COMPILE_ERROR = -1, OP2_BUILD_NOT_STORED = 1 };
typedef struct op2_build_request {
  const op2_tier *tier;
  char entry[4400]; /* the cache entry directory when keep */
  const char *name, *target, *signature;
  const char *source;
  size_t source_len;
  op2_cache_key key;
  int keep; /* 0: build in a private temporary directory removed once loaded */
} op2_build_request;
typedef struct op2_build_result {
  int status;
  void *handle;
  op2_kernel_fn fn;
  double compile_ms;
  char *log, *source_path;
  int not_stored; /* built, but the cache could not be written (why): built privately instead */
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
  double submitted_at;
  struct op2_bg_job *next;
} op2_bg_job;
typedef struct op2_background op2_background;
int op2_background_submit(op2_background **bg, op2_bg_job *job);
void op2_background_stop(op2_background **bg);

/* Swaps in a finished optimised build (between two loop calls); says what became of the kernel's
 * background build. */
enum { OP2_JIT_NO_BUILD, OP2_JIT_BUILDING, OP2_JIT_BUILT, OP2_JIT_BUILD_FAILED };
int op2_jit_poll(op2_context *ctx, op2_kernel *k);
/* Sharing a machine's optimised builds (runtime/mpi/node_build.c decides who builds): a follower
 * never runs the optimising compiler in tiered mode nor writes the cache; its kernels wait
 * (awaiting_peer) until it is told the builder is done, then load the builder's entry if it is
 * there and sound (0 when loaded; the kernel stays on TinyCC code otherwise). */
void op2_jit_follow_node(op2_context *ctx, int follower);
int op2_jit_load_node_build(op2_context *ctx, op2_kernel *k);
/* ---- live constants (jit_constants.c) ---- */
/* The generated code names a live constant's pointer with this prefix and the constant's name. */
#define OP2_LIVE_CONST_PREFIX "op2_live_"
/* Points k's current code at the values of the live constants it reads; once per code object. */
int op2_jit_bind_constants(op2_context *ctx, op2_kernel *k);
/* Blocks until every queued optimised build has finished (tests and benchmarks). */
void op2_jit_wait(op2_context *ctx);
void op2_jit_shutdown(op2_context *ctx);
int op2_jit_init(op2_context *ctx);

/* Writes a file atomically: temp file in the same directory, then rename. */
int op2_write_file_atomic(const char *path, const void *data, size_t len, char *why, size_t whylen);

#endif /* OP2_JIT_H */
