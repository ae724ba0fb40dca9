/* Halo exchanges: a dat's export rows are packed and sent to each neighbour, its import rows
 * received, without blocking, so the loop's core elements run while messages travel. Only dats
 * written since their last exchange ("dirty") travel. */
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
  int n;
  pending *p;
};

static int rows_of(const op2_halo_list *l) { return l->nranks ? l->offset[l->nranks] : 0; }

/* Neighbours of a set: union of the ranks of its four lists, ascending. */
static int neighbour_slot(const op2_halo_list *l, int q) {
  for (int k = 0; k < l->nranks; k++)
    if (l->ranks[k] == q) return k;
  return -1;
}

static int begin_one(op2_context *ctx, op_dat d, pending *pd, double *bytes, long *messages) {
  const op2_halo *h = d->set->halo;
  size_t eb = d->elem_bytes;
  int nsend_rows = rows_of(&h->exp_exec) + rows_of(&h->exp_nonexec);
  int nrecv_rows = rows_of(&h->imp_exec) + rows_of(&h->imp_nonexec);
  pd->dat = d;
  pd->sendbuf = malloc(eb * ((size_t)nsend_rows + 1));
  pd->recvbuf = malloc(eb * ((size_t)nrecv_rows + 1));
  int maxmsg = h->exp_exec.nranks + h->exp_nonexec.nranks + h->imp_exec.nranks +
               h->imp_nonexec.nranks;
  pd->req = malloc(sizeof(MPI_Request) * ((size_t)maxmsg + 1));
  if (!pd->sendbuf || !pd->recvbuf || !pd->req) return op2_error(OP2_ERR_MEM, "halo exchange: oom");
  pd->nsend = pd->nrecv = 0;
  /* one message per neighbour: its exec rows then its non-exec rows */
  int p = ctx->mpi.size, tag = 1000 + d->index;
  size_t at = 0;
  for (int q = 0; q < p; q++) {
    int a = neighbour_slot(&h->imp_exec, q), b = neighbour_slot(&h->imp_nonexec, q);
    if (a < 0 && b < 0) continue;
    int rows = (a >= 0 ? h->imp_exec.offset[a + 1] - h->imp_exec.offset[a] : 0) +
               (b >= 0 ? h->imp_nonexec.offset[b + 1] - h->imp_nonexec.offset[b] : 0);
    MPI_Irecv(pd->recvbuf + at * eb, (int)(rows * eb), MPI_BYTE, q, tag, ctx->mpi.comm,
              &pd->req[pd->nrecv++]);
    at += (size_t)rows;
  }
  int nrecv = pd->nrecv;
  at = 0;
  for (int q = 0; q < p; q++) {
    int a = neighbour_slot(&h->exp_exec, q), b = neighbour_slot(&h->exp_nonexec, q);
    if (a < 0 && b < 0) continue;
    size_t start = at;
    const op2_halo_list *lists[2] = {&h->exp_exec, &h->exp_nonexec};
    int slots[2] = {a, b};
    for (int k = 0; k < 2; k++) {
      if (slots[k] < 0) continue;
      const op2_halo_list *l = lists[k];
      for (int i = l->offset[slots[k]]; i < l->offset[slots[k] + 1]; i++)
        memcpy(pd->sendbuf + (at++) * eb, d->data + (size_t)l->elements[i] * eb, eb);
    }
    MPI_Isend(pd->sendbuf + start * eb, (int)((at - start) * eb), MPI_BYTE, q, tag,
              ctx->mpi.comm, &pd->req[nrecv + pd->nsend++]);
    *bytes += (double)((at - start) * eb);
    (*messages)++;
  }
  return OP2_OK;
}

static void end_one(op2_context *ctx, pending *pd) {
  MPI_Waitall(pd->nrecv + pd->nsend, pd->req, MPI_STATUSES_IGNORE);
  op_dat d = pd->dat;
  const op2_halo *h = d->set->halo;
  size_t eb = d->elem_bytes, at = 0;
  char *exec_base = d->data + (size_t)d->set->size * eb;
  char *nonexec_base = exec_base + (size_t)d->set->exec_size * eb;
  for (int q = 0; q < ctx->mpi.size; q++) {
    int a = neighbour_slot(&h->imp_exec, q), b = neighbour_slot(&h->imp_nonexec, q);
    if (a >= 0) {
      size_t rows = (size_t)(h->imp_exec.offset[a + 1] - h->imp_exec.offset[a]);
      memcpy(exec_base + (size_t)h->imp_exec.offset[a] * eb, pd->recvbuf + at * eb, rows * eb);
      at += rows;
    }
    if (b >= 0) {
      size_t rows = (size_t)(h->imp_nonexec.offset[b + 1] - h->imp_nonexec.offset[b]);
      memcpy(nonexec_base + (size_t)h->imp_nonexec.offset[b] * eb, pd->recvbuf + at * eb,
             rows * eb);
      at += rows;
    }
  }
  d->halo_dirty = false;
  free(pd->sendbuf), free(pd->recvbuf), free(pd->req);
}

int op2_exchange_begin(op2_context *ctx, op_dat *dats, int ndats, op2_exchange **out,
                       double *bytes, long *messages) {
  op2_exchange *x = calloc(1, sizeof *x);
  if (!x || !(x->p = calloc((size_t)ndats + 1, sizeof(pending))))
    return free(x), op2_error(OP2_ERR_MEM, "halo exchange: out of memory");
  for (int i = 0; i < ndats; i++) OP2_CALL(begin_one(ctx, dats[i], &x->p[x->n++], bytes, messages));
  *out = x;
  return OP2_OK;
}

void op2_exchange_end(op2_context *ctx, op2_exchange *x) {
  if (!x) return;
  for (int i = 0; i < x->n; i++) end_one(ctx, &x->p[i]);
  free(x->p);
  free(x);
}
