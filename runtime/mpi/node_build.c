/* SPDX-License-Identifier: BSD-3-Clause */
/* One optimised build per machine. The node's first rank (the builder) runs the optimising
 * compiler in the background and stores the result in the shared kernel cache; the node's other
 * ranks (followers) run TinyCC code meanwhile and load the stored build once the builder says it
 * is done. The builder tells its followers the outcome of every kernel it creates, built or not,
 * so a follower waits exactly as long as the build takes and never for a build that will not
 * come: no polling of the cache, no time-outs. Kernels are created in the same order on every
 * rank (the loops agree on their keys), so the n-th kernel's message carries tag n. */
#include <stdlib.h>

#include "jit/jit.h"
#include "runtime/mpi/op2_mpi.h"
#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/mpi_state.h"
#include "runtime/jit_use.h"

struct op2_node_msg {
  op2_kernel *kernel;
  int tag;
  int *outcome; /* follower: received into (its own allocation: entries move); 1 when the
                 * builder stored an optimised build */
  MPI_Request request;
};

static const int built = 1, not_built = 0; /* send buffers that outlive every send */

static int is_builder(const op2_context *ctx) {
  return ctx->mpi.node_size > 1 && ctx->mpi.node_rank == 0;
}

static int is_follower(const op2_context *ctx) {
  return ctx->mpi.node_size > 1 && ctx->mpi.node_rank > 0;
}

void op2_mpi_node_init(op2_context *ctx) {
  op2_jit_follow_node(ctx->jit_engine, is_follower(ctx));
}

static struct op2_node_msg *add(op2_mpi *m, op2_kernel *k, int tag, int ctx_is_follower) {
  if (m->node_count == m->node_cap) {
    int cap = m->node_cap ? 2 * m->node_cap : 16;
    struct op2_node_msg *grown = realloc(m->node_msgs, sizeof *grown * (size_t)cap);
    if (!grown) return NULL;
    m->node_msgs = grown, m->node_cap = cap;
  }
  struct op2_node_msg *msg = &m->node_msgs[m->node_count++];
  *msg = (struct op2_node_msg){.kernel = k, .tag = tag, .request = MPI_REQUEST_NULL};
  if (ctx_is_follower && !(msg->outcome = malloc(sizeof *msg->outcome)))
    return m->node_count--, NULL;
  return msg;
}

/* The builder's word on one kernel, to every follower of the machine. */
static int publish(op2_context *ctx, struct op2_node_msg *msg, int ok) {
  op2_mpi *m = &ctx->mpi;
  struct op2_mpi_comms *c = m->comms;
  if (ok && op2_fault(ctx, "node-build")) {
    op2_diag(1, "optimising compile of '%s' failed (failure injected by OP2_FAULT)",
             msg->kernel ? op2_kernel_name(msg->kernel) : "?");
    ok = 0;
  }
  msg->kernel = NULL;
  for (int q = 1; q < m->node_size; q++) {
    MPI_Request *r = realloc(c->node_sends, sizeof *r * ((size_t)m->node_nsends + 1));
    if (!r) return op2_error(OP2_ERR_MEM, "sharing optimised builds: out of memory");
    c->node_sends = r;
    OP2_CALL(OP2_MPI(MPI_Isend(ok ? &built : &not_built, 1, MPI_INT, q, msg->tag, c->node_comm,
                               &c->node_sends[m->node_nsends])));
    m->node_nsends++;
  }
  return OP2_OK;
}

int op2_mpi_node_kernel(op2_context *ctx, op2_kernel *k) {
  op2_mpi *m = &ctx->mpi;
  if (m->node_size < 2) return OP2_OK;
  int tag = m->node_kernels++;
  struct op2_node_msg *msg = add(m, k, tag, is_follower(ctx));
  if (!msg) return op2_error(OP2_ERR_MEM, "sharing optimised builds: out of memory");
  if (is_builder(ctx)) /* no background build: the outcome is known now */
    return op2_kernel_queued(k) ? OP2_OK : publish(ctx, msg, op2_kernel_tier(k) != OP2_TIER_TCC);
  return OP2_MPI(MPI_Irecv(msg->outcome, 1, MPI_INT, 0, tag, m->comms->node_comm, &msg->request));
}

