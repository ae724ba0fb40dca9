/* Per-loop statistics and op_timing_output(). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op2_impl.h"

op2_loop_stats *op2_stats_for(op2_context *ctx, const char *name) {
  for (int i = 0; i < ctx->stats.count; i++) {
    op2_loop_stats *s = ctx->stats.items[i];
    if (strcmp(s->name, name) == 0) return s;
  }
  op2_loop_stats *s = calloc(1, sizeof *s);
  if (s && !(s->name = strdup(name))) free(s), s = NULL;
  if (!s || op2_list_push(&ctx->stats, s) != OP2_OK) {
    if (s) free(s->name), free(s);
    op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory", name);
    return NULL;
  }
  return s;
}

void op_timing_output(void) {
  op2_context *ctx = op2_ctx();
  if (op2_require_init("op_timing_output") != OP2_OK) return;
  printf("\n  %-20s %8s %12s %12s %9s %10s %9s  %s\n", "loop", "calls", "time (s)",
         "ms/call", "GB/s", "jit (ms)", "plan (ms)", "kernel from");
  double total = 0;
  for (int i = 0; i < ctx->stats.count; i++) {
    const op2_loop_stats *s = ctx->stats.items[i];
    const char *from = s->kernels_compiled && s->kernels_from_disk ? "compiled+disk cache"
                       : s->kernels_compiled                       ? "compiled"
                       : s->kernels_from_disk                      ? "disk cache"
                                                                   : "memory";
    printf("  %-20s %8ld %12.4f %12.4f %9.2f %10.3f %9.3f  %s\n", s->name, s->calls, s->seconds,
           s->calls ? 1e3 * s->seconds / (double)s->calls : 0.0,
           s->seconds > 0 ? s->bytes / s->seconds / 1e9 : 0.0, s->jit_ms,
           1e3 * s->plan_seconds, from);
    total += s->seconds;
  }
  printf("  %-20s %8s %12.4f\n", "total", "", total);
  printf("  backend %s; kernels compiled %d, from disk cache %d, cache entries refused %d\n",
         ctx->backend->name, ctx->jit.compiles, ctx->jit.disk_hits, ctx->jit.disk_rejects);
}
