/* SPDX-License-Identifier: BSD-3-Clause */
/* Loops: arguments resolved once per loop shape (loop.c, validate.c), the shape itself with its
 * kernel, phases and plans, and the per-name statistics op_timing_output() reports (timing.c). */
#ifndef OP2_RUNTIME_LOOP_H
#define OP2_RUNTIME_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "op2.h"
#include "jit/jit.h"
#include "runtime/index.h"
#include "runtime/loop_call.h"
#include "runtime/loop_site.h"
#include "runtime/tune.h"

typedef struct op2_context op2_context;
typedef struct op2_plan op2_plan;

/* op_arg.tag of every value an op_arg_* call made: other bytes are refused, never followed. */
enum { OP2_ARG_TAG = 0x4f704172 };

/* Per loop name: what op_timing_output() reports. */
typedef struct op2_loop_stats {
  char *name;
  long calls;
  double seconds;
  double bytes;  /* moved by all calls */
  double jit_ms; /* code generation + compile or load, all shapes of this loop */
  int kernels_compiled, kernels_from_disk;
  long calls_by_tier[OP2_NTIERS]; /* calls run on TinyCC, optimised C and C++ code (op2_tier_id) */
  double upgrade_ms;              /* worst first-call -> optimised-code delay of its kernels */
  double cc_compile_ms;           /* optimising compiles (background or from a disk hit: 0) */
  bool cxx;                       /* a kernel of the loop is C++ (built by OP2_CXX) */
  double plan_seconds;
  double halo_bytes; /* sent by halo exchanges before this loop's calls */
  long halo_messages;
  /* The first call's run (plan, exchange, kernel), timed as every call is: the start-up
   * report's "first calls" (its compile and any distribution it triggered are phases of their
   * own) */
  double first_call_seconds;
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
  struct op2_mpi_step_name *step; /* MPI: its calls' step name, made once (distributed.h) */
  /* chain.c: whether its kernel text names an output call (such a call is not queued), looked
   * at once instead of scanning the text at every queued call: 0 not yet, 1 no, 2 yes */
  unsigned char prints;
} op2_loop;

/* validate.c: every check of the call's arguments against its set, dats and maps (the loop
 * name, kernel text, set, argument kinds, dims, types, access modes, map columns and sets),
 * and OP2_FAULT's injected failure of the step "validate" (not while probing: error.h). */
int op2_validate_loop(const op2_loop_call *call);
/* Whether a new loop shape's first call would pass the checks made before anything is built
 * (op2_validate_loop, then the kernel's parameters against the arguments), without reporting:
 * a call that would not is run at once, whose own checks report it (chain.c). */
bool op2_loop_checks_pass(op2_context *ctx, const op2_loop_call *call);
/* Whether an argument array is missing or holds a value no op_arg_* call made: cheap enough
 * for every call, before anything reads the arguments. */
bool op2_args_untrusted(int nargs, const op_arg *args);
int op2_loop_lookup(op2_context *ctx, const op2_loop_call *call, op2_loop **out);
void op2_loop_free(op2_loop *loop);
/* Drops the loop indexes; the next lookup rebuilds them from ctx->loops (renumber, op_exit). */
void op2_loops_index_reset(op2_context *ctx);
/* A loop's texts against a call's: compared only for call sites whose strings may change. */
bool op2_loop_same_text(const op2_loop *l, const char *kernel, const char *name);
bool op2_loop_same_type(const op2_loop *l, int arg, const char *type);
/* Call sites (loop_site.c): the loop of a call seen before, or NULL; remembered after a lookup;
 * forgotten whenever a loop is freed (they point at loops). */
op2_loop *op2_loop_site_find(op2_context *ctx, const op2_loop_call *call);
/* The same, with the site itself (whether its strings are trusted by pointer; a NULL loop: a
 * site checked when queued, not run yet); valid until the next call that changes the sites. */
const op2_loop_site *op2_loop_site_lookup(op2_context *ctx, const op2_loop_call *call);
/* Whether a string lies in a read-only segment (as a site's fixed texts do): it cannot change
 * while its object stays loaded, so a queued call may keep its pointer (chain.c). */
bool op2_loop_text_fixed(op2_context *ctx, const char *s);
/* The site of `call` (its pointers; its kernel_kept), leading to `loop`. */
void op2_loop_site_remember(op2_context *ctx, const op2_loop_call *call, op2_loop *loop);
/* A queued call that passed op2_loop_checks_pass, its site having no loop yet: remembered as
 * checked (found by op2_loop_site_lookup with a NULL loop), so the site's calls queued before
 * its first replay are not checked again. Only a site whose kernel, name (text_fixed) and type
 * strings are read-only; a later op2_loop_site_remember gives it its loop. */
void op2_loop_site_remember_checked(op2_context *ctx, const op2_loop_call *call, bool text_fixed);
/* op_par_loop after op_init (loop_call.h: the call's fields). A call with an origin is the
 * chain's replay of a queued call (chain.c): with the call's copies, without queueing it again,
 * and with the loop it carries instead of a lookup. */
void op2_par_loop(op2_context *ctx, const op2_loop_call *call);
void op2_loop_sites_clear(op2_context *ctx);
/* op_free_dat_temp: forgets the sites whose calls pass `dat` (checked ones too), keeping the
 * others, so that the program's other loops are neither looked up nor checked again. */
void op2_loop_sites_forget_dat(op2_context *ctx, op_dat dat);
void op2_loop_sites_free(op2_context *ctx);
/* Drops the loop shapes that use `dat` (freed by op_free_dat_temp), with what the backend kept
 * for them (its forget_loop), and the call sites that pass it: a later dat at the same address
 * must not find them. Their kernels stay, shared by source. */
void op2_loops_forget_dat(op2_context *ctx, op_dat dat);
int op2_loop_mpi_scratch(op2_loop *loop); /* par_loop.c */
/* par_loop.c: runs phase `ph` of a bound call (its element range and plan) on the backend. */
typedef struct op2_exec op2_exec;
int op2_run_phase(op2_context *ctx, op2_exec *exec, int ph);
op2_loop_stats *op2_stats_for(op2_context *ctx, const char *name); /* timing.c */

#endif /* OP2_RUNTIME_LOOP_H */
