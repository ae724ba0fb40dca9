/* SPDX-License-Identifier: BSD-3-Clause */
/* A lazy chain under MPI (chain_mpi.h): the exchanges the calls would make one by one, planned
 * for the chain as a whole and grouped, one message per neighbour per group.
 *
 * The plan follows each dat's halo state through the chain as the calls would leave it: a call
 * needs a dat refreshed when it reads it through a map (or at all, when it runs its exec halo)
 * and the dat was written since its last exchange; it may travel at any point from just after
 * its last writer (or the chain's start) up to that call. Requests are taken in the order of the
 * calls needing them: the first open request's call is a group's first reader, and every open
 * request whose window reaches that call joins the group, which is posted at the latest window
 * start among them and waited for in the first reader's call, after its core elements. The
 * values sent are the ones the calls would have sent: nothing writes a dat between its group's
 * posting and its readers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/chain_mpi.h"
#include "runtime/backend.h"
#include "runtime/context.h"
#include "runtime/distributed.h"
#include "runtime/error.h"
#include "runtime/loop.h"
#include "runtime/mesh.h"
#include "runtime/options.h"
#include "runtime/chain.h"

/* One dat a call needs refreshed: it may travel at any point in [from, reader]. */
typedef struct request {
  op_dat dat;
  int from, reader, group;
} request;

typedef struct group {
  int post, reader; /* posted before call `post` runs; waited for in call `reader` */
  int first, count; /* its dats: dats[first..first+count) */
} group;

struct op2_chain_mpi {
  op2_exchange_group **buffers; /* per group number, kept from one chain to the next */
  int nbuffers;
};

/* The plan of one part of a chain (calls without reductions). */
typedef struct plan {
  int ncalls;
  const op2_exec **execs; /* the captured calls, in order */
  op2_loop_call *calls;
  request *req;
  int nreq;
  group *groups;
  int ngroups;
  op_dat *dats; /* by group */
} plan;

static void plan_free(plan *p) {
  free(p->execs), free(p->calls), free(p->req), free(p->groups), free(p->dats);
}

static bool is_dat(const op2_arg_desc *d) {
  return d->kind == OP2_ARG_DAT && !d->opt_off;
}

/* As par_loop.c's dats_to_exchange: read through a map, or read at all when the exec halo runs. */
static bool needs_halo(const op2_loop *loop, const op2_arg_desc *d) {
  return is_dat(d) && (d->acc == OP_READ || d->acc == OP_RW) &&
         (d->map_arity || loop->writes_indirectly);
}

typedef struct dat_state {
  op_dat dat;
  bool dirty;
  int written; /* the last call of the part that wrote it, or -1 */
} dat_state;

static dat_state *state_of(dat_state *s, int *n, op_dat dat) {
  for (int k = 0; k < *n; k++)
    if (s[k].dat == dat) return &s[k];
  s[*n] = (dat_state){dat, dat->halo_dirty, -1};
  return &s[(*n)++];
}

/* The requests of the calls, in call order, then the groups. False: out of memory. */
static bool make_plan(plan *p) {
  int nargs = 0;
  for (int k = 0; k < p->ncalls; k++) nargs += p->calls[k].nargs;
  dat_state *s = malloc(sizeof *s * ((size_t)nargs + 1));
  p->req = malloc(sizeof *p->req * ((size_t)nargs + 1));
  p->groups = malloc(sizeof *p->groups * ((size_t)nargs + 1));
  p->dats = malloc(sizeof *p->dats * ((size_t)nargs + 1));
  if (!s || !p->req || !p->groups || !p->dats) {
    free(s);
    return false;
  }
  int ns = 0;
  for (int k = 0; k < p->ncalls; k++) {
    const op2_loop *loop = p->execs[k]->loop;
    const op_arg *args = p->calls[k].args;
    for (int i = 0; i < loop->nargs; i++) {
      if (!needs_halo(loop, &loop->desc[i])) continue;
      dat_state *d = state_of(s, &ns, args[i].dat);
      if (!d->dirty) continue;
      d->dirty = false;
      p->req[p->nreq++] = (request){d->dat, d->written + 1, k, -1};
    }
    for (int i = 0; i < loop->nargs; i++)
      if (is_dat(&loop->desc[i]) && loop->desc[i].acc != OP_READ) {
        dat_state *d = state_of(s, &ns, args[i].dat);
        d->dirty = true, d->written = k;
      }
  }
  free(s);
  int nd = 0;
  for (int r = 0; r < p->nreq; r++) {
    if (p->req[r].group >= 0) continue;
    group *g = &p->groups[p->ngroups];
    *g = (group){0, p->req[r].reader, nd, 0};
    for (int x = r; x < p->nreq; x++) /* every open request whose window reaches the reader */
      if (p->req[x].group < 0 && p->req[x].from <= g->reader) {
        p->req[x].group = p->ngroups;
        p->dats[nd++] = p->req[x].dat;
        g->count++;
        if (p->req[x].from > g->post) g->post = p->req[x].from;
      }
    p->ngroups++;
  }
  return true;
}

