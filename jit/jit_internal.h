/* SPDX-License-Identifier: BSD-3-Clause */
/* The jit layer's internals, private to jit/ (runtime/ never includes this: ctest/layers checks
 * it): the kernel object, the engine, failures and diagnostics, code generation, the compiler
 * tiers, the cache and the background tier. */
#ifndef OP2_JIT_INTERNAL_H
#define OP2_JIT_INTERNAL_H

#include <stdatomic.h>

#include "cache_entry.h"
#include "emit.h"
#include "jit.h"

/* ---- the kernel ---- */
/* A follower's wait for its machine's optimised build (allocated only while it waits). */
typedef struct op2_kernel_peer {
  char entry[OP2_PATH_BUF]; /* the cache entry it will appear in */
  char *source;             /* the source it is built from, to verify the entry */
  size_t source_len;
} op2_kernel_peer;

typedef struct op2_kernel {
  uint64_t key_hi, key_lo; /* hash of the generated source: one kernel object per source */
  char *name;
  op2_kernel_fn fn; /* what calls run now; swapped only between calls */
  /* while fn is NULL: the generic entry and its closure (a Fortran kernel's first tier) */
  op2_kernel_closure_fn closure_fn;
  void *closure;
  /* program variables the optimised code reads by address: op2_host_NAME pointers it defines,
   * set with the live constants' (jit_constants.c) */
  char **host_names;
  void **host_addrs;
  int nhost;
  const struct op2_tier *upgrade_tier; /* the compiler of its optimised build (C or Fortran) */
  op2_tier_id tier;                    /* which compiler produced fn */
  void *dl_handle;                     /* shared object holding fn, or NULL */
  op2_kernel_origin origin;
  double compile_ms;     /* compile time this process spent for the first tier, 0 from disk */
  double load_ms;        /* time from request to callable function */
  double requested_at;   /* wall clock of the first request */
  double upgrade_ms;     /* first request -> optimised code in use, 0 if never */
  double cc_compile_ms;  /* background compile time */
  char *source_path;     /* generated source in the cache, or NULL */
  void *job;             /* pending background build, or NULL */
  bool awaiting_peer;    /* another process of this machine builds the optimised code */
  bool cc_failed_before; /* its optimised build failed in an earlier run (build_failures.c) */
  bool warnings_told;    /* its optimised build's warnings were said (kernel_warnings.c) */
  long runs;             /* calls that ran it (op2_kernel_ran: its queued build's weight) */
  op2_kernel_peer *peer; /* where and from what, while awaiting_peer */
  /* the fn whose live-constant pointers are set (jit_constants.c) */
  op2_kernel_fn constants_bound;
  /* the CUDA targets': the CUBIN and PTX (CUDA), the constants the kernel uses */
  char *image, *ptx;
  size_t image_len, ptx_len;
  op2_const **consts;
  int nconsts;
} op2_kernel;

/* ---- failures and diagnostics (jit.c) ---- */
/* Records a failure (the first one stays) and returns `code`. */
int op2_jit_fail_at(op2_jit *jit, const char *file, int line, const char *func, int code,
                    const char *fmt, ...) __attribute__((format(printf, 6, 7)));
