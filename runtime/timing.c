/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-loop statistics: op_timing_output() for people, OP2_PROFILE_JSON for tools. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/alloc.h"
#include "runtime/options.h"
#include "runtime/mpi_state.h"
#include "runtime/loop.h"
#include "runtime/tune.h"
#include "runtime/output.h"
#include "runtime/backend.h"
#include "runtime/output_file.h"
#include "runtime/distributed.h"
#include "runtime/chain.h"

/* By name, through ctx->stats_by_name (rebuilt when it does not hold exactly ctx->stats): a
 * program with thousands of loops pays no walk of them all for each new one. */
op2_loop_stats *op2_stats_for(op2_context *ctx, const char *name) {
  if (ctx->stats_by_name.count != (size_t)ctx->stats.count) {
    op2_index_free(&ctx->stats_by_name);
    for (int i = 0; i < ctx->stats.count; i++) {
      op2_loop_stats *s = ctx->stats.items[i];
      if (op2_index_add(&ctx->stats_by_name, op2_index_key(s->name, NULL), s) != 0) {
        op2_index_free(&ctx->stats_by_name);
        op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory", name);
        return NULL;
      }
    }
  }
  uint64_t key = op2_index_key(name, NULL);
  size_t pos = 0;
  for (op2_loop_stats *s; (s = op2_index_next(&ctx->stats_by_name, key, &pos));)
    if (strcmp(s->name, name) == 0) return s;
  op2_loop_stats *s = calloc(1, sizeof *s);
  if (s && !(s->name = strdup(name))) free(s), s = NULL;
  if (!s || op2_list_push(&ctx->stats, s) != OP2_OK) {
    if (s) free(s->name), free(s);
    op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory", name);
    return NULL;
  }
  if (op2_index_add(&ctx->stats_by_name, key, s) != 0)
    op2_index_free(&ctx->stats_by_name); /* rebuilt by the next call */
  return s;
}

/* Folds kernel facts (which only kernels know) into the loop statistics. */
static void gather_kernel_facts(op2_context *ctx) {
  for (int i = 0; i < ctx->stats.count; i++) {
    op2_loop_stats *s = ctx->stats.items[i];
    s->upgrade_ms = s->cc_compile_ms = 0;
    s->cxx = false;
    for (int j = 0; j < ctx->kernels.count; j++) {
      const op2_kernel *k = ctx->kernels.items[j];
      if (strcmp(op2_kernel_name(k), s->name) != 0) continue;
      if (op2_kernel_upgrade_ms(k) > s->upgrade_ms) s->upgrade_ms = op2_kernel_upgrade_ms(k);
      if (op2_kernel_tier(k) == OP2_TIER_CXX) s->cxx = true;
      s->cc_compile_ms += op2_kernel_cc_compile_ms(k);
    }
  }
}

static const char *kernel_source_word(const op2_loop_stats *s) {
  if (s->cxx) /* C++ kernels run optimised code from their first call (no TinyCC tier) */
    return s->kernels_compiled && s->kernels_from_disk ? "C++, compiled+disk"
           : s->kernels_compiled                       ? "C++, compiled"
                                                       : "C++, disk cache";
  return s->kernels_compiled && s->kernels_from_disk ? "compiled+disk"
         : s->kernels_compiled                       ? "compiled"
                                                     : "disk cache";
}

/* The start-up phases, per rank, in seconds (docs/SCALE.md's model is fed by them). */
enum { STARTUP_PHASES = 8 };
static const char *const startup_phase_name[STARTUP_PHASES] = {
    "MPI start (MPI_Init)", "declarations and reads", "partition (ownership)",  "migration",
    "halo build",           "kernel compile (jit)",   "first calls (less jit)", "start-up total"};

static void startup_phases(const op2_context *ctx, double *t) {
  const op2_mpi *m = &ctx->mpi;
  double jit = 0, first = 0;
  for (int i = 0; i < ctx->stats.count; i++) {
    const op2_loop_stats *s = ctx->stats.items[i];
    jit += s->jit_ms / 1e3;
    first += s->first_call_seconds;
  }
  bool dist = ctx->mpi_distributed;
  t[0] = m->mpi_init_seconds;
  t[1] = dist ? m->t_dist_start - m->t_started : 0;
  t[2] = dist ? m->t_owned - m->t_dist_start : 0;
  t[3] = dist ? m->t_moved - m->t_owned : 0;
  t[4] = dist ? m->t_halos - m->t_moved : 0;
  t[5] = jit;
  t[6] = first; /* the first calls' runs: their compile is t[5] */
  t[7] = t[0] + t[1] + t[2] + t[3] + t[4] + t[5] + t[6];
}

