/* Halo exchanges: a dat's export rows are packed and sent to each neighbour, its import rows
 * received, without blocking, so the loop's core elements run while messages travel. Only dats
 * written since their last exchange ("dirty") travel. A dat held by an accelerator is packed on
 * the device (backend->halo_pack) and its received rows go back there (backend->halo_unpack);
 * MPI itself only ever sees host buffers. Every message goes out even after a failure (zeroed or
 * empty), so no neighbour waits forever; the loop then agrees on success (par_loop.c). */
#include <stdlib.h>
#include <string.h>

#include "op2_mpi.h"

typedef struct pending {
  op_dat dat;
  int nsend, nrecv;
  char *sendbuf, *recvbuf;
  MPI_Request *req;
} pending;

struct op2_exchange {
  const char *loop; /* for messages */
  int n;
  pending *p;
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

/* When this rank cannot post its messages the usual way (no buffers), it still sends every
 * neighbour an empty message and takes theirs, so nobody waits for it; the loop's agreement then
 * tells every rank of the failure. */
static void empty_messages(op2_context *ctx, const op2_halo *h, int tag) {
  for (int q = 0; q < ctx->mpi.size; q++) {
    int exp = neighbour_slot(&h->exp_exec, q) >= 0 || neighbour_slot(&h->exp_nonexec, q) >= 0;
    int imp = neighbour_slot(&h->imp_exec, q) >= 0 || neighbour_slot(&h->imp_nonexec, q) >= 0;
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

static int begin_one(op2_context *ctx, const char *loop, op_dat d, pending *pd, double *bytes,
                     long *messages) {
  op2_halo *h = d->set->halo;
  size_t eb = d->elem_bytes;
  int p = ctx->mpi.size, tag = 1000 + d->index;
  int rc = h->send_rows ? OP2_OK : build_send_rows(ctx, h);
  int nrecv_rows = rows_of(&h->imp_exec) + rows_of(&h->imp_nonexec);
  pd->dat = d;
  pd->sendbuf = malloc(eb * ((size_t)h->nsend_rows + 1));
  pd->recvbuf = malloc(eb * ((size_t)nrecv_rows + 1));
  int maxmsg =
      h->exp_exec.nranks + h->exp_nonexec.nranks + h->imp_exec.nranks + h->imp_nonexec.nranks;
  pd->req = malloc(sizeof(MPI_Request) * ((size_t)maxmsg + 1));
  pd->nsend = pd->nrecv = 0;
  if (rc == OP2_OK && (!pd->sendbuf || !pd->recvbuf || !pd->req))
    rc = op2_error(OP2_ERR_MEM, "op_par_loop '%s': halo exchange of dat '%s': out of memory", loop,
                   d->name);
  if (rc != OP2_OK) {
    empty_messages(ctx, h, tag);
    free(pd->sendbuf), free(pd->recvbuf), free(pd->req);
    pd->sendbuf = pd->recvbuf = NULL;
    pd->req = NULL;
    return rc;
  }
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

static int end_one(op2_context *ctx, const char *loop, pending *pd) {
  int rc = OP2_MPI(MPI_Waitall(pd->nrecv + pd->nsend, pd->req, MPI_STATUSES_IGNORE));
  op_dat d = pd->dat;
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
  free(pd->sendbuf), free(pd->recvbuf), free(pd->req);
  pd->sendbuf = pd->recvbuf = NULL;
  pd->req = NULL;
  /* The import rows are contiguous in the element order, so they reach the device in one copy. */
  if (rc == OP2_OK && on_device(ctx, d) && at) rc = ctx->backend->halo_unpack(ctx, loop, d);
  if (rc == OP2_OK) d->halo_dirty = false;
  return rc;
}

int op2_exchange_begin(op2_context *ctx, const char *loop, op_dat *dats, int ndats,
                       op2_exchange **out, double *bytes, long *messages) {
  op2_exchange *x = calloc(1, sizeof *x);
  if (!x || !(x->p = calloc((size_t)ndats + 1, sizeof(pending))))
    return free(x), op2_error(OP2_ERR_MEM, "halo exchange: out of memory");
  x->loop = loop;
  *out = x;
  int rc = OP2_OK; /* every dat's messages go out even after a failure: neighbours wait for them */
  for (int i = 0; i < ndats; i++) {
    int r = begin_one(ctx, loop, dats[i], &x->p[x->n++], bytes, messages);
    if (rc == OP2_OK) rc = r;
  }
  return rc;
}

/* Waits for every message even after a failure, so no request outlives its buffers. */
int op2_exchange_end(op2_context *ctx, op2_exchange *x) {
  if (!x) return OP2_OK;
  int rc = OP2_OK;
  for (int i = 0; i < x->n; i++) {
    if (!x->p[i].req) continue;
    int r = end_one(ctx, x->loop, &x->p[i]);
    if (rc == OP2_OK) rc = r;
  }
  free(x->p);
  free(x);
  return rc;
}
