/* SPDX-License-Identifier: BSD-3-Clause */
/* The background tier: one worker thread compiles queued kernels with the optimising compiler
 * while loops keep running on TinyCC code. A finished job only publishes its result (an atomic
 * state); the main thread swaps the kernel at the start of a later call, never during one. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "jit_internal.h"

struct op2_background {
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  op2_bg_job *head, *tail;
  int stopping;
  int started;
};

static void *worker(void *arg) {
  op2_background *bg = arg;
  for (;;) {
    pthread_mutex_lock(&bg->lock);
    while (!bg->head && !bg->stopping) pthread_cond_wait(&bg->wake, &bg->lock);
    op2_bg_job *job = bg->head;
    if (bg->stopping || !job) {
      pthread_mutex_unlock(&bg->lock);
      return NULL;
    }
    bg->head = job->next;
    if (!bg->head) bg->tail = NULL;
    pthread_mutex_unlock(&bg->lock);
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

int op2_background_submit(op2_background **bgp, op2_bg_job *job) {
  op2_background *bg = *bgp;
  if (!bg) {
    bg = calloc(1, sizeof *bg);
    if (!bg) return -1;
    pthread_mutex_init(&bg->lock, NULL);
    pthread_cond_init(&bg->wake, NULL);
    if (pthread_create(&bg->thread, NULL, worker, bg) != 0) {
      free(bg);
      return -1;
    }
    bg->started = 1;
    *bgp = bg;
  }
  atomic_store(&job->state, OP2_JOB_QUEUED);
  job->next = NULL;
  pthread_mutex_lock(&bg->lock);
  if (bg->tail)
    bg->tail->next = job;
  else
    bg->head = job;
  bg->tail = job;
  pthread_cond_signal(&bg->wake);
  pthread_mutex_unlock(&bg->lock);
  return 0;
}

/* Stops after the job in progress: queued jobs are dropped (a later run compiles them), so a
 * short program never waits for more than one compile at exit. */
void op2_background_stop(op2_background **bgp) {
  op2_background *bg = *bgp;
  if (!bg) return;
  pthread_mutex_lock(&bg->lock);
  bg->stopping = 1;
  for (op2_bg_job *j = bg->head; j; j = j->next) atomic_store(&j->state, OP2_JOB_CANCELLED);
  bg->head = bg->tail = NULL;
  pthread_cond_signal(&bg->wake);
  pthread_mutex_unlock(&bg->lock);
  pthread_join(bg->thread, NULL);
  pthread_mutex_destroy(&bg->lock);
  pthread_cond_destroy(&bg->wake);
  free(bg);
  *bgp = NULL;
}