/* Under MPI: per loop the slowest rank's time and the mean, halo traffic summed over ranks; then
 * the start-up phases (slowest rank and mean), the compiles summed over ranks (one optimised
 * build per machine), and each loop's halo messages and bytes sent per rank per call (mean over
 * ranks and the busiest rank). Collective; rank 0 prints. Loops are in the same order on every
 * rank (same program). */
enum { PER_LOOP = 3, EXTRA = STARTUP_PHASES + 5 };
static int timing_output_mpi(op2_context *ctx) {
  int n = ctx->stats.count, len = n * PER_LOOP + EXTRA;
  double *mine = calloc((size_t)len, sizeof(double));
  double *maxv = calloc((size_t)len, sizeof(double));
  double *sum = calloc((size_t)len, sizeof(double));
  int rc = mine && maxv && sum ? OP2_OK : op2_error(OP2_ERR_MEM, "op_timing_output: out of memory");
  if (op2_mpi_agree(ctx, rc, "op_timing_output") != OP2_OK) {
    free(mine), free(maxv), free(sum);
    return OP2_ERR_MEM;
  }
  double *extra = mine + n * PER_LOOP;
  for (int i = 0; i < n; i++) {
    const op2_loop_stats *s = ctx->stats.items[i];
    mine[PER_LOOP * i] = s->seconds;
    mine[PER_LOOP * i + 1] = s->halo_bytes;
    mine[PER_LOOP * i + 2] = (double)s->halo_messages;
    extra[STARTUP_PHASES + 3] += s->halo_bytes; /* this rank's whole run, all loops */
    extra[STARTUP_PHASES + 4] += (double)s->halo_messages;
  }
  startup_phases(ctx, extra);
  extra[STARTUP_PHASES] = ctx->jit.compiles;
  extra[STARTUP_PHASES + 1] = ctx->jit.disk_hits;
  extra[STARTUP_PHASES + 2] = ctx->jit.cc_compiles;
  rc = op2_mpi_reduce_max_sum(ctx, mine, maxv, sum, len);
  if (rc == OP2_OK && ctx->mpi.rank == 0) {
    int p = ctx->mpi.size;
    printf("\n  %-16s %7s %12s %12s %12s %10s  (%d ranks)\n", "loop", "calls", "max time (s)",
           "avg time (s)", "halo MB", "messages", p);
    for (int i = 0; i < n; i++) {
      const op2_loop_stats *s = ctx->stats.items[i];
      printf("  %-16s %7ld %12.4f %12.4f %12.3f %10.0f\n", s->name, s->calls, maxv[PER_LOOP * i],
             sum[PER_LOOP * i] / p, sum[PER_LOOP * i + 1] / 1e6, sum[PER_LOOP * i + 2]);
    }
    const double *emax = maxv + n * PER_LOOP, *esum = sum + n * PER_LOOP;
    printf("\n  %-28s %12s %12s  (%d ranks on %d per machine)\n", "start-up phase", "max (s)",
           "mean (s)", p, ctx->mpi.node_size);
    for (int k = 0; k < STARTUP_PHASES; k++)
      printf("  %-28s %12.4f %12.4f\n", startup_phase_name[k], emax[k], esum[k] / p);
    printf(
        "  kernels (sums over ranks): compiled %.0f, from disk cache %.0f, optimised builds %.0f\n",
        esum[STARTUP_PHASES], esum[STARTUP_PHASES + 1], esum[STARTUP_PHASES + 2]);
    printf("\n  %-16s %7s %14s %14s %16s %16s\n", "halo per call", "calls", "messages mean",
           "messages max", "bytes mean", "bytes max");
    for (int i = 0; i < n; i++) {
      const op2_loop_stats *s = ctx->stats.items[i];
      double c = s->calls > 0 ? (double)s->calls : 1;
      printf("  %-16s %7ld %14.3f %14.3f %16.1f %16.1f\n", s->name, s->calls,
             sum[PER_LOOP * i + 2] / p / c, maxv[PER_LOOP * i + 2] / c,
             sum[PER_LOOP * i + 1] / p / c, maxv[PER_LOOP * i + 1] / c);
    }
    printf("  %-16s %7s %14.1f %14.1f %16.1f %16.1f  (per rank, whole run)\n", "all loops", "",
           esum[STARTUP_PHASES + 4] / p, emax[STARTUP_PHASES + 4], esum[STARTUP_PHASES + 3] / p,
           emax[STARTUP_PHASES + 3]);
    fflush(stdout);
  }
  free(mine), free(maxv), free(sum);
  return rc;
}

static const char *tune_source_word(op2_tune_source s) {
  return s == OP2_TUNED_NOW ? "tuned" : s == OP2_TUNED_RECORD ? "from record" : "default";
}

