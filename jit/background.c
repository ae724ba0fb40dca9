/* SPDX-License-Identifier: BSD-3-Clause */
/* The background tier: worker threads (one per core the loops leave spare, at least one) compile
 * queued kernels with the optimising compiler while loops keep running on TinyCC code. A finished
 * job only publishes its result (an atomic state); the main thread swaps the kernel at the start
 * of a later call, never during one.
 *
 * Which job next: the one whose kernel has spent most time running TinyCC code so far, its first
 * call left out (its weight, op2_kernel_ran), the earliest queued among equals. A program's first
 * calls queue every kernel at once, set-up kernels called once among them; the loops that run on
 * and on gather weight and are built first, so the time they spend on slow code is short even
 * when the kernels queued before them are many, and set-up kernels come last. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "jit_internal.h"

struct op2_background {
  pthread_t *threads;
  int nthreads;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  op2_bg_job *head; /* queued, in submission order */
  int stopping;
};

/* The heaviest queued job, unlinked; NULL when none. Under the lock. */
static op2_bg_job *take_heaviest(op2_background *bg) {
  op2_bg_job **best = NULL;
  unsigned long long most = 0;
  for (op2_bg_job **p = &bg->head; *p; p = &(*p)->next) {
    unsigned long long w = atomic_load_explicit(&(*p)->weight_ns, memory_order_relaxed);
    if (!best || w > most) best = p, most = w;
  }
  if (!best) return NULL;
  op2_bg_job *job = *best;
  *best = job->next;
  return job;
}

static void *worker(void *arg) {
  op2_background *bg = arg;
  for (;;) {
    pthread_mutex_lock(&bg->lock);
    while (!bg->head && !bg->stopping) pthread_cond_wait(&bg->wake, &bg->lock);
    op2_bg_job *job = bg->stopping ? NULL : take_heaviest(bg);
    pthread_mutex_unlock(&bg->lock);
    if (!job) return NULL;
    int state = OP2_JOB_CANCELLED; /* superseded before it started: not built at all */
    if (!atomic_load(&job->cancelled)) {
      op2_build_into_entry(&job->request, &job->result);
      state = job->result.status == OP2_BUILD_OK          ? OP2_JOB_DONE
              : job->result.status == OP2_BUILD_ABANDONED ? OP2_JOB_CANCELLED
                                                          : OP2_JOB_FAILED;
    }
    atomic_store_explicit(&job->state, state, memory_order_release);
  }
}

static op2_background *start(int nthreads) {
  op2_background *bg = calloc(1, sizeof *bg);
  if (!bg || !(bg->threads = calloc((size_t)nthreads, sizeof *bg->threads))) {
    free(bg);
    return NULL;
  }
  pthread_mutex_init(&bg->lock, NULL);
  pthread_cond_init(&bg->wake, NULL);
  for (int i = 0; i < nthreads; i++) {
    if (pthread_create(&bg->threads[i], NULL, worker, bg) != 0) break;
    bg->nthreads++;
  }
  if (bg->nthreads == 0) {
    pthread_mutex_destroy(&bg->lock);
    pthread_cond_destroy(&bg->wake);
    free(bg->threads);
    free(bg);
    return NULL;
  }
  return bg;
}

int op2_background_submit(op2_background **bgp, int nthreads, op2_bg_job *job) {
  if (!*bgp && !(*bgp = start(nthreads > 0 ? nthreads : 1))) return -1;
  op2_background *bg = *bgp;
  atomic_store(&job->state, OP2_JOB_QUEUED);
  job->next = NULL;
  pthread_mutex_lock(&bg->lock);
  op2_bg_job **tail = &bg->head;
  while (*tail) tail = &(*tail)->next;
  *tail = job;
  pthread_cond_signal(&bg->wake);
  pthread_mutex_unlock(&bg->lock);
  return 0;
}

/* Stops after the jobs in progress: queued jobs are dropped (a later run compiles them), so a
 * short program never waits for more than one compile per worker at exit. */
void op2_background_stop(op2_background **bgp) {
  op2_background *bg = *bgp;
  if (!bg) return;
  pthread_mutex_lock(&bg->lock);
  bg->stopping = 1;
  for (op2_bg_job *j = bg->head; j; j = j->next) atomic_store(&j->state, OP2_JOB_CANCELLED);
  bg->head = NULL;
  pthread_cond_broadcast(&bg->wake);
  pthread_mutex_unlock(&bg->lock);
  for (int i = 0; i < bg->nthreads; i++) pthread_join(bg->threads[i], NULL);
  pthread_mutex_destroy(&bg->lock);
  pthread_cond_destroy(&bg->wake);
  free(bg->threads);
  free(bg);
  *bgp = NULL;
}
