/* SPDX-License-Identifier: BSD-3-Clause */
/* Lazy execution: the chain of queued op_par_loop calls (chain.h). A queued call keeps copies of
 * everything of the caller's it needs later that may change before the chain runs: the kernel
 * text, the name and the arguments' type strings unless they lie in a read-only segment (string
 * literals: kept by pointer, as the call-site table trusts them), the arguments, and the values
 * of its OP_READ globals (the program may change its variable as soon as op_par_loop returns).
 * Dats, maps and sets are the library's and change only through loops or calls that run the
 * chain first. Each call's copies live in one buffer that is kept for the next call queued in
 * its place, so a chain in steady state allocates nothing.
 *
 * A call is looked up at its site when it is queued, with the program's own pointers (which the
 * site table knows: a literal is found by pointer, a buffer by comparing its text now, while it
 * holds the call's text), and carries the loop found to its replay: the replay neither looks it
 * up again nor compares the text of its copy (which lies in the chain's buffer, where the site
 * table cannot trust it). That lookup and these copies were lazy execution's cost per call:
 * bench/loop_call_overhead, docs/PERFORMANCE.md. */
#include "runtime/chain.h"
#include "runtime/chain_fuse.h"
#include "runtime/chain_mpi.h"
#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/options.h"
#include "runtime/backend.h"
#include "runtime/kernel_source.h"
#include "runtime/loop.h"
#include "runtime/mesh.h"

#include <dlfcn.h> /* dladdr (the build defines _GNU_SOURCE): where a queued call was made */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A global read by value is copied; one larger than this is not queued (the call runs now). */
enum { OP2_CHAIN_GBL_MAX = 1 << 20 };

typedef struct op2_chain_call {
  /* kernel and name: into buf, or the caller's when read-only; args: into buf, OP_READ globals
   * pointing at their copies in buf, types as kernel; site: the caller's return address. Its
   * origin and kernel_kept are set when it is replayed (the slot moves as the chain grows). */
  op2_loop_call call;
  op2_call_origin origin; /* the caller's pointers and the loop its site led to (or NULL) */
  unsigned long seq;
  char *buf;
  size_t cap;
  /* under MPI: the call as op_par_loop left it, ready to run (its pointers copied) */
  op2_exec exec;
  void **ptrs;
  const int **maps;
  int ptrs_cap;
  bool captured;
} op2_chain_call;

struct op2_chain {
  op2_chain_call *calls;
  int count, cap;
  int running;      /* the call being run, or -1 */
  int running_last; /* the last call of the fused pass being run (running when alone) */
  bool orphaned;    /* op_exit ran while the chain ran (from an error handler): free it after */
  unsigned long calls_made; /* op_par_loop calls since op_init, queued or not */
  char why[160];            /* what made the chain run */
  bool capturing;           /* under MPI: op_par_loop hands its ready call to the chain */
  op2_chain_mpi *mpi;       /* under MPI: the chain's exchange plan and its buffers */
  bool agreeing;            /* under MPI: between its calls, the ranks agree on its plan */
};

static size_t round16(size_t n) {
  return (n + 15) / 16 * 16;
}

static bool is_reduction(const op_arg *a) {
  return a->kind == OP2_ARG_GBL && a->opt && a->acc != OP_READ;
}

/* The bytes of an OP_READ global's value, or 0 when it cannot be copied (op_par_loop's checks
 * then report why, at once). */
static size_t gbl_bytes(const op_arg *a) {
  op2_type t;
  if (!a->data || a->dim < 1 || op2_type_parse(a->type, &t) != OP2_OK) return 0;
  size_t bytes = (size_t)a->dim * op2_type_size(t);
  return bytes <= OP2_CHAIN_GBL_MAX ? bytes : 0;
}

bool op2_call_has_reduction(const op2_loop_call *call) {
  for (int i = 0; i < call->nargs; i++)
    if (is_reduction(&call->args[i])) return true;
  return false;
}

/* NULL when the call's arguments let it be queued, else why it runs now (op2_chain_defer adds
 * the other reasons: a reduction, a kernel that prints, ...). */
static const char *why_now(const op2_loop_call *call) {
  int nargs = call->nargs;
  const op_arg *args = call->args;
  if (!call->kernel || !call->name || nargs < 1 || op2_args_untrusted(nargs, args))
    return "a call whose arguments are checked at once";
  for (int i = 0; i < nargs; i++)
    if (args[i].kind == OP2_ARG_GBL && args[i].opt && !gbl_bytes(&args[i]))
      return "a call whose arguments are checked at once";
  return NULL;
}