static int buffers_for(op2_chain_mpi *st, int ngroups) {
  if (ngroups <= st->nbuffers) return OP2_OK;
  op2_exchange_group **b = realloc(st->buffers, sizeof *b * (size_t)ngroups);
  if (!b) return OP2_ERR_MEM;
  memset(b + st->nbuffers, 0, sizeof *b * (size_t)(ngroups - st->nbuffers));
  st->buffers = b, st->nbuffers = ngroups;
  return OP2_OK;
}

/* Call k of the plan, one step as when run alone: the groups posted before it, its core, the
 * groups it reads waited for, its other owned elements and its exec halo. A group whose posting
 * failed (every rank learnt it at that call's step) leaves its readers unrun. */
static int run_call(op2_context *ctx, op2_chain_mpi *st, plan *p, int k, bool *failed) {
  op2_exec *exec = (op2_exec *)p->execs[k];
  op2_loop *loop = (op2_loop *)exec->loop;
  op2_mpi_step_replay(ctx, loop->step);
  int rc = OP2_OK;
  for (int g = 0; g < p->ngroups; g++) {
    const group *G = &p->groups[g];
    if (G->post != k) continue;
    op2_loop_stats *reader = p->execs[G->reader]->loop->stats;
    int r = op2_exchange_group_begin(ctx, loop->name, &st->buffers[g], p->dats + G->first, G->count,
                                     &reader->halo_bytes, &reader->halo_messages);
    if (rc == OP2_OK) rc = r;
  }
  bool stale = false;
  for (int g = 0; g < p->ngroups; g++) stale |= p->groups[g].reader == k && failed[g];
  double t0 = op2_wall_seconds();
  if (rc == OP2_OK && !stale) rc = op2_run_phase(ctx, exec, 0);
  for (int g = 0; g < p->ngroups; g++) {
    if (p->groups[g].reader != k) continue;
    int r = op2_exchange_group_end(ctx, loop->name, st->buffers[g]);
    if (rc == OP2_OK) rc = r;
  }
  if (rc == OP2_OK && !stale) rc = op2_run_phase(ctx, exec, 1);
  if (rc == OP2_OK && !stale && loop->nphases > 2) rc = op2_run_phase(ctx, exec, 2);
  double seconds = op2_wall_seconds() - t0;
  const op_arg *args = p->calls[k].args;
  for (int i = 0; i < loop->nargs; i++)
    if (is_dat(&loop->desc[i]) && loop->desc[i].acc != OP_READ) args[i].dat->halo_dirty = true;
  rc = op2_mpi_step_end(ctx, rc);
  for (int g = 0; g < p->ngroups; g++)
    if (p->groups[g].post == k) failed[g] = rc != OP2_OK;
  if (rc == OP2_OK && !stale) op2_par_loop_record(ctx, loop, seconds, &p->calls[k]);
  return rc;
}

/* What this rank calls after calls [first, last) of the chain, named as its step would be: the
 * reduction ending the part, or the call that ran the chain ("op_exit", "op_par_loop 'NAME'"
 * when a call that runs at once ended it; a reason that is no call is given as the chain's). */
static void next_call(const struct op2_chain *c, int last, char *out, size_t cap) {
  const char *why = op2_chain_why(c);
  op2_loop_call q;
  if (last < op2_chain_length(c)) {
    op2_chain_call_of(c, last, &q);
    snprintf(out, cap, "op_par_loop '%.200s'", q.name);
  } else if (strncmp(why, "op_par_loop '", 13) == 0) { /* op_par_loop 'NAME' (why it ran now) */
    /* searched from the start (the prefix holds no "' ("): with an offset, GCC's
     * -Wstringop-overread at -O2 with the sanitizers took why + 13 for past the end */
    const char *end = strstr(why, "' (");
    snprintf(out, cap, "%.*s", end ? (int)(end + 1 - why) : (int)strlen(why), why);
  } else if (strncmp(why, "op_", 3) == 0) {
    snprintf(out, cap, "%s", why);
  } else {
    snprintf(out, cap, "op_par_loop chain (run at %s)", why);
  }
}