/* The parameters auto-tuning left each loop with, and what tuning cost. */
static void print_tuning(const op2_context *ctx) {
  const op2_tune_counters *t = &ctx->tune;
  printf(
      "  auto-tuning: %d loops tuned, %d records read, %d written, %d ignored, %ld trial "
      "calls\n",
      t->loops_tuned, t->records_read, t->records_written, t->records_ignored, t->trial_calls);
  for (int i = 0; i < ctx->stats.count; i++) {
    const op2_loop_stats *s = ctx->stats.items[i];
    if (s->tune_source == OP2_TUNED_NOT) continue;
    printf(
        "  %-16s %s (%s; %ld trial calls, %.3f ms beyond the chosen speed, %.3f ms of tuning "
        "work)\n",
        s->name, s->tune_text, tune_source_word(s->tune_source), s->tune_calls, s->tune_excess_ms,
        s->tune_ms);
  }
}

void op_timing_output(void) {
  op2_context *ctx = op2_ctx();
  if (op2_require_init("op_timing_output") != OP2_OK) return;
  op2_chain_flush(ctx, "op_timing_output"); /* lazy execution: queued loops first */
  gather_kernel_facts(ctx);
  if (ctx->mpi.size > 1) {
    op2_mpi_step(ctx, "op_timing_output");
    if (op2_mpi_step_end(ctx, timing_output_mpi(ctx)) != OP2_OK || ctx->mpi.rank != 0) return;
    printf("  rank 0 in detail:");
  }
  printf("\n  %-16s %7s %10s %9s %8s %9s %9s %15s  %s\n", "loop", "calls", "time (s)", "ms/call",
         "GB/s", "jit (ms)", "plan (ms)", "calls tcc/opt", "kernel from");
  double total = 0;
  for (int i = 0; i < ctx->stats.count; i++) {
    const op2_loop_stats *s = ctx->stats.items[i];
    char tiers[48];
    long optimised = s->calls_by_tier[OP2_TIER_CC] + s->calls_by_tier[OP2_TIER_CXX];
    if (s->calls_by_tier[OP2_TIER_TCC] + optimised > 0)
      snprintf(tiers, sizeof tiers, "%ld/%ld", s->calls_by_tier[OP2_TIER_TCC], optimised);
    else /* no C kernel ran: an accelerator's, or no calls */
      snprintf(tiers, sizeof tiers, "-");
    printf("  %-16s %7ld %10.4f %9.4f %8.2f %9.3f %9.3f %15s  %s\n", s->name, s->calls, s->seconds,
           s->calls ? 1e3 * s->seconds / (double)s->calls : 0.0,
           s->seconds > 0 ? s->bytes / s->seconds / 1e9 : 0.0, s->jit_ms, 1e3 * s->plan_seconds,
           tiers, kernel_source_word(s));
    total += s->seconds;
  }
  printf("  %-16s %7s %10.4f\n", "total", "", total);
  if (ctx->opt.tune != OP2_TUNE_OFF) print_tuning(ctx);
  printf(
      "  backend %s; kernels compiled %d, from disk cache %d, cache entries refused %d; "
      "optimised builds %d, failed %d\n",
      ctx->backend->name, ctx->jit.compiles, ctx->jit.disk_hits, ctx->jit.disk_rejects,
      ctx->jit.cc_compiles, ctx->jit.cc_failures);
  if (ctx->jit.cc_failures)
    printf(
        "  the optimising compiler failed %d times (OP2_CC=%s OP2_CFLAGS=%s): those kernels "
        "stayed on TinyCC code (OP2_DIAGS=2 shows its messages)\n",
        ctx->jit.cc_failures, ctx->opt.cc, ctx->opt.cflags);
  if (ctx->jit.cc_failed_before)
    printf(
        "  %d kernel%s stayed on TinyCC code: %s optimised build failed in an earlier run "
        "(op2-cache list shows why; op2-cache retry builds again)\n",
        ctx->jit.cc_failed_before, ctx->jit.cc_failed_before == 1 ? "" : "s",
        ctx->jit.cc_failed_before == 1 ? "its" : "their");
}