#define op2_jit_fail(jit, ...) op2_jit_fail_at((jit), __FILE__, __LINE__, __func__, __VA_ARGS__)
/* A diagnostic at `level`, through the config's diag when its diags level asks for it. */
void op2_jit_diag(const op2_jit *jit, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The address of `symbol` in a loaded code object (an op2_object: every object, TinyCC's too)
 * or NULL; *bytes (if not NULL) its size where the object says, else 0 (jit_constants.c). */
void *op2_jit_symbol(void *dl_handle, const char *symbol, size_t *bytes);

/* ---- templates embedded at build time (templates.c + generated table) ---- */
/* A malloc'ed copy of template `name` (e.g. "c/loop.c"), or NULL with the failure recorded. */
char *op2_template_load(op2_jit *jit, const char *name);

/* ---- code generation (codegen.c, signature.c; the emitter, emit.c: emit.h) ---- */
int op2_signature_describe(op2_jit *jit, const op2_loop_desc *loop, const char *target,
                           op2_buf *out);
/* Declared constants whose names occur as identifiers in the kernel text, in declaration order. */
int op2_constants_used(op2_jit *jit, const op2_loop_desc *loop, const char *kernel_src,
                       op2_const ***out, int *n);
int op2_codegen_c(op2_jit *jit, const op2_loop_desc *loop, const char *kernel_src,
                  op2_generated *out);
/* The kernel text as the generated file holds it (kernel_text.c): `extern` declarations of the
 * loop's constants blanked, C++ standard headers dropped or replaced by C ones, file-scope
 * `inline` functions without a storage class made `static` (every target: the emulator builds
 * the CUDA file as C) and, with rewrite_std (C targets), the C++ the kernel does not reach left
 * out (when the rest is C), C++ with a C form lowered and `std::` calls the prelude provides in C
 * (sqrt, min, ...) without the namespace.
 * Lines are kept. Appended to `out` (check out->failed). */
void op2_kernel_text_for_c(const op2_loop_desc *loop, const char *src, int rewrite_std,
                           op2_buf *out);
/* The C++ tier's context of a kernel found through its calling file (the comment that
 * runtime/kernel_search.c puts at the start of the text): its text into `context`, and the
 * length of the comment, which the rest of the text follows; 0 when the text has none. */
size_t op2_kernel_context(const char *text, op2_buf *context);

/* ---- compilers: a tier is one compiler with its flags (tcc.c, cc.c) ---- */
typedef struct op2_tier op2_tier;
struct op2_tier {
  const char *name;        /* "tcc" or "cc" */
  char path[OP2_PATH_MAX]; /* the compiler binary (cc) */
  char identity[600];
  char flags[1024];
  int timeout_s;         /* a run of the compiler longer than this is stopped (0: no limit) */
  const char *src_ext;   /* its source file's extension in a cache entry: "c" when NULL */
  char extra_dirs[4096]; /* gfortran: module directories it is given (':'-separated) */
  /* its builds also give the warnings check's warnings (cc.c: flags that change no code, outside
   * the key): the system C compiler's tier, not C++'s */
  int warn;
  /* Compiles `source` (also written at src_path) into the shared object so_path; says in
   * flags_used the flags the compiler received (the manifest records them: they must be the
   * `flags` the key was made from). */
  int (*compile)(const op2_tier *t, const char *source, const char *src_path, const char *so_path,
                 char **log, char *flags_used, size_t flags_len);
};
void op2_tcc_tier(op2_tier *t);
static inline const char *op2_tier_src_ext(const op2_tier *t) {
  return t->src_ext ? t->src_ext : "c";
}
/* Runs `path` with argv (spawn.c); its stdout and stderr, and why it failed, are appended to
 * *out. 0 when it ran and exited with status 0, else OP2_SPAWN_* (below). With timeout_s > 0 a
 * child still running after that many seconds is killed with its process group, and that is a
 * failure naming it. */
int op2_spawn_capture(const char *path, char *const argv[], int timeout_s, op2_buf *out);
/* What op2_spawn_capture returns: 0, REJECTED when the child ran and exited with a non-zero
 * status (a compiler that rejects its input), BROKEN when it could not be run, was killed, ran
 * past its time limit or its status was lost. */
enum { OP2_SPAWN_REJECTED = -1, OP2_SPAWN_BROKEN = -2 };
/* A private directory for one run of a tool (run_dir.c): TMPDIR/op2-run-XXXXXX, the tool's input
 * and output inside it; op2_run_dir_close removes it and what the tool left there. Failures are
 * appended to *why. */
typedef struct op2_run_dir {
  char path[OP2_PATH_BUF];
  int fd;
} op2_run_dir;
int op2_run_dir_open(op2_run_dir *d, op2_buf *why);
/* The path of `file` inside the directory. */
void op2_run_dir_file(const op2_run_dir *d, const char *file, char *out, size_t len);
/* Writes a new file `file` (O_EXCL|O_NOFOLLOW) into the directory: 0, else -1. */
int op2_run_dir_write(const op2_run_dir *d, const char *file, const void *data, size_t len,
                      op2_buf *why);
void op2_run_dir_close(op2_run_dir *d);
/* Finds the compiler `cc` (a name in PATH or a path); -1 when there is none. Each run of it is
 * limited to timeout_s seconds (0: no limit). */
int op2_cc_tier(const char *cc, const char *flags, int timeout_s, op2_tier *t);
/* Checks the syntax of kernel `name`'s generated source with the system compiler `cc` (the source
 * is written to NAME.c in a private run directory); its messages go to *log (malloc'ed). 0 when
 * it finds no error. */
int op2_cc_syntax_check(const op2_tier *cc, const char *name, const char *source, size_t len,
                        char **log);
/* The system compiler tier's compile (its `compile`): `cc path, flags, -o so_path, src_path`. */
int op2_cc_compile(const op2_tier *cc, const char *source, const char *src_path,
                   const char *so_path, char **log, char *flags_used, size_t flags_len);
/* Whether the compiler's messages `log` name one of the warnings check's flags as an argument
 * (not as a warning's "[-Wname]" tag): the compiler refused it, and the kernel was not at fault. */
int op2_cc_refused_warning_flag(const char *log);
/* The C++ tier (cxx.c): the compiler `cxx` ("off": none) with the optimised tier's flags, for
 * kernels TinyCC rejects; -1 when there is none. */
int op2_cxx_tier(const char *cxx, const char *flags, int timeout_s, op2_tier *t);
/* Compiles kernel `name`'s generated source with `cc` and the warnings that point at bugs
 * (implicit function declarations, unused values and results, uninitialised use) in a private run
 * directory; messages to *log. */
int op2_cc_warnings(const op2_tier *cc, const char *name, const char *source, size_t len,
                    char **log);
/* Compiles to a shared object at so_path (with a non-executable PT_GNU_STACK header). The
 * compiler's messages go to *log (malloc'ed). */
int op2_tcc_compile(const char *source, const char *so_path, char **log);
/* The same into a file in memory (no disk), loaded at once through `known` (op2_load_object_fd):
 * *handle an op2_object, *fn its op2_loop. */
int op2_tcc_compile_memory(const char *source, op2_loaded_objects *known, void **handle,
                           op2_kernel_fn *fn, char **log);

/* ---- the on-disk cache (cache.c, cache_entry.c, manifest.c; types in cache_entry.h) ---- */
/* Records about a kernel's build under ROOT/KIND/NAME-KEY16.txt (kernel_records.c; the kinds are
 * cache_entry.h's OP2_RECORD_*): 0 and the text (malloc'ed) when recorded, -1 when not. */
struct op2_cache_key;
int op2_kernel_record_read(const char *root, const char *kind, const char *name,
                           const struct op2_cache_key *key, char **text);
/* Writes a record whole: OP2_OK, else an OP2_ERR_* code with *why. */
int op2_kernel_record_write(const char *root, const char *kind, const char *name,
                            const struct op2_cache_key *key, const char *text, size_t len,
                            op2_jit_error *why);
/* An optimised build of kernel `name` by tier t that failed (build_failures.c): said once at every
 * OP2_DIAGS level (the compiler, its first error line, what runs instead; the whole log at 2),
 * and recorded under `key` when the compiler rejected the source (`rejected`), so that later
 * runs do not build it again. */
void op2_jit_build_failed(op2_jit *jit, const char *name, const op2_tier *t,
                          const struct op2_cache_key *key, const char *log, int rejected);
/* 1 when a failed optimised build of `name` is recorded under `key` (then said: the first such
 * kernel of a run at every level, the others at OP2_DIAGS=1); 0 otherwise. */
int op2_jit_failed_before(op2_jit *jit, op2_jit_counters *cnt, const char *name,
                          const struct op2_cache_key *key);
/* The line of a compiler's messages that says what is wrong (its first error, else its first
 * line), the generated file's directory left out. */
void op2_first_error_line(const char *log, char *out, size_t len);
/* Whether a new build may be stored in `entry`: the cache is on, this process is not a follower
 * of its machine's builder, and the directory is absent or a private one of ours. */
int op2_jit_may_write(const op2_jit *jit, const char *entry);
/* Looks at a cache entry that must hold `ex`: OP2_OK sound (v holds the verified binary),
 * OP2_ENTRY_ABSENT absent, else an OP2_ERR_* code: refused, *err saying why (the entry named
 * first; the place is where the refusal was found). A refused entry that this process may write
 * is removed, unless another process is building it, so that a later run does not meet it again. */
int op2_jit_entry_lookup(const op2_jit *jit, const char *entry, const op2_entry_expect *ex,
                         op2_entry_verified *v, op2_jit_error *err);
/* Loads a C kernel's entry (NAME.c, NAME.so) through op2_jit_entry_lookup: OP2_OK loaded,
 * OP2_ENTRY_ABSENT absent, else refused (*err). */
int op2_jit_load_entry(const op2_jit *jit, const char *entry, const char *name,
                       const op2_cache_key *key, const char *source, size_t len, void **handle,
                       op2_kernel_fn *fn, op2_jit_error *err);
/* The same for an entry whose source file is NAME.src_ext (a Fortran kernel's: F90). */
int op2_jit_load_entry_ext(const op2_jit *jit, const char *entry, const char *name,
                           const char *src_ext, const op2_cache_key *key, const char *source,
                           size_t len, void **handle, op2_kernel_fn *fn, op2_jit_error *err);
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
  char entry[OP2_PATH_BUF]; /* the cache entry directory when keep */
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
  int rejected;   /* the compiler ran and rejected the source (not a timeout, kill or full disk) */
  int warned;     /* built with the warnings check's flags: log holds the check's messages */
  op2_jit_error why; /* why it failed, or why it was not stored (not_stored) */
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
  /* the time its kernel has run TinyCC code so far (op2_kernel_ran): the heaviest is built next */
  _Atomic unsigned long long weight_ns;
  double submitted_at;
  struct op2_bg_job *next;
} op2_bg_job;
typedef struct op2_background op2_background;
/* Queues a job, starting the tier's `nthreads` workers with the first. 0, or -1 when no worker
 * can be started. */
int op2_background_submit(op2_background **bg, int nthreads, op2_bg_job *job);
void op2_background_stop(op2_background **bg);

/* ---- the engine ---- */
struct op2_jit {
  op2_jit_config cfg;
  op2_tier tcc, cc, cxx;
  int cc_usable;
  int cxx_state; /* the C++ tier (cxx.c), set up when first needed: 0 not yet, 1 usable, -1 none */
  int told_unwritable;    /* the warning that the cache cannot be written is given once */
  int told_failed_before; /* kernels this run left on TinyCC code for a recorded failure */
  int node_follower;      /* another process of this machine builds and stores optimised code */
  op2_background *background;
  op2_loaded_objects *loaded; /* the objects this engine loaded: see op2_load_object_fd */
  op2_tier fortran;           /* gfortran, for Fortran kernels' optimised builds (fortran_tier.c) */
  int fortran_state;          /* 0 not looked for yet, 1 usable, -1 none */
  int told_no_fortran;
  op2_jit_error failure;
  struct op2_facts_table *facts; /* what was read of each kernel text (kernel_facts.c) */
};

/* ---- the targets (targets.c): one row per target, what op2_jit_kernel dispatches through ---- */
typedef struct op2_target {
  const char *name; /* recorded in manifests */
  /* its cache entry's files: NAME.src_ext, NAME.bin_ext (and NAME.extra_ext, or NULL) */
  const char *src_ext, *bin_ext, *extra_ext;
  bool per_arch; /* its kernels are keyed by the architecture too (rq->cuda.arch) */
  /* the request's source */
  int (*codegen)(op2_jit *jit, const op2_jit_request *rq, op2_generated *out);
  /* fills k's code from the cache or a compile, counted in *cnt */
  int (*obtain)(op2_jit *jit, const op2_jit_request *rq, op2_jit_counters *cnt, op2_kernel *k,
                const op2_generated *gen);
  /* after a fresh kernel is ready (C: the warnings check, its diagnostic), or NULL */
  void (*finish)(op2_jit *jit, op2_kernel *k, const op2_generated *gen);
} op2_target;
/* The row of `id`, or NULL when this build has no such target (CUDA not built). */
const op2_target *op2_target_of(op2_target_id id);
/* The name of the request's kernel: its loop's, or the halo gather kernel's. */
const char *op2_jit_request_name(const op2_jit_request *rq);
/* The Fortran target's rows (fortran_target.c). */
int op2_fortran_target_codegen(op2_jit *jit, const op2_jit_request *rq, op2_generated *out);
int op2_fortran_target_obtain(op2_jit *jit, const op2_jit_request *rq, op2_jit_counters *cnt,
                              op2_kernel *k, const op2_generated *gen);
/* The C target's finish (jit.c). */
void op2_jit_c_finish(op2_jit *jit, op2_kernel *k, const op2_generated *gen);

/* The kernel's tier ladder (ladder.c): the caller's kernels were searched already; fills k from
 * the cache or a compile. Counted in *cnt. */
int op2_jit_obtain(op2_jit *jit, const op2_jit_request *rq, op2_jit_counters *cnt, op2_kernel *k,
                   const op2_generated *gen);
/* The key of generated source for a tier (compiler identity and flags). */
void op2_jit_tier_key(const op2_tier *t, const op2_generated *gen, op2_cache_key *key);
/* Fills a build request: into the cache entry when may_write, otherwise into a private
 * temporary directory removed once the object is loaded. */
void op2_jit_prepare_build(const op2_jit *jit, const op2_jit_request *rq, const op2_tier *t,
                           const op2_generated *gen, const char *entry, int may_write,
                           op2_build_request *req);
/* The warnings check (kernel_warnings.c): from a fresh optimised build's messages (log), said
 * at OP2_DIAGS=1 and recorded under `key`, whatever the level (log NULL: a build another process
 * made, whose record is read); */
void op2_jit_build_warnings(op2_jit *jit, op2_kernel *k, const struct op2_cache_key *key,
                            const char *log);
/* and when a C kernel is ready: its record's count, or, when no optimised build brings them and
 * none was recorded, a check of its own. */
void op2_jit_kernel_warnings(op2_jit *jit, op2_kernel *k, const op2_generated *gen);
/* When the kernel's object was loaded with dlopen because the direct loader does not support it:
 * said at OP2_DIAGS=2 and recorded under ROOT/loader for `key` (the build's), which op2-cache
 * list shows. */
void op2_jit_note_loader(op2_jit *jit, const op2_kernel *k, const struct op2_cache_key *key);
/* Makes a finished build the kernel's code (the previous code object is released). */
void op2_jit_adopt_build(op2_kernel *k, op2_build_result *res, op2_tier_id tier);
/* After the kernel runs TinyCC code: its optimised build into `entry` (may_write) queued on the
 * background tier, or, on a follower of its machine's builder, awaited from that builder. */
void op2_jit_upgrade_later(op2_jit *jit, const op2_jit_request *rq, op2_jit_counters *cnt,
                           op2_kernel *k, const op2_generated *gen, const char *entry,
                           int may_write);
/* The same with the compiler of another tier (a Fortran kernel's: gfortran). */
void op2_jit_upgrade_with(op2_jit *jit, const op2_jit_request *rq, op2_jit_counters *cnt,
                          const op2_tier *t, op2_kernel *k, const op2_generated *gen,
                          const char *entry, int may_write);

#endif /* OP2_JIT_INTERNAL_H */
