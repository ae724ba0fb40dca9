/* SPDX-License-Identifier: BSD-3-Clause */
/* The OpenMP backend. Direct loops split the set into one contiguous range per thread. Loops that
 * write through a map follow their plan: colours in sequence, the blocks of one colour in
 * parallel, so no two threads ever update the same element. The generated code itself has no
 * OpenMP in it: TCC need not support it. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "runtime/backend.h"
#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/loop.h"
#include "runtime/plan.h"

/* The backend's state (ctx->backend_data). */
typedef struct openmp_state {
  int nthreads; /* fixed at op_init: plans' thread-owned layouts are made for it */
} openmp_state;

static int threads_of(const op2_context *ctx) {
  const openmp_state *st = ctx->backend_data;
  return st ? st->nthreads : 1;
}

/* The library's thread count. OpenMP's default is one thread per core this process may use, which
 * is right for one process but not for several MPI ranks sharing a machine: each would start a
 * thread per core, and 2 ranks on 2 cores ran 4 threads spinning at each other's barriers (mg3d
 * many times slower: docs/MPI.md, "Threads per rank"). When the
 * user chose no count (OMP_NUM_THREADS unset and no omp_set_num_threads before op_init: the
 * OpenMP default is still the core count), the cores are divided among the ranks that may run on
 * them. A count the user chose is kept, with a warning when the ranks' threads exceed the cores.
 * Only the library's parallel regions use it (num_threads): the program's own are left alone. */
static int choose_threads(const op2_context *ctx) {
  int current = omp_get_max_threads(), cores = omp_get_num_procs();
  int sharers = ctx->mpi.core_sharers > 1 ? ctx->mpi.core_sharers : 1;
  const char *env = getenv("OMP_NUM_THREADS");
  int env_set = env && *env, chosen = env_set || current != cores;
  const char *why = env_set ? "OMP_NUM_THREADS" : "omp_set_num_threads";
  int n = current;
  if (!chosen && sharers > 1) n = cores / sharers > 1 ? cores / sharers : 1;
  const char *who = chosen ? why : "OMP_NUM_THREADS unset", *kept = chosen ? " kept" : "";
  char ranks[80] = ""; /* who else may run on these cores, under MPI */
  if (sharers > 1)
    snprintf(ranks, sizeof ranks, ", %d ranks on this node%s", sharers,
             sharers == ctx->mpi.node_size ? "" : " may use them");
  else if (ctx->mpi.size > 1)
    snprintf(ranks, sizeof ranks, ", no other rank on this node may use %s",
             cores == 1 ? "it" : "them");
  op2_diag(1, "openmp: %d thread%s%s (%d core%s%s; %s%s)", n, n == 1 ? "" : "s",
           ctx->mpi.size > 1 ? " per rank" : "", cores, cores == 1 ? "" : "s", ranks, who, kept);
  if (chosen && sharers > 1 && (long)n * sharers > cores)
    op2_diag(1,
             "warning: openmp: %d threads per rank (%s) x %d ranks on this node = %ld threads "
             "on %d core%s: the ranks oversubscribe the cores",
             n, why, sharers, (long)n * sharers, cores, cores == 1 ? "" : "s");
  return n;
}

static int init_openmp(op2_context *ctx) {
  openmp_state *st = calloc(1, sizeof *st);
  if (!st) return op2_error(OP2_ERR_MEM, "openmp backend: out of memory");
  st->nthreads = choose_threads(ctx);
  ctx->backend_data = st;
  return OP2_OK;
}

static void finalize_openmp(op2_context *ctx) {
  free(ctx->backend_data);
  ctx->backend_data = NULL;
}

/* Below this many elements waking the thread team costs more than the loop itself. */
enum { SERIAL_BELOW = 4096 };

static void run_direct(const op2_exec *exec, void **table, int nthreads) {
  const op2_loop *loop = exec->loop;
  const op2_kernel_call fn = op2_kernel_callable(loop->kernel);
  int size = exec->end - exec->begin, base = exec->begin;
  if (size < SERIAL_BELOW) {
    op2_kernel_call_range(&fn, table, exec->map_ptrs, base, exec->end);
    return;
  }
#pragma omp parallel num_threads(nthreads)
  {
    int t = omp_get_thread_num(), nt = omp_get_num_threads();
    /* Ranges are rounded to 8 elements so threads never share a cache line of a double dat. */
    long chunk = ((long)size + nt - 1) / nt;
    chunk = (chunk + 7) / 8 * 8;
    long begin = chunk * t, end = begin + chunk < size ? begin + chunk : size;
    if (begin < end)
      op2_kernel_call_range(&fn, table + (size_t)t * loop->nargs, exec->map_ptrs, base + (int)begin,
                            base + (int)end);
  }
}