static int follower_progress(op2_context *ctx, struct op2_node_msg *msg) {
  int done = 0;
  OP2_CALL(OP2_MPI(MPI_Test(&msg->request, &done, MPI_STATUS_IGNORE)));
  if (!done) return OP2_OK;
  op2_kernel *k = msg->kernel;
  int outcome = *msg->outcome;
  msg->kernel = NULL;
  free(msg->outcome);
  msg->outcome = NULL;
  if (!op2_kernel_awaiting_peer(k)) return OP2_OK; /* it found its optimised code itself */
  if (op2_jit_load_node_build(ctx->jit_engine, k, outcome) != 0 && !outcome) {
    op2_diag(1, "kernel '%s': this machine's optimised build failed: staying on TinyCC code",
             op2_kernel_name(k));
  }
  return OP2_OK;
}

int op2_mpi_node_progress(op2_context *ctx) {
  op2_mpi *m = &ctx->mpi;
  int rc = OP2_OK, kept = 0;
  for (int i = 0; i < ctx->kernels.count; i++) { /* this process's own background builds */
    op2_kernel *k = ctx->kernels.items[i];
    if (op2_kernel_queued(k)) op2_jit_poll_kernel(ctx, k);
  }
  for (int i = 0; i < m->node_count; i++) {
    struct op2_node_msg *msg = &m->node_msgs[i];
    if (msg->kernel && is_builder(ctx) && !op2_kernel_queued(msg->kernel))
      rc = publish(ctx, msg, op2_kernel_tier(msg->kernel) != OP2_TIER_TCC);
    else if (msg->kernel && is_follower(ctx))
      rc = follower_progress(ctx, msg);
    if (msg->kernel) m->node_msgs[kept++] = *msg; /* still waiting */
    if (rc != OP2_OK) break;
  }
  if (rc == OP2_OK) m->node_count = kept;
  return rc;
}

void op2_mpi_node_finish(op2_context *ctx) {
  op2_mpi *m = &ctx->mpi;
  struct op2_mpi_comms *c = m->comms;
  for (int i = 0; i < m->node_count; i++) {
    struct op2_node_msg *msg = &m->node_msgs[i];
    if (is_builder(ctx)) { /* builds dropped at exit: followers learn they will not come */
      msg->kernel = NULL;
      publish(ctx, msg, 0);
    } else if (msg->request != MPI_REQUEST_NULL) { /* a word that will not come now */
      int done = 0;
      OP2_MPI(MPI_Test(&msg->request, &done, MPI_STATUS_IGNORE));
      if (!done && OP2_MPI(MPI_Cancel(&msg->request)) == OP2_OK)
        OP2_MPI(MPI_Wait(&msg->request, MPI_STATUS_IGNORE));
    }
    free(msg->outcome);
  }
  if (m->node_nsends) OP2_MPI(MPI_Waitall(m->node_nsends, c->node_sends, MPI_STATUSES_IGNORE));
  free(m->node_msgs), free(c->node_sends);
  m->node_msgs = NULL, c->node_sends = NULL;
  m->node_count = m->node_cap = m->node_nsends = m->node_kernels = 0;
}

int op2_mpi_node_build(op2_context *ctx, op2_node_build_fn build, void *arg) {
  op2_mpi *m = &ctx->mpi;
  if (m->node_size < 2) return build(ctx, arg);
  int rc = OP2_OK, built_here = 0;
  if (m->node_rank == 0) built_here = (rc = build(ctx, arg)) == OP2_OK;
  /* Reached by the first rank whatever its build did: the followers always hear the outcome. */
  int told = OP2_MPI(MPI_Bcast(&built_here, 1, MPI_INT, 0, m->comms->node_comm));
  if (m->node_rank == 0) return rc != OP2_OK ? rc : told;
  OP2_CALL(told);
  if (!built_here) op2_diag(2, "the node's first rank did not build: building here");
  return build(ctx, arg);
}