static int first_use_of_maps(const op2_loop_call *call) {
  for (int i = 0; i < call->nargs; i++)
    if (call->args[i].map && !call->args[i].map->built) { /* rare: the first call naming a map */
      char use[160];
      snprintf(use, sizeof use, "op_par_loop '%.120s'", call->name);
      return op2_loop_maps_check(call->nargs, call->args, use, true);
    }
  return OP2_OK;
}

/* Whether the call that runs next reshapes the mesh: the first loop distributes it under MPI, or
 * renumbers it (OP2_RENUMBER), changing what the program may read of the public handles (a set's
 * sizes, a map's values, a dat's layout). Such a call runs at once, as eagerly. */
static bool reshapes_mesh(const op2_context *ctx) {
  return ctx->mpi.size > 1 ? !ctx->mpi_distributed : ctx->opt.renumber && !ctx->renumbered;
}

static struct op2_chain *chain_of(op2_context *ctx) {
  if (!ctx->chain) {
    ctx->chain = calloc(1, sizeof *ctx->chain);
    if (ctx->chain) ctx->chain->running = -1;
  }
  return ctx->chain;
}

/* What a queued call keeps of the caller's by pointer instead of copying, and the loop it
 * carries to its replay. */
typedef struct keep {
  op2_call_origin origin; /* the caller's pointers; the loop its site led to, or NULL */
  bool text;              /* kernel and name: read-only (or the library's own kernel text) */
  bool types_fixed;       /* a site found: the loop's type strings are read-only */
} keep;

/* The call's site, looked up with the program's pointers. A site not seen before (its first
 * call, or a buffer holding a new text) carries no loop: the replay finds one from the copies
 * and remembers it under these pointers (par_loop.c), so the site's next call is found here.
 * Such a call is checked now as its loop's first call would be (everything that needs no
 * data: arguments against their dats, maps and set, the kernel's parameters), so that a bad
 * call is refused at the call, as eagerly: false when it would be (it then runs at once, and
 * its own checks report it, with OP2_LAZY=off's message). A site that passed is remembered
 * as checked until its first replay gives it a loop; one with a loop was checked when the loop
 * was made. */
static bool look_up(op2_context *ctx, const op2_loop_call *call, keep *k) {
  const op2_loop_site *s = op2_loop_site_lookup(ctx, call);
  k->origin = (op2_call_origin){.kernel = call->kernel,
                                .name = call->name,
                                .kernel_kept = call->kernel_kept,
                                .loop = s ? s->loop : NULL,
                                .epoch = ctx->loop_sites.epoch};
  /* a site's fixed text is its pointers' (site_matches); without a site, asked once now */
  k->text = s ? s->text_fixed
              : (call->kernel_kept || op2_loop_text_fixed(ctx, call->kernel)) &&
                    op2_loop_text_fixed(ctx, call->name);
  k->types_fixed = s && s->types_fixed;
  if (s) return true;
  ctx->loop_sites.checks++;
  if (!op2_loop_checks_pass(ctx, call)) return false;
  op2_loop_site_remember_checked(ctx, call, k->text);
  k->origin.epoch = ctx->loop_sites.epoch; /* remembering may have cleared the sites */
  return true;
}

/* Whether argument i's type string is kept by pointer: the site's loop's own read-only string,
 * or, without a site, one found read-only now. */
static bool keep_type(op2_context *ctx, const keep *k, int i, const char *type) {
  const op2_loop *l = k->origin.loop;
  return l ? k->types_fixed && type == l->args[i].type : op2_loop_text_fixed(ctx, type);
}

/* Whether the kernel names a standard output call (a kernel printing while it is debugged): such
 * a call runs at once, so its lines come out between the program's own, as eagerly. Asked of the
 * kernel text's facts (op2_kernel_prints: the names its code uses, the calling file's context,
 * comments and literals not counted), once per loop when the site is known. */
static bool prints(op2_context *ctx, const keep *k, const op2_loop_call *call) {
  op2_loop *l = k->origin.loop;
  if (!l) return op2_kernel_prints(ctx->jit_engine, call->kernel, call->name);
  if (!l->prints) l->prints = op2_kernel_prints(ctx->jit_engine, call->kernel, call->name) ? 2 : 1;
  return l->prints == 2;
}