static void run_planned(const op2_exec *exec, void **table, int nthreads) {
  const op2_loop *loop = exec->loop;
  const op2_kernel_call fn = op2_kernel_callable(loop->kernel);
  const op2_plan *plan = exec->plan;
  int end_all = plan->end, part = plan->part_size;
  for (int c = 0; c < plan->ncolours; c++) {
    int first = plan->colour_offset[c], last = plan->colour_offset[c + 1];
    if ((long)(last - first) * part < SERIAL_BELOW) {
      for (int k = first; k < last; k++) {
        int begin = plan->begin + plan->blocks_by_colour[k] * part;
        op2_kernel_call_range(&fn, table, exec->map_ptrs, begin,
                              begin + part < end_all ? begin + part : end_all);
      }
      continue;
    }
    /* static: the same blocks go to the same threads every call, so reductions repeat bit for
     * bit for a given thread count */
#pragma omp parallel for schedule(static) num_threads(nthreads)
    for (int k = first; k < last; k++) {
      int begin = plan->begin + plan->blocks_by_colour[k] * part;
      int end = begin + part < end_all ? begin + part : end_all;
      op2_kernel_call_range(&fn, table + (size_t)omp_get_thread_num() * loop->nargs, exec->map_ptrs,
                            begin, end);
    }
  }
}

static void run_owned(const op2_exec *exec, void **table, int nthreads) {
  const op2_loop *loop = exec->loop;
  const op2_kernel_call fn = op2_kernel_callable(loop->kernel);
  const op2_plan *plan = exec->plan;
  if (plan->end - plan->begin < SERIAL_BELOW) { /* the plain range, in order, on this thread */
    op2_kernel_call_range(&fn, table, exec->map_ptrs, plan->begin, plan->end);
    return;
  }
  /* OpenMP may give fewer threads than asked for (dynamic teams, a thread limit, a call from
   * inside a parallel region): each thread then takes every nt-th owner's ranges too. Ranges of
   * different owners never write the same target, so one thread may run several. */
#pragma omp parallel num_threads(nthreads)
  {
    int t = omp_get_thread_num(), nt = omp_get_num_threads();
    void **args = table + (size_t)t * loop->nargs;
    for (int owner = t; owner < nthreads; owner += nt)
      for (int k = plan->thread_run_offset[owner]; k < plan->thread_run_offset[owner + 1]; k++)
        op2_kernel_call_range(&fn, args, exec->map_ptrs, plan->runs[2 * k], plan->runs[2 * k + 1]);
  }
  const int *shared = plan->runs + 2 * plan->thread_run_offset[nthreads];
  for (int k = 0; k < plan->nshared_runs; k++)
    op2_kernel_call_range(&fn, table, exec->map_ptrs, shared[2 * k], shared[2 * k + 1]);
}

static int run_openmp(op2_context *ctx, const op2_exec *exec) {
  int nthreads = threads_of(ctx);
  void **table;
  OP2_CALL(op2_reduction_begin(ctx, exec, nthreads, &table));
  const op2_plan *plan = exec->plan;
  if (plan && plan->owner_threads == nthreads)
    run_owned(exec, table, nthreads);
  else if (plan)
    run_planned(exec, table, nthreads);
  else
    run_direct(exec, table, nthreads);
  op2_reduction_end(ctx, exec, nthreads, table);
  return OP2_OK;
}

/* After a parallel region libgomp's idle threads spin for a while before they sleep. A new
 * loop's TinyCC compile and plan build come right after the previous loop's region, and with the
 * background compiler running too, a spinning thread takes a core they need: on a machine with
 * few cores first calls became several times slower, now and then. A soft pause releases the
 * team; the next region starts a new one, a cost paid once per new loop, not per call. */
static void release_idle_threads(op2_context *ctx) {
  (void)ctx;
  if (!omp_in_parallel()) omp_pause_resource_all(omp_pause_soft);
}

/* OP2_TUNE: a planned loop's layout and part size (docs/TUNING.md): block colouring with each
 * part size other than the default plan's. Both change only which thread runs an element. */
static int tune_candidates(const op2_context *ctx, const op2_loop *loop, op2_tune_params *out,
                           int max) {
  static const int parts[] = {64, 128, 256, 512};
  const op2_plan *def = loop->plans[0];
  int n = 0;
  if (threads_of(ctx) < 2 || !def) return 0;
  for (size_t i = 0; i < sizeof parts / sizeof parts[0] && n < max; i++)
    if (def->owner_threads || parts[i] != def->part_size)
      out[n++] = (op2_tune_params){.part_size = parts[i], .coloured = 1};
  return n;
}

/* The plan loop->params names, built now (the caller counts it as tuning work). */
static int tune_apply(op2_context *ctx, op2_loop *loop) {
  const op2_tune_params *c = &loop->params;
  if (!loop->plans[0]) return OP2_OK;
  int part = c->part_size ? c->part_size : ctx->opt.part_size;
  int threads = c->coloured ? 1 : threads_of(ctx);
  return op2_plan_get_for(ctx, loop, loop->phase_begin[0], loop->phase_end[0], part, threads,
                          &loop->plans[0]);
}

static void tune_describe(const op2_context *ctx, const op2_loop *loop, char *out, size_t len) {
  (void)ctx;
  op2_plan_describe(loop->plans[0], out, len);
}

const op2_backend op2_backend_openmp = {
    .name = "openmp",
    .description = "OpenMP threads: a range each, or planned blocks",
    .target = OP2_TARGET_C,
    .host_kernels = true,
    .init = init_openmp,
    .run = run_openmp,
    .finalize = finalize_openmp,
    .threads = threads_of,
    .before_serial_work = release_idle_threads,
    .tune_candidates = tune_candidates,
    .tune_apply = tune_apply,
    .tune_describe = tune_describe,
};
