/* SPDX-License-Identifier: BSD-3-Clause */
/* The runtime's private structures. Users never see these: include/op2.h has only opaque
 * handles. All mutable state hangs off one op2_context. What jit/ shares with runtime/ (types,
 * argument descriptors, constants, compiled kernels) is in jit/desc.h and jit/jit.h. */
#ifndef OP2_IMPL_H
#define OP2_IMPL_H

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "op2.h"
#include "../jit/jit.h"
#include "index.h"

/* ---- the one error mechanism (error.c); status codes: jit/desc.h ---- */
typedef struct op2_context op2_context;

/* The one error rule: the function that detects a failure reports it, once, with op2_error;
 * its callers only propagate the code (OP2_CALL) and never report it again. op2_error records
 * the message in the context and calls the handler; it returns the code, so that
 * `return op2_error(...)` propagates it when the handler returns. At OP2_DIAGS=2 the message
 * ends with the file and line that reported it. */
int op2_error_at(const char *file, int line, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define op2_error(...) op2_error_at(__FILE__, __LINE__, __VA_ARGS__)
/* Exits now if the default handler deferred its exit to the end of a collective step (op2_mpi.h)
 * and no step is in progress any more. */
void op2_error_exit_deferred(op2_context *ctx);
/* Diagnostics on stderr when the context's diags level is at least `level`. */
void op2_diag(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- types (types.c) ---- */
int op2_type_parse(const char *name, op2_type *out); /* OP2_OK or OP2_ERR_ARG, no message */

/* ---- mesh objects ---- */
/* Halo lists of one set (OP2's design). Exports name owned elements, by local index, that a
 * neighbour needs; imports are contiguous ranges of the halo region, neighbour by neighbour. */
typedef struct op2_halo_list {
  int nranks;
  int *ranks;    /* neighbour ranks, ascending */
  int *offset;   /* nranks+1: exports: into elements; imports: relative to the region start */
  int *elements; /* exports only: local indices */
} op2_halo_list;

typedef struct op2_halo {
  op2_halo_list exp_exec, imp_exec, exp_nonexec, imp_nonexec;
  /* Every exported row in the order messages carry them (neighbour by neighbour, its exec rows
   * then its non-exec rows): built at the first exchange, so accelerators pack with one gather. */
  int *send_rows;
  int nsend_rows;
} op2_halo;

/* Each object begins with what a program may read of it (op2.h's op_*_core, const there): the
 * same bytes under the library's writable names, through an anonymous union. */
struct op2_set {
  union {
    op_set_core core; /* the program's view */
    struct {
      int index; /* position in the context's set list */
      int size;  /* elements this rank owns (all of them without MPI) */
      char *name;
      int core_size;    /* owned elements [0, core_size) reach no halo element through any map */
      int exec_size;    /* import exec halo [size, size + exec_size): run by indirect-write loops */
      int nonexec_size; /* import non-exec halo, read only */
    };
  };
  int *orig; /* element -> the user's (global) index of it; NULL while in the user's order */
  int *rank; /* the inverse of orig (single process only) */
  /* Distributed memory. Local element order: [core | owned non-core | import exec halo | import
   * non-exec halo]; without MPI core_size == size and the halos are empty. */
  long global_size;
  long decl_first; /* the block this rank declared: first global index and count */
  int decl_count;
  long *decl_firsts; /* every rank's decl_first, then global_size (MPI, once distributed) */
  op2_halo *halo;    /* NULL without MPI */
};

struct op2_map {
  union {
    op_map_core core;
    struct {
      int index;
      op_set from, to;
      int dim;
      int *values; /* from->size * dim, element-major */
      char *name;
    };
  };
};

struct op2_dat {
  union {
    op_dat_core core;
    struct {
      int index;
      op_set set;
      int dim;
      int elem_size;   /* elem_bytes for the program (OP2's dat->size) */
      char *data;      /* (size + exec + non-exec halo) * elem_bytes, 64-byte aligned */
      char *type_name; /* the type as declared, ":soa" included (written to HDF5 files) */
      char *name;
    };
  };
  op2_type type;
  size_t elem_bytes; /* dim * type size */
  bool halo_dirty;   /* written since its halo copies were last refreshed */
  void *device;      /* accelerator backends: their copy of the data (NULL until first use) */
  bool device_newer; /* the device copy has changes the host copy lacks */
  bool temp;         /* declared by op_decl_dat_temp: op_free_dat_temp may release it */
  /* MPI: its halo message buffers and requests, kept from one exchange to the next
   * (runtime/mpi/exchange.c; NULL until its first exchange) */
  struct op2_halo_buffers *halo_buffers;
};

/* op_decl_dat, and op_decl_dat_temp (`temp`: zeros, allowed after the mesh was distributed). */
op_dat op2_decl_dat(op_set set, int dim, const char *type, const void *data, const char *name,
                    bool temp);

/* The program's view and the library's names must be the same bytes. */
#define OP2_SAME_FIELD(type, pub, priv)                                                        \
  _Static_assert(offsetof(struct type, core.pub) == offsetof(struct type, priv) &&             \
                     sizeof(((struct type *)0)->core.pub) == sizeof(((struct type *)0)->priv), \
                 #type "." #priv " is not the public " #pub)
OP2_SAME_FIELD(op2_set, index, index);
OP2_SAME_FIELD(op2_set, size, size);
OP2_SAME_FIELD(op2_set, name, name);
OP2_SAME_FIELD(op2_set, core_size, core_size);
OP2_SAME_FIELD(op2_set, exec_size, exec_size);
OP2_SAME_FIELD(op2_set, nonexec_size, nonexec_size);
OP2_SAME_FIELD(op2_map, index, index);
OP2_SAME_FIELD(op2_map, from, from);
OP2_SAME_FIELD(op2_map, to, to);
OP2_SAME_FIELD(op2_map, dim, dim);
OP2_SAME_FIELD(op2_map, map, values);
OP2_SAME_FIELD(op2_map, name, name);
OP2_SAME_FIELD(op2_dat, index, index);
OP2_SAME_FIELD(op2_dat, set, set);
OP2_SAME_FIELD(op2_dat, dim, dim);
OP2_SAME_FIELD(op2_dat, size, elem_size);
OP2_SAME_FIELD(op2_dat, data, data);
OP2_SAME_FIELD(op2_dat, type, type_name);
OP2_SAME_FIELD(op2_dat, name, name);

/* A constant is baked into kernels as a literal while it has taken at most OP2_CONST_BAKED_VALUES
 * distinct values (going back to one reuses its kernel); the next new value makes kernels (C and
 * CUDA) read it at run time, so a loop compiles at most OP2_CONST_BAKED_VALUES + 1 kernels per
 * constant whatever the number of values. */
#define OP2_CONST_BAKED_VALUES 2

/* ---- loop arguments, resolved once per loop shape ---- */
/* op_arg.tag of every value an op_arg_* call made: other bytes are refused, never followed. */
enum { OP2_ARG_TAG = 0x4f704172 };

/* ---- execution plans: the struct is in backend.h ---- */
typedef struct op2_plan op2_plan;

/* Per-loop parameters auto-tuning may choose (tune.c); 0 means the option's value. */
typedef struct op2_tune_params {
  int part_size;  /* plan block size (OP2_PART_SIZE) */
  int coloured;   /* OpenMP: block colouring instead of the thread-owned layout */
  int block_size; /* CUDA threads per block (OP2_CUDA_BLOCK_SIZE), at most the option's */
} op2_tune_params;
typedef enum { OP2_TUNED_NOT, OP2_TUNED_NOW, OP2_TUNED_RECORD } op2_tune_source;

/* Per loop name: what op_timing_output() reports. */
typedef struct op2_loop_stats {
  char *name;
  long calls;
  double seconds;
  double bytes;  /* moved by all calls */
  double jit_ms; /* code generation + compile or load, all shapes of this loop */
  int kernels_compiled, kernels_from_disk;
  long calls_by_tier[2]; /* calls run on TinyCC code and on optimised code */
  double upgrade_ms;     /* worst first-call -> optimised-code delay of its kernels */
  double cc_compile_ms;  /* optimising compiles (background or from a disk hit: 0) */
  bool cxx;              /* a kernel of the loop is C++ (built by OP2_CXX) */
  double plan_seconds;
  double halo_bytes; /* sent by halo exchanges before this loop's calls */
  long halo_messages;
  /* auto-tuning (tune.c): the parameters in use and where they came from */
  op2_tune_source tune_source;
  op2_tune_params tune_params;
  char tune_text[96];    /* the parameters in words */
  long tune_calls;       /* calls run on trial parameters */
  double tune_ms;        /* tuning's own work: trial plans, records */
  double tune_excess_ms; /* trial calls' time beyond the same calls on the chosen parameters */
} op2_loop_stats;

/* One loop shape: kernel text + set + argument descriptors (with dat and map identities). */
typedef struct op2_loop {
  uint64_t hash;
  uint64_t name_key; /* op2_index_key(name, set): the loops of one name on one set */
  char *key_blob;    /* exact bytes the hash was taken of, compared on lookup */
  size_t key_len;
  char *name;
  op_set set;
  unsigned const_generation; /* constants baked into its kernel */
  int nargs;
  op_arg *args; /* copies; gbl data pointers are taken from each call instead */
  op2_arg_desc *desc;
  op2_kernel *kernel;   /* the C kernel, or NULL under a backend with its own code generator */
  void *backend_kernel; /* that backend's kernel for this shape (its prepare), owned by it */
  bool prepared;        /* prepare has run (at the first call every rank agreed on) */
  /* Element ranges run in order: [0, size) alone without MPI; under MPI the core elements (while
   * halo messages travel), the other owned ones, and the exec halo for indirect-write loops. */
  int nphases;
  int phase_begin[3], phase_end[3];
  op2_plan *plans[3]; /* per phase; NULL when no argument is written through a map */
  bool writes_indirectly;
  op2_tune_params params; /* tuned parameters in use (tune.c); zero: the options' */
  struct op2_tune *tune;  /* tuning in progress, or NULL */
  bool tune_done;         /* tuned, read from a record, or nothing to tune */
  op2_loop_stats *stats;
  double bytes_per_call;
  /* MPI, laid out once when the loop is created (op2_loop_mpi_scratch): the dats a call
   * exchanges, then per reduction argument, at mpi_red_off[i], three private partials (owned
   * phases, exec halo, the sum over ranks). Calls allocate nothing. */
  char *mpi_scratch;
  size_t *mpi_red_off;
  /* MPI: what every rank must agree on before a call moves data: the generated source's hash
   * and the identities of the set, dats and maps (runtime/mpi/ranks.c). */
  uint64_t rank_key[2];
} op2_loop;

/* ---- backends: the API is in backend.h ---- */
typedef struct op2_backend op2_backend;

/* ---- options (options.c) ---- */
/* Under MPI: did each rank declare its block, or every rank the whole mesh? */
typedef enum { OP2_DECL_AUTO, OP2_DECL_LOCAL, OP2_DECL_REPLICATED } op2_decl_mode;
/* OP2_CUDA_STRATEGY as the user asked; the CUDA backend maps it to its op2_cuda_strategy. */
typedef enum {
  OP2_CUDA_ASK_AUTO,
  OP2_CUDA_ASK_ATOMICS,
  OP2_CUDA_ASK_GLOBAL,
  OP2_CUDA_ASK_HIERARCHICAL
} op2_cuda_ask;

/* OP2_TUNE: persistent auto-tuning of per-loop parameters (tune.c). */
typedef enum { OP2_TUNE_OFF, OP2_TUNE_ON, OP2_TUNE_RESET } op2_tune_mode;

typedef struct op2_options {
  char backend[32];
  int part_size;
  int diags;
  op2_cache_mode cache_mode;
  op2_jit_mode jit_mode;
  int renumber; /* reorder sets for locality before the first loop */
  op2_decl_mode mpi_decl;
  char cc[1024];           /* optimising compiler */
  char cflags[1024];       /* its flags (with the SIMD flags when simd_width > 0) */
  char cxx[1024];          /* OP2_CXX: the C++ compiler for kernels TinyCC rejects, or "off" */
  int simd;                /* OP2_SIMD: 0 off, -1 auto, else lanes per group */
  int simd_width;          /* lanes the optimised tier uses: 0 scalar */
  char profile_json[4096]; /* where op_exit writes per-loop statistics, or "" */
  char cache_dir[4096];
  char template_dir[4096]; /* developers: read templates from here instead of the built-in ones */
  char restart[4096];      /* OP2_RESTART: the checkpoint this run restarts from, or "" */
  int ptscotch_check;      /* PT-Scotch checks its distributed graph (costly) */
  double partition_keep;   /* op_partition keeps declared blocks this good (keep_blocks.c) */
  int huge_pages;          /* large arrays advised as transparent huge pages (util.c) */
  int maps_base_index;     /* OP2's argv entry OP_MAPS_BASE_INDEX=1: map values count from 1 */

  int compile_timeout; /* OP2_COMPILE_TIMEOUT: seconds a child compiler may run (0: none) */
  int loader_dlopen;   /* OP2_LOADER=dlopen: kernel objects through glibc only (gdb, perf) */
  /* CUDA backends */
  char cuda_driver[1024]; /* the driver library */
  int cuda_device;        /* ordinal, or -1: the rank on its node modulo the device count */
  char cuda_arch[16];     /* sm_XX, or "": the device's */
  int cuda_block_size;    /* threads per block of one-thread-per-element kernels */
  op2_cuda_ask cuda_strategy;
  char cuda_emu_verify[128]; /* emulator: also compile with NVRTC for these architectures */
  char cuda_ptxas[4096];     /* emulator: and assemble the PTX with this ptxas, or "" */
  int cuda_emu_sectors;      /* emulator: count global-memory traffic */
  char kernel_path[8192];    /* OP2_KERNEL_PATH: where op_kernel_file looks, ':'-separated */
  char fault[64];            /* testing aid: "STEP:RANK" fails STEP on RANK (runtime/mpi/agree.c) */
  double mpi_timeout;        /* OP2_MPI_TIMEOUT: longest wait in an agreement, seconds; 0 none */
  int cuda_emu_check;        /* emulator: report data races and barrier divergence */
  int cuda_emu_order;        /* emulator: 0 ascending, 1 reverse, 2 shuffled (seed below) */
  unsigned cuda_emu_seed;    /* emulator: the shuffle's seed */
  int tune;                  /* op2_tune_mode */
  int compiler_given;        /* OP2_CC or OP2_CFLAGS set: their first failure is always told */
} op2_options;

/* The user's options: defaults, then the environment, then argv entries OP2_NAME=value. The
 * values are never changed afterwards; a backend keeps its effective values in its own data. */
int op2_options_read(op2_options *opt, int argc, char **argv, int diags);
/* The option table, for tests that go over every option. */
int op2_option_count(void);
const char *op2_option_name(int i);
/* Warns (at any OP2_DIAGS) of OP2_* variables and argv entries OP2_NAME=value that are no
 * option, with the nearest option's name when one is close. */
void op2_options_warn_unknown(int argc, char **argv);
/* OP2_FAULT, a testing aid (runtime/mpi/agree.c): parses "STEP:RANK" (0 when valid; step and
 * rank may be NULL); op2_fault says whether this rank must fail STEP now (once per run), so tests
 * can check that every rank stops, or goes on, instead of waiting. */
int op2_fault_parse(const char *value, char *step, int *rank);
int op2_fault(op2_context *ctx, const char *step);

/* ---- distributed memory (runtime/mpi/) ---- */
typedef struct op2_mpi {
  /* The communicators and requests, defined in runtime/mpi/op2_mpi.h so that no file outside
   * runtime/mpi/ and runtime/hdf5/ sees <mpi.h>; NULL while MPI is not started. */
  struct op2_mpi_comms *comms;
  int rank, size;
  int node_rank, node_size; /* ranks sharing this machine (one optimised compile per node) */
  int we_initialised;       /* op_init called MPI_Init, so op_exit finalises */
  int has_comms;            /* comms holds communicators that are ours to free */
  /* Collective steps in progress (op2_mpi_step): the default error handler defers its exit to
   * the step's agreement, so every rank learns of a failure before any rank exits. */
  int step_depth;
  char step_name[256]; /* the outermost step, named in messages */
  int failure_agreed;  /* a failure is agreed in this step: later agreements are silent */
  int exit_pending;
  int exit_agreed; /* that exit follows an agreement: every rank leaves, nobody is left waiting */
  /* Every agreement carries a tag of the public call it belongs to (its name and its number
   * among this rank's collective calls), so ranks in different calls fail instead of pairing up
   * (agree.c); once they have, the ranks are out of step for good and every later collective
   * call fails on every rank without communicating. */
  unsigned long long call_seq, call_tag;
  int out_of_step;
  char out_of_step_why[512];
  int fault_fired;           /* OP2_FAULT fails its step once */
  long fetch_bytes_received; /* by op2_mpi_fetch: a range fetch moves only the range */
  /* One optimised build per machine (node_build.c): words on kernels still to be sent (the
   * builder) or received (a follower), the builder's sends, the next kernel's tag. */
  struct op2_node_msg *node_msgs;
  int node_count, node_cap;
  int node_nsends, node_kernels; /* the sends are in comms */
} op2_mpi;

/* ---- the one context ---- */
typedef struct op2_ptr_list {
  void **items;
  int count, capacity;
} op2_ptr_list;
int op2_list_push(op2_ptr_list *l, void *item);

/* The kernel run in progress, for the fatal-signal handler, and the handlers it replaced. The
 * seq backend arms a recovery point once per run (`armed` names the run, `armer` its thread):
 * a fault there jumps back to `recover` and the backend re-runs the range one element at a time
 * with `element` set, so the report names the element (fault.c). */
#define OP2_FAULT_SIGNALS 4
typedef struct op2_fault_watch {
  const struct op2_exec *volatile running;
  const struct op2_exec *volatile armed;
  pthread_t armer;
  sigjmp_buf recover;
  volatile int caught;      /* the signal that jumped back to `recover` */
  volatile bool one_by_one; /* re-running the range alone, now at `element` */
  volatile int element;
  struct sigaction previous[OP2_FAULT_SIGNALS];
  bool installed;
} op2_fault_watch;
void op2_fault_install(op2_context *ctx);
void op2_fault_remove(op2_context *ctx);
/* Arms the recovery point for exec on this thread; call right after sigsetjmp(w->recover, 0)
 * returned 0, and op2_fault_disarm when the run returns. */
static inline void op2_fault_arm(op2_fault_watch *w, const struct op2_exec *exec) {
  w->armer = pthread_self();
  w->armed = exec;
}
static inline void op2_fault_disarm(op2_fault_watch *w) {
  w->armed = NULL;
}
/* After a fault jumped back to the recovery point: re-runs exec's range one element at a time so
 * that the fault, met again, names its element; never returns (the process dies by the signal). */
_Noreturn void op2_fault_find_element(op2_context *ctx, const struct op2_exec *exec);

/* Auto-tuning this process (tune.c): records read, written and ignored, trial calls. */
typedef struct op2_tune_counters {
  int records_read, records_written, records_ignored, loops_tuned;
  long trial_calls;
  char cpu[128]; /* the CPU model, part of a record's key; "" until read */
} op2_tune_counters;

struct op2_context {
  bool initialised;
  op2_mpi mpi;
  op2_options opt;
  const op2_backend *backend;
  void *backend_data;
  op_error_handler handler;
  void *handler_data;
  char last_error[2048];
  unsigned long errors_reported; /* by op2_error: a call failed when this grew */
  op2_ptr_list sets, maps, dats, consts;
  unsigned const_generation;      /* bumps when a constant changes: kernels bake values in */
  unsigned const_live_generation; /* the generation at which a constant last became live */
  op2_ptr_list loops;             /* op2_loop, searched by hash */
  op2_index loops_by_hash;        /* the same loops by shape hash and by name_key (loop.c) */
  op2_index loops_by_name;
  op2_ptr_list kernels;     /* op2_kernel, searched by key */
  op2_index kernels_by_key; /* the same kernels by key_hi ^ key_lo (jit_use.c) */
  op2_ptr_list plans;
  op2_ptr_list stats;
  op2_index stats_by_name; /* the same stats by op2_index_key(name, NULL) (timing.c) */
  bool renumbered;
  bool mpi_prepared;    /* declaration mode settled, whole-mesh declarations cut to blocks */
  bool mpi_distributed; /* partitioned and halos built (first loop or op_partition) */
  bool mpi_replicated;  /* every rank declared the whole mesh */
  bool mpi_lost; /* a distribution failed once elements had begun to move: the mesh is broken */
  op2_jit_counters jit;
  op2_tune_counters tune;
  op2_jit *jit_engine; /* compilers, cache policy and the background tier (jit/jit.h) */
  int nthreads;
  /* Tests: a driver table the CUDA backends use instead of libcuda or the emulator's, given
   * before op_init (op2_cuda_use_driver); op_exit clears it. */
  const struct op2_cu_api *cuda_test_driver;
  void *reduction_scratch;
  size_t reduction_scratch_bytes;
  struct op2_checkpoint *checkpoint; /* checkpointing and restart (checkpoint.c), or NULL */
  struct op2_profile *profile;       /* op_profile_* sections (profile.c) */
  op2_ptr_list kernel_files;         /* texts op_kernel_file returned, freed at op_exit */
  op2_ptr_list kernel_headers;       /* loop name -> its header's text (op_par_loop_header) */
  op2_fault_watch fault;             /* names the loop when a kernel dies by a signal (fault.c) */
};

/* The definition of function `name` in source text `text` of file `caller_file` (at file scope),
 * under a #line naming the file; malloc'ed, or NULL when there is none (kernel_extract.c). */
char *op2_kernel_from_caller(const char *text, const char *caller_file, const char *name);
/* The definition of function `name` at file scope of `text` (kernel_extract.c): 1 and its
 * [*begin, *end) when found. */
int op2_kernel_definition(const char *text, const char *name, const char **begin, const char **end);
/* The source of kernel function `name` called from `caller_file` (kernel_search.c): the app's
 * user_types.h, then NAME.h, or its definition in the calling file or a header it includes, with
 * quoted includes replaced by their text. malloc'ed; NULL after op2_error. */
char *op2_kernel_function_source(const op2_context *ctx, const char *caller_file, const char *name);
/* The text of a kernel file (a header, user_types.h, the calling file), read as every kernel
 * file is (kernel_search.c): without blocking, a regular file only, at most OP2_KERNEL_FILE_CAP
 * bytes, a UTF-8 byte-order mark dropped (editors on some systems write one); malloc'ed, its
 * length in *len when len is not NULL. NULL with errno: ENODEV not a regular file (a FIFO,
 * device or directory), EFBIG over the cap, EINVAL a NUL byte inside, else the system's. */
char *op2_kernel_file_read(const char *path, size_t *len);
/* Why op2_kernel_file_read failed, in words, for errno `err`. */
const char *op2_kernel_file_failure(int err);
/* `text` of the kernel file at `path` (#line names it `shown`) with its quoted includes replaced
 * by their text, resolved against the file's directory (kernel_search.c); NULL when out of
 * memory or `path` is gone. */
char *op2_kernel_expand_includes(const char *text, const char *path, const char *shown);

op2_context *op2_ctx(void);             /* the context, created on first use */
int op2_require_init(const char *what); /* OP2_ERR_STATE unless op_init has run */

/* ---- asking jit/ (jit_use.c) ---- */
/* The engine from the user's options (op_init), and its end (op_exit). */
int op2_jit_init(op2_context *ctx);
void op2_jit_fini(op2_context *ctx);
/* Reports the failure a jit/ call recorded (once); returns rc. */
int op2_jit_report(op2_context *ctx, int rc);
/* The loop as jit/ sees it: pointers into the loop and the declared constants, no copies. */
void op2_loop_describe(const op2_context *ctx, const op2_loop *loop, op2_loop_desc *d);
/* Gives the loop its C kernel (loop->kernel) and counts it in the loop's statistics. */
int op2_loop_kernel(op2_context *ctx, op2_loop *loop, const char *kernel_src);
/* Swaps in k's finished optimised build; blocks until every queued build has finished. */
void op2_jit_poll_kernel(op2_context *ctx, op2_kernel *k);
void op2_jit_wait_all(op2_context *ctx);

/* ---- internal operations ---- */
int op2_is_identifier(const char *s);
int op2_is_reserved_name(const char *s);
op2_const *op2_const_find(const char *name);
int op2_validate_loop(const char *kernel, const char *name, op_set set, int nargs,
                      const op_arg *args);
/* Whether an argument array is missing or holds a value no op_arg_* call made: cheap enough
 * for every call, before anything reads the arguments. */
bool op2_args_untrusted(int nargs, const op_arg *args);
/* Drops the loop indexes; the next lookup rebuilds them from ctx->loops (renumber, op_exit). */
void op2_loops_index_reset(op2_context *ctx);
int op2_loop_lookup(op2_context *ctx, const char *kernel, const char *name, op_set set, int nargs,
                    const op_arg *args, op2_loop **out);
int op2_renumber(op2_context *ctx, op_map base);
op_map op2_renumber_pick_base(op2_context *ctx);
/* Every element this rank holds: owned, exec halo and non-exec halo. */
static inline size_t op2_set_local_count(op_set s) {
  return (size_t)s->size + (size_t)s->exec_size + (size_t)s->nonexec_size;
}
void op2_loop_free(op2_loop *loop);
/* Drops the loop shapes that use `dat` (freed by op_free_dat_temp): a later dat at the same
 * address must not find them. Their kernels stay, shared by source. */
void op2_loops_forget_dat(op2_context *ctx, op_dat dat);
int op2_loop_mpi_scratch(op2_loop *loop); /* par_loop.c */
int op2_plan_get(op2_context *ctx, const op2_loop *loop, int begin, int end, op2_plan **out);
/* The same with a part size and a thread count for the layout (1: block colouring only). */
int op2_plan_get_for(op2_context *ctx, const op2_loop *loop, int begin, int end, int part,
                     int nthreads, op2_plan **out);
/* Auto-tuning (tune.c). op2_tune_init discards the records under OP2_TUNE=reset; around each
 * call of a loop not yet tuned, op2_tune_before picks its parameters (a record, or the next
 * trial) and op2_tune_after counts the call's time. */
int op2_tune_init(op2_context *ctx);
int op2_tune_before(op2_context *ctx, op2_loop *loop, const char *kernel, const op2_kernel *k);
int op2_tune_after(op2_context *ctx, op2_loop *loop, double seconds);
void op2_tune_free(op2_loop *loop);
/* nthreads > 1: try a thread-owned layout first; when it succeeds the blocks are not coloured. */
int op2_plan_build(op_set set, int begin, int end, int part_size, int nwrites, const op_map *maps,
                   const int *idx, int nthreads, op2_plan **out);
void op2_plan_free(op2_plan *plan);
int op2_plan_build_ownership(op2_plan *p, int nthreads, double max_shared_fraction);
op2_loop_stats *op2_stats_for(op2_context *ctx, const char *name);
int op2_profile_write(op2_context *ctx, const char *path);
/* Releases the op_profile_* sections (profile.c); op_exit calls it. */
void op2_profile_free(op2_context *ctx);
void *op2_aligned_alloc(size_t bytes); /* zeroed, 64-byte aligned; NULL on failure */
/* The same, not zeroed: for arrays the caller fills whole at once (zeroing would touch every
 * page twice). */
void *op2_aligned_alloc_unzeroed(size_t bytes);
/* Under MPI a rank's arrays of a mesh grow once, by their halo rows, when the mesh is
 * distributed. A new array for that costs more in the kernel's zeroing of its fresh pages than in
 * the copy (it was most of a halo build's time), so the declarations reserve
 * room for the growth: address space only, as pages never touched are never backed, and the
 * room stays on small pages (no huge page is added). op2_halo_room says how much (a quarter
 * under MPI, nothing otherwise); op2_aligned_alloc_room allocates `bytes`, zeroed, with `room`
 * after them; op2_aligned_grow makes an array hold `bytes` (zeroed past them to the end of
 * their last cache line), in place where its room allows, else in a new array with its first
 * `used` bytes (the old one freed): NULL on failure, the old one kept. */
size_t op2_halo_room(const op2_context *ctx, size_t bytes);
void *op2_aligned_alloc_room(size_t bytes, size_t room);
void *op2_aligned_grow(void *p, size_t used, size_t bytes);
/* Elements low..high of `dat` in the user's order into `out` (output.c; collective under MPI,
 * inside the caller's step). Reports its failure; the caller propagates it. */
int op2_fetch_idx(op2_context *ctx, op_dat dat, void *out, int low, int high);

/* The backend API. Included here for now so that files which include op2_impl.h keep compiling
 * unchanged; a backend includes backend.h itself. */
#include "backend.h"

#endif /* OP2_IMPL_H */