/* Copies the call into the chain's next slot; false when out of memory (the call runs now). */
static bool record(op2_context *ctx, struct op2_chain *c, const op2_loop_call *call,
                   const keep *k) {
  const char *kernel = call->kernel, *name = call->name;
  int nargs = call->nargs;
  const op_arg *args = call->args;
  if (c->count == c->cap) {
    int cap = c->cap ? 2 * c->cap : 16;
    op2_chain_call *calls = realloc(c->calls, (size_t)cap * sizeof *calls);
    if (!calls) return false;
    memset(calls + c->cap, 0, (size_t)(cap - c->cap) * sizeof *calls);
    c->calls = calls, c->cap = cap;
  }
  op2_chain_call *q = &c->calls[c->count];
  size_t klen = k->text ? 0 : strlen(kernel) + 1, nlen = k->text ? 0 : strlen(name) + 1;
  size_t need = round16((size_t)nargs * sizeof(op_arg));
  for (int i = 0; i < nargs; i++) {
    const op_arg *a = &args[i];
    if (a->kind == OP2_ARG_GBL && a->opt && !is_reduction(a)) need += round16(gbl_bytes(a));
    /* without a site every type is counted (asking which are read-only costs more) */
    if (a->type && !(k->origin.loop && keep_type(ctx, k, i, a->type))) need += strlen(a->type) + 1;
  }
  need += klen + nlen;
  if (need > q->cap) {
    char *buf = malloc(need);
    if (!buf) return false;
    free(q->buf);
    q->buf = buf, q->cap = need;
  }
  char *p = q->buf;
  op_arg *copy = (op_arg *)p;
  memcpy(copy, args, (size_t)nargs * sizeof *args);
  p += round16((size_t)nargs * sizeof(op_arg));
  /* the fields are read from the caller's arguments, not from the copy just written: a load of
   * one field of that wide copy waited for it (half of this function's time, 1-element loop) */
  for (int i = 0; i < nargs; i++) {
    const op_arg *a = &args[i];
    /* a reduction keeps the caller's variable: the chain runs before op_par_loop returns */
    if (a->kind == OP2_ARG_GBL && a->opt && !is_reduction(a)) {
      size_t bytes = gbl_bytes(a);
      copy[i].data = memcpy(p, a->data, bytes);
      p += round16(bytes);
    }
  }
  for (int i = 0; i < nargs; i++) {
    const char *type = args[i].type;
    if (!type || keep_type(ctx, k, i, type)) continue;
    size_t len = strlen(type) + 1;
    copy[i].type = memcpy(p, type, len);
    p += len;
  }
  q->call = (op2_loop_call){.kernel = k->text ? kernel : memcpy(p, kernel, klen),
                            .name = k->text ? name : memcpy(p + klen, name, nlen),
                            .set = call->set,
                            .nargs = nargs,
                            .args = copy,
                            .site = call->site};
  q->origin = k->origin;
  q->seq = c->calls_made;
  c->count++;
  return true;
}

/* How many calls from calls[i] run as one fused pass (OP2_FUSE), 1 for one call alone, looking
 * at the next FUSE_WINDOW calls. */
enum { FUSE_WINDOW = 16 };
static int fuse_span(const struct op2_chain *c, int i) {
  op2_loop_call parts[FUSE_WINDOW];
  int n = c->count - i < FUSE_WINDOW ? c->count - i : FUSE_WINDOW;
  for (int k = 0; k < n; k++) parts[k] = c->calls[i + k].call;
  return op2_fuse_span(parts, n);
}

/* Runs calls[i..i+k) as one fused loop; false when the fused call cannot be made. */
static bool run_fused(const struct op2_chain *c, int i, int k) {
  op2_loop_call parts[FUSE_WINDOW];
  for (int j = 0; j < k; j++) parts[j] = c->calls[i + j].call;
  op2_fused f;
  if (op2_fuse_build(parts, k, &f) != OP2_OK) return false;
  op_par_loop_args(f.kernel, f.name, parts[0].set, f.nargs, f.args);
  op2_fused_free(&f);
  return true;
}

/* A queued call, run: through op_par_loop's steps with its copies and the loop it carries. */
static void replay(op2_context *ctx, const op2_chain_call *q) {
  op2_loop_call call = q->call;
  call.origin = &q->origin;
  /* the library's own text only while the call runs from it, not from the chain's copy */
  call.kernel_kept = q->origin.kernel_kept && call.kernel == q->origin.kernel;
  op2_par_loop(ctx, &call);
}

static void chain_release(struct op2_chain *c) {
  for (int k = 0; k < c->cap; k++) {
    free(c->calls[k].buf);
    free(c->calls[k].ptrs);
    free(c->calls[k].maps);
  }
  free(c->calls);
  op2_chain_mpi_free(c->mpi);
  free(c);
}

