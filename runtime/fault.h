/* SPDX-License-Identifier: BSD-3-Clause */
/* A fatal signal inside a kernel names the loop, range and generated file (fault.c). */
#ifndef OP2_RUNTIME_FAULT_H
#define OP2_RUNTIME_FAULT_H

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>

typedef struct op2_context op2_context;
struct op2_exec;

/* The kernel run in progress, for the fatal-signal handler, and the handlers it replaced. The
 * seq backend arms a recovery point once per run (`armed` names the run, `armer` its thread):
 * a fault there jumps back to `recover` and the backend re-runs the range one element at a time
 * with `element` set, so the report names the element (fault.c). */
#define OP2_FAULT_SIGNALS 4
typedef struct op2_fault_watch {
  const struct op2_exec *volatile running;
  const struct op2_exec *volatile armed;
  pthread_t armer;
  sigjmp_buf recover;
  volatile int caught;      /* the signal that jumped back to `recover` */
  volatile bool one_by_one; /* re-running the range alone, now at `element` */
  volatile int element;
  struct sigaction previous[OP2_FAULT_SIGNALS];
  bool installed;
} op2_fault_watch;
void op2_fault_install(op2_context *ctx);
void op2_fault_remove(op2_context *ctx);
/* Arms the recovery point for exec on this thread; call right after sigsetjmp(w->recover, 0)
 * returned 0, and op2_fault_disarm when the run returns. */
static inline void op2_fault_arm(op2_fault_watch *w, const struct op2_exec *exec) {
  w->armer = pthread_self();
  w->armed = exec;
}
static inline void op2_fault_disarm(op2_fault_watch *w) {
  w->armed = NULL;
}
/* After a fault jumped back to the recovery point: re-runs exec's range one element at a time so
 * that the fault, met again, names its element; never returns (the process dies by the signal). */
_Noreturn void op2_fault_find_element(op2_context *ctx, const struct op2_exec *exec);

#endif /* OP2_RUNTIME_FAULT_H */