int op2_profile_write(op2_context *ctx, const char *path) {
  /* Under MPI every rank would write the same file at once (a mix of two documents): rank 0
   * writes its own statistics, op_timing_output has the slowest rank's. */
  if (ctx->mpi.size > 1 && ctx->mpi.rank != 0) return OP2_OK;
  gather_kernel_facts(ctx);
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "backend", ctx->backend->name);
  cJSON_AddNumberToObject(root, "threads", op2_backend_threads(ctx));
  cJSON_AddNumberToObject(root, "ranks", ctx->mpi.size > 1 ? ctx->mpi.size : 1);
  cJSON_AddNumberToObject(root, "kernels_compiled", ctx->jit.compiles);
  cJSON_AddNumberToObject(root, "kernels_from_disk", ctx->jit.disk_hits);
  cJSON_AddNumberToObject(root, "cache_entries_refused", ctx->jit.disk_rejects);
  cJSON_AddNumberToObject(root, "optimised_builds", ctx->jit.cc_compiles);
  cJSON_AddNumberToObject(root, "optimised_build_failures", ctx->jit.cc_failures);
  cJSON_AddNumberToObject(root, "optimised_builds_failed_before", ctx->jit.cc_failed_before);
  cJSON_AddStringToObject(root, "tune", ctx->opt.tune == OP2_TUNE_OFF ? "off" : "on");
  cJSON_AddNumberToObject(root, "tune_records_read", ctx->tune.records_read);
  cJSON_AddNumberToObject(root, "tune_records_written", ctx->tune.records_written);
  cJSON_AddNumberToObject(root, "tune_records_ignored", ctx->tune.records_ignored);
  cJSON_AddNumberToObject(root, "tune_trial_calls", (double)ctx->tune.trial_calls);
  if (ctx->mpi.size > 1) { /* rank 0's own start-up phases (op_timing_output: the slowest's) */
    static const char *const key[STARTUP_PHASES] = {
        "mpi_start_s",  "declarations_s", "partition_s",   "migration_s",
        "halo_build_s", "jit_s",          "first_calls_s", "total_s"};
    double t[STARTUP_PHASES];
    startup_phases(ctx, t);
    cJSON *st = cJSON_AddObjectToObject(root, "startup_rank0");
    for (int k = 0; k < STARTUP_PHASES; k++) cJSON_AddNumberToObject(st, key[k], t[k]);
  }
  cJSON *loops = cJSON_AddArrayToObject(root, "loops");
  for (int i = 0; i < ctx->stats.count; i++) {
    const op2_loop_stats *s = ctx->stats.items[i];
    cJSON *l = cJSON_CreateObject();
    cJSON_AddStringToObject(l, "name", s->name);
    cJSON_AddNumberToObject(l, "calls", (double)s->calls);
    cJSON_AddNumberToObject(l, "seconds", s->seconds);
    cJSON_AddNumberToObject(l, "bytes", s->bytes);
    cJSON_AddNumberToObject(l, "gb_per_s", s->seconds > 0 ? s->bytes / s->seconds / 1e9 : 0);
    cJSON_AddNumberToObject(l, "calls_tcc", (double)s->calls_by_tier[OP2_TIER_TCC]);
    cJSON_AddNumberToObject(
        l, "calls_optimised",
        (double)(s->calls_by_tier[OP2_TIER_CC] + s->calls_by_tier[OP2_TIER_CXX]));
    cJSON_AddBoolToObject(l, "cxx", s->cxx);
    cJSON_AddNumberToObject(l, "jit_ms", s->jit_ms);
    cJSON_AddNumberToObject(l, "optimised_compile_ms", s->cc_compile_ms);
    cJSON_AddNumberToObject(l, "optimised_in_use_after_ms", s->upgrade_ms);
    cJSON_AddNumberToObject(l, "plan_ms", 1e3 * s->plan_seconds);
    if (ctx->mpi.size > 1) { /* rank 0's halo traffic, whole run */
      cJSON_AddNumberToObject(l, "halo_messages", (double)s->halo_messages);
      cJSON_AddNumberToObject(l, "halo_bytes", s->halo_bytes);
    }
    cJSON_AddNumberToObject(l, "kernels_compiled", s->kernels_compiled);
    cJSON_AddNumberToObject(l, "kernels_from_disk", s->kernels_from_disk);
    cJSON *tune = cJSON_AddObjectToObject(l, "tune");
    cJSON_AddStringToObject(tune, "source", tune_source_word(s->tune_source));
    cJSON_AddStringToObject(tune, "parameters", s->tune_text[0] ? s->tune_text : "default");
    cJSON_AddNumberToObject(tune, "part_size", s->tune_params.part_size);
    cJSON_AddNumberToObject(tune, "coloured", s->tune_params.coloured);
    cJSON_AddNumberToObject(tune, "block_size", s->tune_params.block_size);
    cJSON_AddNumberToObject(tune, "trial_calls", (double)s->tune_calls);
    cJSON_AddNumberToObject(tune, "work_ms", s->tune_ms);
    cJSON_AddNumberToObject(tune, "trial_excess_ms", s->tune_excess_ms);
    cJSON_AddItemToArray(loops, l);
  }
  char *text = cJSON_Print(root);
  cJSON_Delete(root);
  op2_output o;
  if (!text)
    return op2_error(OP2_ERR_MEM, "OP2_PROFILE_JSON: cannot write %s: out of memory", path);
  op2_jit_error why;
  int ok = op2_output_open(&o, path, &why) == 0;
  if (ok) ok = op2_output_close(&o, fputs(text, o.f) < 0, &why) == 0;
  free(text);
  return ok ? OP2_OK : op2_error_record(&why, "OP2_PROFILE_JSON: %s", why.msg);
}