bool op2_chain_capture(op2_context *ctx, const op2_exec *exec) {
  struct op2_chain *c = ctx->chain;
  if (!c || !c->capturing || c->running < 0) return false;
  op2_chain_call *q = &c->calls[c->running];
  int n = exec->loop->nargs; /* q->call.nargs: the buffers were sized for it */
  const op2_loop *loop = exec->loop;
  memcpy(q->ptrs, exec->arg_ptrs, (size_t)n * sizeof *q->ptrs);
  memcpy(q->maps, exec->map_ptrs, (size_t)n * sizeof *q->maps);
  q->exec = (op2_exec){.loop = loop,
                       .begin = loop->phase_begin[0],
                       .end = loop->phase_end[0],
                       .plan = loop->plans[0],
                       .arg_ptrs = q->ptrs,
                       .map_ptrs = q->maps};
  q->captured = true;
  return true;
}

/* Every call's pointer buffers, sized before any call is captured (capturing cannot fail). */
static bool capture_buffers(struct op2_chain *c) {
  for (int i = 0; i < c->count; i++) {
    op2_chain_call *q = &c->calls[i];
    q->captured = false;
    int nargs = q->call.nargs;
    if (nargs <= q->ptrs_cap) continue;
    void **ptrs = realloc(q->ptrs, (size_t)nargs * sizeof *ptrs);
    if (ptrs) q->ptrs = ptrs;
    const int **maps = realloc(q->maps, (size_t)nargs * sizeof *maps);
    if (maps) q->maps = maps;
    if (!ptrs || !maps) return false;
    q->ptrs_cap = nargs;
  }
  return true;
}

static void run(op2_context *ctx, struct op2_chain *c) {
  /* under MPI the chain's exchanges are planned as a whole (chain_mpi.c) */
  int done = ctx->mpi.size > 1 ? op2_chain_mpi_run(ctx, c, &c->mpi) : OP2_CHAIN_NOT_RUN;
  if (done == OP2_CHAIN_FREED) return;
  if (done == OP2_CHAIN_RAN) {
    c->running = -1;
    c->count = 0;
    return;
  }
  /* Fusion changes the loops a checkpoint logs, and backends with their own code generator
   * would see a kernel text they were not asked for: it is for seq and openmp, uncheckpointed. */
  bool fuse =
      ctx->opt.fuse && ctx->backend->host_kernels && !ctx->checkpoint && !ctx->opt.restart[0];
  for (int i = 0, k = 1; i < c->count; i += k) {
    k = fuse ? fuse_span(c, i) : 1;
    c->running = i;
    c->running_last = i + k - 1;
    if (k == 1 || !run_fused(c, i, k)) { /* out of memory for the fused call: one by one */
      const op2_chain_call *q = &c->calls[i];
      k = 1;
      c->running_last = i;
      replay(ctx, q);
    }
    if (c->orphaned) { /* op_exit ran inside (an error handler's call): nothing is left to run */
      chain_release(c);
      return;
    }
  }
  c->running = -1;
  c->count = 0;
  (void)ctx;
}

void op2_chain_flush(op2_context *ctx, const char *why) {
  struct op2_chain *c = ctx->chain;
  if (!c || c->count == 0 || c->running >= 0) return;
  snprintf(c->why, sizeof c->why, "%s", why);
  run(ctx, c);
}

bool op2_chain_lazy(const op2_context *ctx) {
  return ctx->opt.lazy == OP2_LAZY_ON ||
         (ctx->opt.lazy == OP2_LAZY_AUTO && (ctx->mpi.size > 1 || ctx->opt.fuse));
}

bool op2_chain_defer(op2_context *ctx, const op2_loop_call *call) {
  if (!op2_chain_lazy(ctx)) return false;
  struct op2_chain *c = chain_of(ctx);
  if (!c) return false; /* out of memory: eager, as without the option */
  if (c->running >= 0) return false;
  c->calls_made++;
  const char *why = why_now(call);
  if (!why && reshapes_mesh(ctx)) why = "the first loop, which distributes or renumbers the mesh";
  keep k = {0};
  if (!why && !look_up(ctx, call, &k))
    why = "a call that fails op_par_loop's checks (refused at the call, as eagerly)";
  /* A map's values as the program has written them are taken at its first call, not when the
   * queued call runs: a later write is then refused, not silently run (map_values.c). A call
   * whose map is refused does nothing, as one that fails validation. */
  if (!why && first_use_of_maps(call) != OP2_OK) return true;
  if (!why && prints(ctx, &k, call)) why = "a kernel that prints (its output stays in call order)";
  /* a reduction's value is the program's when op_par_loop returns: it runs after the chain */
  if (!why && op2_call_has_reduction(call)) why = "a global reduction";
  if (!why && record(ctx, c, call, &k)) {
    if (c->count >= ctx->opt.lazy_chain) {
      snprintf(c->why, sizeof c->why, "the chain's bound (OP2_LAZY_CHAIN=%d)", ctx->opt.lazy_chain);
      run(ctx, c);
    }
    return true;
  }
  if (c->count) {
    snprintf(c->why, sizeof c->why, "op_par_loop '%.80s' (%s)", call->name ? call->name : "(null)",
             why ? why : "out of memory to queue it");
    run(ctx, c);
  }
  return false;
}

