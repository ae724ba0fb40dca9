/* SPDX-License-Identifier: BSD-3-Clause */
/* Halo exchanges: a dat's export rows are packed and sent to each neighbour, its import rows
 * received, without blocking, so the loop's core elements run while messages travel. Only dats
 * written since their last exchange ("dirty") travel. A dat held by an accelerator is packed on
 * the device (backend->halo_pack) and its received rows go back there (backend->halo_unpack);
 * MPI itself only ever sees host buffers. Each dat keeps its message buffers and requests from
 * one exchange to the next (allocated at its first exchange, grown if ever needed, freed at
 * op_exit), in memory from the backend's host_alloc where it has one (page-locked for CUDA, so
 * the device copies into them directly): a loop call allocates nothing. Every message goes out
 * even after a failure (zeroed or empty), so no neighbour waits forever; the loop then agrees on
 * success (par_loop.c). */
#include <stdlib.h>
#include <string.h>

#include "runtime/mpi/op2_mpi.h"
#include "runtime/backend.h"
#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/mpi_state.h"
#include "runtime/mesh.h"

struct op2_halo_buffers {
  char *sendbuf, *recvbuf;
  size_t send_cap, recv_cap; /* bytes */
  MPI_Request *req;
  int req_cap;
  int nsend, nrecv;
  bool posted; /* messages of the current exchange are in flight: end_one waits for them */
};

static int rows_of(const op2_halo_list *l) {
  return l->nranks ? l->offset[l->nranks] : 0;
}

static int neighbour_slot(const op2_halo_list *l, int q) {
  for (int k = 0; k < l->nranks; k++)
    if (l->ranks[k] == q) return k;
  return -1;
}

static int slot_rows(const op2_halo_list *l, int slot) {
  return slot < 0 ? 0 : l->offset[slot + 1] - l->offset[slot];
}

/* The export rows in message order: for each neighbour, its exec rows then its non-exec rows. */
static int build_send_rows(op2_context *ctx, op2_halo *h) {
  int n = rows_of(&h->exp_exec) + rows_of(&h->exp_nonexec), at = 0;
  h->send_rows = malloc(sizeof(int) * ((size_t)n + 1));
  if (!h->send_rows) return op2_error(OP2_ERR_MEM, "halo exchange: out of memory");
  for (int q = 0; q < ctx->mpi.size; q++) {
    const op2_halo_list *lists[2] = {&h->exp_exec, &h->exp_nonexec};
    for (int k = 0; k < 2; k++) {
      int slot = neighbour_slot(lists[k], q);
      if (slot < 0) continue;
      for (int i = lists[k]->offset[slot]; i < lists[k]->offset[slot + 1]; i++)
        h->send_rows[at++] = lists[k]->elements[i];
    }
  }
  h->nsend_rows = n;
  return OP2_OK;
}

static int on_device(op2_context *ctx, op_dat d) {
  return d->device && ctx->backend->halo_pack && ctx->backend->halo_unpack;
}

static bool has_neighbour(const op2_halo_list *exec, const op2_halo_list *nonexec, int q) {
  return neighbour_slot(exec, q) >= 0 || neighbour_slot(nonexec, q) >= 0;
}

/* Whether any of the dats sends to (send) or receives from neighbour q. */
static bool dats_send_to(op_dat *dats, int ndats, int q, bool send) {
  for (int i = 0; i < ndats; i++) {
    const op2_halo *h = dats[i]->set->halo;
    if (send ? has_neighbour(&h->exp_exec, &h->exp_nonexec, q)
             : has_neighbour(&h->imp_exec, &h->imp_nonexec, q))
      return true;
  }
  return false;
}

/* When this rank cannot post its messages the usual way (no buffers), it still sends every
 * neighbour of the dats an empty message and takes theirs, so nobody waits for it; the loop's
 * agreement then tells every rank of the failure. */
static void empty_messages(op2_context *ctx, op_dat *dats, int ndats, int tag) {
  for (int q = 0; q < ctx->mpi.size; q++) {
    bool exp = dats_send_to(dats, ndats, q, true), imp = dats_send_to(dats, ndats, q, false);
    char none;
    if (exp && imp)
      MPI_Sendrecv(&none, 0, MPI_BYTE, q, tag, &none, 0, MPI_BYTE, q, tag, op2_comm(ctx),
                   MPI_STATUS_IGNORE); /* a longer message is cut short: that error is expected */
    else if (exp)
      MPI_Send(&none, 0, MPI_BYTE, q, tag, op2_comm(ctx));
    else if (imp)
      MPI_Recv(&none, 0, MPI_BYTE, q, tag, op2_comm(ctx), MPI_STATUS_IGNORE);
  }
}

