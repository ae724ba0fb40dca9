/* SPDX-License-Identifier: BSD-3-Clause */
/* The one context: all mutable state of the library hangs off it (context.c). */
#ifndef OP2_RUNTIME_CONTEXT_H
#define OP2_RUNTIME_CONTEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "op2.h"
#include "jit/jit.h"
#include "runtime/alloc.h"
#include "runtime/error.h"
#include "runtime/fault.h"
#include "runtime/index.h"
#include "runtime/loop_site.h"
#include "runtime/mpi_state.h"
#include "runtime/options.h"
#include "runtime/tune.h"

typedef struct op2_backend op2_backend;

struct op2_context {
  bool initialised;
  op2_mpi mpi;
  op2_options opt;
  op2_option_values backend_opt; /* every backend's own options, by table (options.c) */
  const op2_backend *backend;
  void *backend_data;
  op_error_handler handler;
  void *handler_data;
  char last_error[2048];         /* the message, then the trace at OP2_DIAGS>=3 (error.c) */
  const char *last_error_func;   /* the function that reported it */
  int trace_depth;               /* callers added to last_error's trace */
  unsigned long errors_reported; /* by op2_error: a call failed when this grew */
  /* > 0 while checks run only to learn whether a call would fail (op2_error_probe_begin):
   * op2_error then reports nothing, the call itself reporting when it runs */
  int error_probe;
  op2_ptr_list sets, maps, dats, consts;
  unsigned const_generation;      /* bumps when a constant changes: kernels bake values in */
  unsigned const_live_generation; /* the generation at which a constant last became live */
  op2_ptr_list loops;             /* op2_loop, searched by hash */
  op2_index loops_by_hash;        /* the same loops by shape hash and by name_key (loop.c) */
  op2_index loops_by_name;
  op2_ptr_list kernels;     /* op2_kernel, searched by key */
  op2_index kernels_by_key; /* the same kernels by their source hash (jit_use.c) */
  op2_ptr_list plans;
  op2_ptr_list stats;
  op2_index stats_by_name; /* the same stats by op2_index_key(name, NULL) (timing.c) */
  bool renumbered;
  op_map renumber_base; /* op_renumber's map under MPI, applied when each rank holds its part */
  bool mpi_prepared;    /* declaration mode settled, whole-mesh declarations cut to blocks */
  bool mpi_distributed; /* partitioned and halos built (first loop or op_partition) */
  bool mpi_replicated;  /* every rank declared the whole mesh */
  bool mpi_lost; /* a distribution failed once elements had begun to move: the mesh is broken */
  op2_jit_counters jit;
  op2_tune_counters tune;
  op2_jit *jit_engine; /* compilers, cache policy and the background tier (jit/jit.h) */
  /* Tests: what a backend uses instead of its real driver, given before op_init through the
   * backend's own call (CUDA: op2_cuda_use_driver) and read only by it; op_exit clears it. */
  const void *backend_test_driver;
  void *reduction_scratch;
  size_t reduction_scratch_bytes;
  struct op2_checkpoint *checkpoint; /* checkpointing and restart (checkpoint.c), or NULL */
  struct op2_profile *profile;       /* op_profile_* sections (profile.c) */
  op2_ptr_list kernel_files;         /* texts op_kernel_file returned, freed at op_exit */
  op2_ptr_list kernel_headers;       /* loop name -> its header's text (op_par_loop_header) */
  op2_fault_watch fault;             /* names the loop when a kernel dies by a signal (fault.c) */
  op2_loop_sites loop_sites;         /* call site -> loop: a repeated call reads no kernel text */
  struct op2_chain *chain;           /* op_par_loop calls queued under OP2_LAZY (chain.c) */
  /* OP2's Fortran API: the program's kernel procedures and declared constants
   * (runtime/fortran/; the core sees runtime/compiled_kernel.h), or NULL */
  struct op2_fortran *fortran;
};

op2_context *op2_ctx(void);             /* the context, created on first use */
int op2_require_init(const char *what); /* OP2_ERR_STATE unless op_init has run */

#endif /* OP2_RUNTIME_CONTEXT_H */