void op2_chain_flush_local(op2_context *ctx, const char *why) {
  if (ctx->mpi.size <= 1) op2_chain_flush(ctx, why);
}

void op2_chain_before_const(op2_context *ctx, int dim, const char *type, const void *data,
                            const char *name) {
  struct op2_chain *c = ctx->chain;
  if (!c || c->count == 0) return;
  op2_type t;
  const op2_const *k = name ? op2_const_find(name) : NULL;
  bool same = k && data && dim == k->dim && op2_type_parse(type, &t) == OP2_OK && t == k->type &&
              memcmp(k->data, data, (size_t)dim * op2_type_size(t)) == 0;
  if (!same) op2_chain_flush(ctx, "op_decl_const (a new value)");
}

size_t op2_chain_error_note(const op2_context *ctx, char *buf, size_t len) {
  const struct op2_chain *c = ctx->chain;
  if (!c || c->running < 0 || c->agreeing || len < 2) return 0;
  const op2_chain_call *q = &c->calls[c->running];
  char where[600] = "";
  Dl_info info;
  /* The return address is just past the call: one byte back is inside it, for addr2line. */
  const char *at = (const char *)q->call.site - 1;
  if (q->call.site && dladdr(at, &info) && info.dli_fname) {
    size_t n = (size_t)snprintf(where, sizeof where, " from %s+%#lx", info.dli_fname,
                                (unsigned long)(at - (const char *)info.dli_fbase));
    if (info.dli_sname && n < sizeof where)
      snprintf(where + n, sizeof where - n, " (in %s)", info.dli_sname);
  }
  char calls[96];
  snprintf(calls, sizeof calls, "call %lu", q->seq);
  if (c->running_last > c->running) /* a fused pass: its first call's site */
    snprintf(calls, sizeof calls, "calls %lu-%lu run as one fused loop, the first", q->seq,
             c->calls[c->running_last].seq);
  int n =
      snprintf(buf, len, " (queued: op_par_loop %s%s; the chain ran at %s)", calls, where, c->why);
  return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len - 1;
}

bool op2_chain_will_use(const op2_context *ctx, op_dat dat) {
  const struct op2_chain *c = ctx->chain;
  if (!c || c->running < 0) return false;
  for (int i = c->running; i < c->count; i++) /* the calls running and those after them */
    for (int a = 0; a < c->calls[i].call.nargs; a++)
      if (c->calls[i].call.args[a].kind == OP2_ARG_DAT && c->calls[i].call.args[a].dat == dat)
        return true;
  return false;
}

void op2_chain_free(op2_context *ctx) {
  struct op2_chain *c = ctx->chain;
  ctx->chain = NULL;
  if (!c) return;
  if (c->running >= 0) { /* op_exit from an error handler while the chain ran: run() frees it */
    c->orphaned = true;
    return;
  }
  chain_release(c);
}

/* ---- the chain as runtime/chain_mpi.c runs it (chain_mpi.h) ---- */

int op2_chain_length(const struct op2_chain *c) {
  return c->count;
}

void op2_chain_call_of(const struct op2_chain *c, int i, op2_loop_call *out) {
  *out = c->calls[i].call;
}

bool op2_chain_capture_ready(struct op2_chain *c) {
  return capture_buffers(c);
}

int op2_chain_call_run(op2_context *ctx, struct op2_chain *c, int i, bool capture,
                       const op2_exec **exec) {
  const op2_chain_call *q = &c->calls[i];
  c->running = c->running_last = i;
  c->capturing = capture;
  replay(ctx, q);
  c->capturing = false;
  if (exec) *exec = capture && q->captured ? &q->exec : NULL;
  return op2_chain_running(c, i, i);
}

int op2_chain_running(struct op2_chain *c, int first, int last) {
  if (c->orphaned) { /* op_exit ran inside (an error handler's call): nothing is left to run */
    chain_release(c);
    return OP2_CHAIN_FREED;
  }
  c->running = first, c->running_last = last;
  return OP2_CHAIN_RAN;
}

void op2_chain_agreeing(struct op2_chain *c, bool agreeing) {
  c->agreeing = agreeing;
}

const char *op2_chain_why(const struct op2_chain *c) {
  return c->why;
}