/* Host memory for messages: the backend's (page-locked for an accelerator), else malloc. */
static int buffer_alloc(op2_context *ctx, const char *loop, size_t bytes, void **out) {
  if (ctx->backend->host_alloc) return ctx->backend->host_alloc(ctx, loop, bytes, out);
  *out = malloc(bytes);
  return *out ? OP2_OK
              : op2_error(OP2_ERR_MEM, "op_par_loop '%s': halo exchange: out of memory", loop);
}

static void buffer_free(op2_context *ctx, void *p) {
  if (p && ctx && ctx->backend && ctx->backend->host_free)
    ctx->backend->host_free(ctx, p);
  else
    free(p);
}

/* `*buf` holds at least `bytes` (its old content is not kept). */
static int buffer_reserve(op2_context *ctx, const char *loop, char **buf, size_t *cap,
                          size_t bytes) {
  if (*buf && *cap >= bytes) return OP2_OK;
  buffer_free(ctx, *buf);
  *buf = NULL;
  *cap = 0;
  void *p = NULL;
  OP2_CALL(buffer_alloc(ctx, loop, bytes, &p));
  *buf = p;
  *cap = bytes;
  return OP2_OK;
}

/* The dat's buffers, large enough for its messages (the first exchange allocates them). */
static int reserve(op2_context *ctx, const char *loop, op_dat d, struct op2_halo_buffers **out) {
  const op2_halo *h = d->set->halo;
  size_t eb = d->elem_bytes;
  int nrecv_rows = rows_of(&h->imp_exec) + rows_of(&h->imp_nonexec);
  int maxmsg =
      h->exp_exec.nranks + h->exp_nonexec.nranks + h->imp_exec.nranks + h->imp_nonexec.nranks;
  struct op2_halo_buffers *b = d->halo_buffers;
  if (!b && !(b = d->halo_buffers = calloc(1, sizeof *b)))
    return op2_error(OP2_ERR_MEM, "op_par_loop '%s': halo exchange of dat '%s': out of memory",
                     loop, d->name);
  *out = b;
  b->nsend = b->nrecv = 0;
  b->posted = false;
  OP2_CALL(buffer_reserve(ctx, loop, &b->sendbuf, &b->send_cap, eb * ((size_t)h->nsend_rows + 1)));
  OP2_CALL(buffer_reserve(ctx, loop, &b->recvbuf, &b->recv_cap, eb * ((size_t)nrecv_rows + 1)));
  if (b->req_cap < maxmsg + 1) {
    MPI_Request *r = realloc(b->req, sizeof(MPI_Request) * ((size_t)maxmsg + 1));
    if (!r)
      return op2_error(OP2_ERR_MEM, "op_par_loop '%s': halo exchange of dat '%s': out of memory",
                       loop, d->name);
    b->req = r;
    b->req_cap = maxmsg + 1;
  }
  return OP2_OK;
}

