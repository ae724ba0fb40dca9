/* SPDX-License-Identifier: BSD-3-Clause */
/* OP2_MPI_TIMEOUT: an agreement that waits longer than this for the other ranks ends the job
 * with a message naming the waiting rank and its call, instead of hanging (a rank stuck in its
 * own code, or in a call no agreement sees). A blocking MPI_Allreduce cannot time out, and a
 * nonblocking one polled with MPI_Test adds a measurable cost to every loop call
 * (bench/mpi_loop_call), so a thread watches instead: the agreement stamps when it starts to
 * wait (two relaxed atomic stores a call), the thread looks once a second. The pending
 * collective cannot be withdrawn, so nothing but ending the process is safe; the thread makes no
 * MPI call (MPI_THREAD_FUNNELED): the launcher ends the job when the rank exits without
 * MPI_Finalize. The launcher then ends the other ranks (SIGTERM): each says so, naming itself and
 * the call it waited in, if any, so that every rank of the job reports, not only the one whose
 * wait ran out. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runtime/mpi/op2_mpi.h"
#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/options.h"
#include "runtime/mpi_state.h"

long long op2_mpi_now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000ll + t.tv_nsec;
}

static void *watch(void *arg) {
  op2_context *ctx = arg;
  struct op2_mpi_comms *c = ctx->mpi.comms;
  long long limit = (long long)(ctx->opt.mpi_timeout * 1e9);
  long long period = limit / 4 < 1000000000ll ? limit / 4 : 1000000000ll;
  pthread_mutex_lock(&c->watch_lock);
  while (!c->watch_stop) {
    long long wake = op2_mpi_now_ns() + period;
    struct timespec until = {.tv_sec = wake / 1000000000ll, .tv_nsec = wake % 1000000000ll};
    pthread_cond_timedwait(&c->watch_wake, &c->watch_lock, &until);
    long long since = atomic_load_explicit(&c->wait_since_ns, memory_order_relaxed);
    if (!since || c->watch_stop || op2_mpi_now_ns() - since <= limit) continue;
    op2_error_final(
        "rank %d waited %.0f s in %s for the other ranks (OP2_MPI_TIMEOUT=%.0f): another rank is "
        "stuck or not in a collective OP2 call; ending the job",
        ctx->mpi.rank, (double)(op2_mpi_now_ns() - since) / 1e9,
        atomic_load_explicit(&c->wait_what, memory_order_relaxed), ctx->opt.mpi_timeout);
    _exit(1);
  }
  pthread_mutex_unlock(&c->watch_lock);
  return NULL;
}

/* Async-signal-safe: the note formatted at start, the call from the waiting stamp, write(2). */
static void ended_by_launcher(int sig) {
  op2_context *ctx = op2_ctx();
  struct op2_mpi_comms *c = ctx ? ctx->mpi.comms : NULL;
  if (c && c->term_note_len > 0) {
    const char *what = atomic_load_explicit(&c->wait_what, memory_order_relaxed);
    int waiting = what && atomic_load_explicit(&c->wait_since_ns, memory_order_relaxed);
    const char *parts[] = {c->term_note, waiting ? " while it waited in " : "", waiting ? what : "",
                           "\n"};
    op2_error_signal_safe(parts, 4);
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

/* Only where the program left SIGTERM alone. */
static void note_when_ended(op2_context *ctx, struct op2_mpi_comms *c) {
  if (sigaction(SIGTERM, NULL, &c->term_old) != 0 || c->term_old.sa_handler != SIG_DFL ||
      (c->term_old.sa_flags & SA_SIGINFO))
    return;
  int n = snprintf(c->term_note, sizeof c->term_note,
                   "op2: error: rank %d was ended by the launcher (SIGTERM): another rank failed "
                   "or ended the job (see its message)",
                   ctx->mpi.rank);
  c->term_note_len = n > 0 && (size_t)n < sizeof c->term_note ? n : 0;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = ended_by_launcher;
  sigemptyset(&sa.sa_mask);
  c->term_installed = sigaction(SIGTERM, &sa, NULL) == 0;
}

int op2_mpi_watchdog_start(op2_context *ctx) {
  struct op2_mpi_comms *c = ctx->mpi.comms;
  if (ctx->mpi.size >= 2) note_when_ended(ctx, c);
  if (ctx->mpi.size < 2 || ctx->opt.mpi_timeout <= 0) return OP2_OK;
  pthread_condattr_t attr;
  int rc = pthread_condattr_init(&attr);
  if (rc == 0) rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  if (rc == 0) rc = pthread_cond_init(&c->watch_wake, &attr);
  if (rc == 0) pthread_condattr_destroy(&attr);
  if (rc == 0 && (rc = pthread_mutex_init(&c->watch_lock, NULL)) != 0)
    pthread_cond_destroy(&c->watch_wake);
  if (rc == 0 && (rc = pthread_create(&c->watch_thread, NULL, watch, ctx)) != 0) {
    pthread_cond_destroy(&c->watch_wake);
    pthread_mutex_destroy(&c->watch_lock);
  }
  if (rc != 0)
    return op2_error(OP2_ERR_STATE, "op_init: cannot start the OP2_MPI_TIMEOUT watch thread");
  c->watching = 1;
  return OP2_OK;
}

void op2_mpi_watchdog_stop(op2_context *ctx) {
  struct op2_mpi_comms *c = ctx->mpi.comms;
  if (c && c->term_installed) sigaction(SIGTERM, &c->term_old, NULL), c->term_installed = 0;
  if (!c || !c->watching) return;
  pthread_mutex_lock(&c->watch_lock);
  c->watch_stop = 1;
  pthread_cond_signal(&c->watch_wake);
  pthread_mutex_unlock(&c->watch_lock);
  pthread_join(c->watch_thread, NULL);
  pthread_cond_destroy(&c->watch_wake);
  pthread_mutex_destroy(&c->watch_lock);
  c->watching = 0;
}