/* Calls [first, last) of the chain, none with a reduction: captured, planned, run. */
static int run_part(op2_context *ctx, struct op2_chain *c, op2_chain_mpi *st, int first, int last) {
  int n = last - first;
  plan p = {0};
  p.execs = malloc(sizeof *p.execs * (size_t)n);
  p.calls = malloc(sizeof *p.calls * (size_t)n);
  int *index = malloc(sizeof *index * (size_t)n);
  bool ok = p.execs && p.calls && index;
  for (int i = first; i < last; i++) {
    const op2_exec *exec = NULL;
    /* out of memory for the plan: each call runs now, as when run one by one */
    if (op2_chain_call_run(ctx, c, i, ok, &exec) == OP2_CHAIN_FREED) {
      plan_free(&p), free(index);
      return OP2_CHAIN_FREED;
    }
    if (!exec) continue;
    op2_mpi_step_leave(ctx); /* the ranks agreed on the call; it runs in a step of its own */
    index[p.ncalls] = i;
    op2_chain_call_of(c, i, &p.calls[p.ncalls]);
    p.execs[p.ncalls++] = exec;
  }
  bool *failed = NULL;
  if (ok && p.ncalls) {
    ok = make_plan(&p) && buffers_for(st, p.ngroups) == OP2_OK &&
         (failed = calloc((size_t)p.ngroups + 1, sizeof *failed));
    if (!ok)
      op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory for the chain's exchanges",
                p.calls[0].name);
  }
  /* Every rank plans the same calls from the same halo states: an allocation failure here is
   * the one way ranks could part, so they agree on it before any message moves. A rank whose
   * queued calls end here while another's go on meets the other's next call: the mismatch is
   * named after what this rank calls next, as eagerly. */
  if (p.ncalls) {
    char next[256];
    next_call(c, last, next, sizeof next);
    op2_chain_agreeing(c, true); /* no queued call is running: its errors name none */
    if (op2_mpi_agree_chain(ctx, ok ? OP2_OK : OP2_ERR_MEM, next) != OP2_OK) ok = false;
    op2_chain_agreeing(c, false);
  }
  for (int k = 0; ok && k < p.ncalls; k++) {
    if (op2_chain_running(c, index[k], index[k]) == OP2_CHAIN_FREED) {
      plan_free(&p), free(index), free(failed);
      return OP2_CHAIN_FREED;
    }
    (void)run_call(ctx, st, &p, k, failed);
  }
  plan_free(&p), free(index), free(failed);
  return OP2_CHAIN_RAN;
}

int op2_chain_mpi_run(op2_context *ctx, struct op2_chain *c, op2_chain_mpi **state) {
  /* backends with their own code (CUDA) queue their phases and exchange on the device; a
   * checkpoint logs and tuning times each call as it runs alone */
  if (!ctx->backend->host_kernels || ctx->checkpoint || ctx->opt.restart[0] ||
      ctx->opt.tune != OP2_TUNE_OFF)
    return OP2_CHAIN_NOT_RUN;
  if (!*state && !(*state = calloc(1, sizeof **state))) return OP2_CHAIN_NOT_RUN;
  if (!op2_chain_capture_ready(c)) return OP2_CHAIN_NOT_RUN;
  int n = op2_chain_length(c);
  for (int i = 0; i < n;) {
    int e = i;
    op2_loop_call q;
    while (e < n && (op2_chain_call_of(c, e, &q), !op2_call_has_reduction(&q))) e++;
    if (e > i && run_part(ctx, c, *state, i, e) == OP2_CHAIN_FREED) return OP2_CHAIN_FREED;
    /* a reduction's value is the program's when its call returns: it runs alone */
    if (e < n && op2_chain_call_run(ctx, c, e, false, NULL) == OP2_CHAIN_FREED)
      return OP2_CHAIN_FREED;
    i = e + 1;
  }
  return OP2_CHAIN_RAN;
}

void op2_chain_mpi_free(op2_chain_mpi *st) {
  if (!st) return;
  for (int g = 0; g < st->nbuffers; g++) op2_exchange_group_free(NULL, st->buffers[g]);
  free(st->buffers);
  free(st);
}