static int begin_one(op2_context *ctx, const char *loop, op_dat d, double *bytes, long *messages) {
  op2_halo *h = d->set->halo;
  size_t eb = d->elem_bytes;
  int p = ctx->mpi.size, tag = 1000 + d->index;
  int rc = h->send_rows ? OP2_OK : build_send_rows(ctx, h);
  struct op2_halo_buffers *pd = NULL;
  if (rc == OP2_OK) rc = reserve(ctx, loop, d, &pd);
  if (rc != OP2_OK) {
    empty_messages(ctx, &d, 1, tag);
    return rc;
  }
  pd->posted = true;
  /* one message per neighbour: its exec rows then its non-exec rows */
  size_t at = 0;
  for (int q = 0; q < p; q++) {
    int a = neighbour_slot(&h->imp_exec, q), b = neighbour_slot(&h->imp_nonexec, q);
    if (a < 0 && b < 0) continue;
    int rows = slot_rows(&h->imp_exec, a) + slot_rows(&h->imp_nonexec, b);
    int r = OP2_MPI(MPI_Irecv(pd->recvbuf + at * eb, (int)(rows * eb), MPI_BYTE, q, tag,
                              op2_comm(ctx), &pd->req[pd->nrecv]));
    if (r == OP2_OK) pd->nrecv++;
    if (rc == OP2_OK) rc = r;
    at += (size_t)rows;
  }
  /* A failed pack is reported after the sends are posted: the neighbours wait for these
   * messages, and must not wait forever. */
  if (rc == OP2_OK && op2_fault(ctx, "exchange"))
    rc = op2_error(OP2_ERR_STATE,
                   "op_par_loop '%s': halo exchange of dat '%s': failure injected by OP2_FAULT",
                   loop, d->name);
  if (rc == OP2_OK && on_device(ctx, d) && h->nsend_rows)
    rc = ctx->backend->halo_pack(ctx, loop, d, h->send_rows, h->nsend_rows, pd->sendbuf);
  else if (rc == OP2_OK)
    for (int i = 0; i < h->nsend_rows; i++)
      memcpy(pd->sendbuf + (size_t)i * eb, d->data + (size_t)h->send_rows[i] * eb, eb);
  if (rc != OP2_OK) memset(pd->sendbuf, 0, eb * (size_t)h->nsend_rows);
  at = 0;
  for (int q = 0; q < p; q++) {
    int a = neighbour_slot(&h->exp_exec, q), b = neighbour_slot(&h->exp_nonexec, q);
    if (a < 0 && b < 0) continue;
    size_t rows = (size_t)(slot_rows(&h->exp_exec, a) + slot_rows(&h->exp_nonexec, b));
    int r = OP2_MPI(MPI_Isend(pd->sendbuf + at * eb, (int)(rows * eb), MPI_BYTE, q, tag,
                              op2_comm(ctx), &pd->req[pd->nrecv + pd->nsend]));
    if (r == OP2_OK) pd->nsend++;
    if (rc == OP2_OK) rc = r;
    at += rows;
    *bytes += (double)(rows * eb);
    (*messages)++;
  }
  return rc;
}

static int end_one(op2_context *ctx, const char *loop, op_dat d) {
  struct op2_halo_buffers *pd = d->halo_buffers;
  int rc = OP2_MPI(MPI_Waitall(pd->nrecv + pd->nsend, pd->req, MPI_STATUSES_IGNORE));
  pd->posted = false;
  const op2_halo *h = d->set->halo;
  size_t eb = d->elem_bytes, at = 0;
  char *exec_base = d->data + (size_t)d->set->size * eb;
  char *nonexec_base = exec_base + (size_t)d->set->exec_size * eb;
  for (int q = 0; q < ctx->mpi.size; q++) {
    int a = neighbour_slot(&h->imp_exec, q), b = neighbour_slot(&h->imp_nonexec, q);
    if (a >= 0) {
      size_t rows = (size_t)slot_rows(&h->imp_exec, a);
      memcpy(exec_base + (size_t)h->imp_exec.offset[a] * eb, pd->recvbuf + at * eb, rows * eb);
      at += rows;
    }
    if (b >= 0) {
      size_t rows = (size_t)slot_rows(&h->imp_nonexec, b);
      memcpy(nonexec_base + (size_t)h->imp_nonexec.offset[b] * eb, pd->recvbuf + at * eb,
             rows * eb);
      at += rows;
    }
  }
  /* The import rows are contiguous in the element order, so they reach the device in one copy. */
  if (rc == OP2_OK && on_device(ctx, d) && at) rc = ctx->backend->halo_unpack(ctx, loop, d);
  if (rc == OP2_OK) d->halo_dirty = false;
  return rc;
}

int op2_exchange_begin(op2_context *ctx, const char *loop, op_dat *dats, int ndats, double *bytes,
                       long *messages) {
  int rc = OP2_OK; /* every dat's messages go out even after a failure: neighbours wait for them */
  for (int i = 0; i < ndats; i++) {
    int r = begin_one(ctx, loop, dats[i], bytes, messages);
    if (rc == OP2_OK) rc = r;
  }
  return rc;
}

/* Waits for every message even after a failure, so no request outlives its buffers. */
int op2_exchange_end(op2_context *ctx, const char *loop, op_dat *dats, int ndats) {
  int rc = OP2_OK;
  for (int i = 0; i < ndats; i++) {
    if (!dats[i]->halo_buffers || !dats[i]->halo_buffers->posted) continue;
    int r = end_one(ctx, loop, dats[i]);
    if (rc == OP2_OK) rc = r;
  }
  return rc;
}

void op2_exchange_release(op2_context *ctx, op_dat dat) {
  struct op2_halo_buffers *b = dat->halo_buffers;
  if (!b) return;
  buffer_free(ctx, b->sendbuf);
  buffer_free(ctx, b->recvbuf);
  free(b->req);
  free(b);
  dat->halo_buffers = NULL;
}

/* ---- grouped exchanges (a lazy chain's plan, runtime/chain_mpi.c) ---- */

/* Several dats' halos in one message per neighbour: for each neighbour, each dat's rows (exec
 * then non-exec) in the group's order, so k dats refreshed at one point of a chain cost one
 * message per neighbour instead of k. Host data only (the chain's plan runs on seq and openmp). */
struct op2_exchange_group {
  op_dat *dats;
  int ndats, dats_cap;
  char *sendbuf, *recvbuf;
  size_t send_cap, recv_cap;
  MPI_Request *req;
  int req_cap, nreq;
  bool posted;
};

/* Rows of dat d to (exp) or from (imp) neighbour q. */
static int rows_with(const op2_halo_list *exec, const op2_halo_list *nonexec, int q) {
  return slot_rows(exec, neighbour_slot(exec, q)) + slot_rows(nonexec, neighbour_slot(nonexec, q));
}

/* Bytes of the group's message to (exp) or from (!exp) neighbour q: every dat's rows, in turn. */
static size_t group_bytes_with(const op_dat *dats, int ndats, int q, bool exp) {
  size_t len = 0;
  for (int i = 0; i < ndats; i++) {
    const op2_halo *h = dats[i]->set->halo;
    int rows = exp ? rows_with(&h->exp_exec, &h->exp_nonexec, q)
                   : rows_with(&h->imp_exec, &h->imp_nonexec, q);
    len += dats[i]->elem_bytes * (size_t)rows;
  }
  return len;
}

static int group_reserve(op2_context *ctx, const char *loop, op2_exchange_group *g, op_dat *dats,
                         int ndats) {
  if (ndats > g->dats_cap) {
    op_dat *d = realloc(g->dats, sizeof *d * (size_t)ndats);
    if (!d) return op2_error(OP2_ERR_MEM, "op_par_loop '%s': halo exchange: out of memory", loop);
    g->dats = d, g->dats_cap = ndats;
  }
  memcpy(g->dats, dats, sizeof *dats * (size_t)ndats);
  g->ndats = ndats;
  size_t send = 1, recv = 1;
  for (int i = 0; i < ndats; i++) {
    op2_halo *h = dats[i]->set->halo;
    if (!h->send_rows) OP2_CALL(build_send_rows(ctx, h));
    send += dats[i]->elem_bytes * (size_t)h->nsend_rows;
    recv += dats[i]->elem_bytes * (size_t)(rows_of(&h->imp_exec) + rows_of(&h->imp_nonexec));
  }
  OP2_CALL(buffer_reserve(ctx, loop, &g->sendbuf, &g->send_cap, send));
  OP2_CALL(buffer_reserve(ctx, loop, &g->recvbuf, &g->recv_cap, recv));
  if (g->req_cap < 2 * ctx->mpi.size) {
    MPI_Request *r = realloc(g->req, sizeof *r * 2 * (size_t)ctx->mpi.size);
    if (!r) return op2_error(OP2_ERR_MEM, "op_par_loop '%s': halo exchange: out of memory", loop);
    g->req = r, g->req_cap = 2 * ctx->mpi.size;
  }
  return OP2_OK;
}

static bool group_sends_to(const op2_exchange_group *g, int q, bool send) {
  return dats_send_to(g->dats, g->ndats, q, send);
}

/* Packs the group's messages, neighbour after neighbour: each dat's export rows to q. */
static size_t group_pack(op2_context *ctx, op2_exchange_group *g, int *at_rows) {
  size_t at = 0;
  memset(at_rows, 0, sizeof *at_rows * (size_t)g->ndats);
  for (int q = 0; q < ctx->mpi.size; q++)
    for (int i = 0; i < g->ndats; i++) {
      op_dat d = g->dats[i];
      const op2_halo *h = d->set->halo;
      int rows = rows_with(&h->exp_exec, &h->exp_nonexec, q);
      for (int r = 0; r < rows; r++, at += d->elem_bytes)
        memcpy(g->sendbuf + at, d->data + (size_t)h->send_rows[at_rows[i] + r] * d->elem_bytes,
               d->elem_bytes);
      at_rows[i] += rows;
    }
  return at;
}

int op2_exchange_group_begin(op2_context *ctx, const char *loop, op2_exchange_group **gp,
                             op_dat *dats, int ndats, double *bytes, long *messages) {
  int p = ctx->mpi.size, tag = 999; /* below every dat's own tag (1000 + index) */
  if (!*gp && !(*gp = calloc(1, sizeof **gp)))
    return op2_error(OP2_ERR_MEM, "op_par_loop '%s': halo exchange: out of memory", loop);
  op2_exchange_group *g = *gp;
  g->nreq = 0;
  g->posted = false;
  int rc = group_reserve(ctx, loop, g, dats, ndats);
  int small[64], *at_rows = ndats <= 64 ? small : malloc(sizeof(int) * (size_t)ndats);
  if (rc == OP2_OK && !at_rows)
    rc = op2_error(OP2_ERR_MEM, "op_par_loop '%s': halo exchange: out of memory", loop);
  if (rc != OP2_OK) { /* every neighbour still gets its (empty) message */
    empty_messages(ctx, dats, ndats, tag);
    if (at_rows && at_rows != small) free(at_rows);
    return rc;
  }
  g->posted = true;
  size_t at = 0;
  for (int q = 0; q < p; q++) {
    if (!group_sends_to(g, q, false)) continue;
    size_t len = group_bytes_with(dats, ndats, q, false);
    int r = OP2_MPI(
        MPI_Irecv(g->recvbuf + at, (int)len, MPI_BYTE, q, tag, op2_comm(ctx), &g->req[g->nreq]));
    if (r == OP2_OK) g->nreq++;
    if (rc == OP2_OK) rc = r;
    at += len;
  }
  if (rc == OP2_OK && op2_fault(ctx, "exchange"))
    rc = op2_error(OP2_ERR_STATE,
                   "op_par_loop '%s': halo exchange of dat '%s': failure injected by OP2_FAULT",
                   loop, dats[0]->name);
  size_t packed = group_pack(ctx, g, at_rows);
  if (rc != OP2_OK) memset(g->sendbuf, 0, packed);
  at = 0;
  for (int q = 0; q < p; q++) {
    if (!group_sends_to(g, q, true)) continue;
    size_t len = group_bytes_with(dats, ndats, q, true);
    int r = OP2_MPI(
        MPI_Isend(g->sendbuf + at, (int)len, MPI_BYTE, q, tag, op2_comm(ctx), &g->req[g->nreq]));
    if (r == OP2_OK) g->nreq++;
    if (rc == OP2_OK) rc = r;
    at += len;
    *bytes += (double)len;
    (*messages)++;
  }
  if (at_rows != small) free(at_rows);
  return rc;
}

int op2_exchange_group_end(op2_context *ctx, const char *loop, op2_exchange_group *g) {
  (void)loop;
  if (!g || !g->posted) return OP2_OK;
  int rc = OP2_MPI(MPI_Waitall(g->nreq, g->req, MPI_STATUSES_IGNORE));
  g->posted = false;
  size_t at = 0;
  for (int q = 0; q < ctx->mpi.size; q++)
    for (int i = 0; i < g->ndats; i++) {
      op_dat d = g->dats[i];
      const op2_halo *h = d->set->halo;
      size_t eb = d->elem_bytes;
      char *exec_base = d->data + (size_t)d->set->size * eb;
      char *nonexec_base = exec_base + (size_t)d->set->exec_size * eb;
      int a = neighbour_slot(&h->imp_exec, q), b = neighbour_slot(&h->imp_nonexec, q);
      size_t rows = (size_t)slot_rows(&h->imp_exec, a);
      if (a >= 0)
        memcpy(exec_base + (size_t)h->imp_exec.offset[a] * eb, g->recvbuf + at, rows * eb);
      at += rows * eb;
      rows = (size_t)slot_rows(&h->imp_nonexec, b);
      if (b >= 0)
        memcpy(nonexec_base + (size_t)h->imp_nonexec.offset[b] * eb, g->recvbuf + at, rows * eb);
      at += rows * eb;
    }
  if (rc == OP2_OK)
    for (int i = 0; i < g->ndats; i++) g->dats[i]->halo_dirty = false;
  return rc;
}

void op2_exchange_group_free(op2_context *ctx, op2_exchange_group *g) {
  if (!g) return;
  buffer_free(ctx, g->sendbuf);
  buffer_free(ctx, g->recvbuf);
  free(g->req);
  free(g->dats);
  free(g);
}
