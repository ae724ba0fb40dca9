/* SPDX-License-Identifier: BSD-3-Clause */
/* A fatal signal inside a kernel (SIGSEGV, SIGFPE, SIGBUS, SIGILL) names the loop before the
 * process dies: its name, its set, the element range being run (the element itself on the seq
 * backend) and the generated source's path. Recording each element index as it runs would cost a
 * store per element in every generated loop (a volatile index slot stops the compiler vectorising
 * the loop: a direct `y += a * x` loop ran far slower at -O3 -march=native), so the seq backend
 * instead arms a recovery point once per run (sigsetjmp without the signal mask: no syscall, a few
 * instructions). A fault there jumps back, and op2_fault_find_element re-runs the range one element
 * at a time: the fault, met again, is reported with its element; if no element faults alone the
 * range is reported. Other backends report the range. The handler writes with write(2) only,
 * restores the handler that was there before op_init and re-raises the signal, so the process ends
 * by that signal (or the program's own handler runs). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/context.h"
#include "runtime/fault.h"
#include "runtime/mesh.h"
#include "runtime/distributed.h"
#include "runtime/loop.h"
#include "runtime/backend.h"

static const int watched[OP2_FAULT_SIGNALS] = {SIGSEGV, SIGFPE, SIGBUS, SIGILL};

static void put(const char *s) {
  size_t n = strlen(s);
  while (n > 0) {
    ssize_t w = write(STDERR_FILENO, s, n);
    if (w <= 0) return;
    s += w;
    n -= (size_t)w;
  }
}

static void put_int(long long v) {
  char digits[24];
  int i = (int)sizeof digits;
  digits[--i] = '\0';
  int negative = v < 0;
  unsigned long long u = negative ? 0ULL - (unsigned long long)v : (unsigned long long)v;
  do {
    digits[--i] = (char)('0' + u % 10);
    u /= 10;
  } while (u && i > 1);
  if (negative) digits[--i] = '-';
  put(digits + i);
}

static const char *signal_name(int sig) {
  switch (sig) {
    case SIGSEGV:
      return "SIGSEGV (invalid memory access)";
    case SIGFPE:
      return "SIGFPE (arithmetic fault, e.g. integer division by zero)";
    case SIGBUS:
      return "SIGBUS (bus error)";
    default:
      return "SIGILL (illegal instruction)";
  }
}

/* The element's index in the user's numbering (the set may have been renumbered or, under MPI,
 * distributed), then the library's own index where that differs. */
static void put_element(const struct op2_set *set, int e) {
  long user = (set->orig ? set->orig[e] : set->decl_first + e) - op2_gid_base(op2_ctx());
  put("element ");
  put_int(user);
  if (user != e) {
    put(" (element ");
    put_int(e);
    put(" in the library's order)");
  }
}

static void report(op2_context *ctx, int sig) {
  const op2_exec *exec = ctx->fault.running;
  if (!exec) return;
  const op2_loop *loop = exec->loop;
  put("op2: fatal signal ");
  put(signal_name(sig));
  put(" in the kernel of loop '");
  put(loop->name);
  put("' on set '");
  put(loop->set->name);
  put("', ");
  if (ctx->fault.one_by_one) {
    put_element(loop->set, ctx->fault.element);
  } else {
    put("elements ");
    put_int(exec->begin);
    put(" to ");
    put_int((long long)exec->end - 1);
  }
  put(" (");
  put(ctx->backend ? ctx->backend->name : "?");
  put(" backend); generated source: ");
  put(loop->kernel && op2_kernel_source_path(loop->kernel) ? op2_kernel_source_path(loop->kernel)
                                                           : "not kept (compiled in memory)");
  put("\n");
}

static int slot_of(int sig) {
  for (int i = 0; i < OP2_FAULT_SIGNALS; i++)
    if (watched[i] == sig) return i;
  return 0; /* not reached: only watched signals come here */
}

static void on_fault(int sig, siginfo_t *info, void *uctx) {
  op2_context *ctx = op2_ctx(); /* exists: the handler is installed by op_init */
  op2_fault_watch *w = &ctx->fault;
  /* Only the thread that armed the recovery point may jump to it (its stack holds the frame);
   * pthread_self reads thread-local storage, safe here although POSIX does not list it. */
  if (w->armed && w->armed == w->running && pthread_equal(w->armer, pthread_self())) {
    w->armed = NULL;
    w->caught = sig;
    siglongjmp(w->recover, 1);
  }
  report(ctx, sig);
  const struct sigaction *prev = &w->previous[slot_of(sig)];
  sigaction(sig, prev, NULL);
  if (prev->sa_flags & SA_SIGINFO) {
    if (prev->sa_sigaction) prev->sa_sigaction(sig, info, uctx);
    return;
  }
  if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN) {
    prev->sa_handler(sig);
    return;
  }
  /* Blocked until this handler returns, then delivered with the default action. */
  raise(sig);
}

static void watch(int sig, struct sigaction *previous) {
  struct sigaction ours;
  memset(&ours, 0, sizeof ours);
  ours.sa_sigaction = on_fault;
  ours.sa_flags = SA_SIGINFO | SA_RESETHAND;
  sigemptyset(&ours.sa_mask);
  sigaction(sig, &ours, previous);
}

_Noreturn void op2_fault_find_element(op2_context *ctx, const op2_exec *exec) {
  op2_fault_watch *w = &ctx->fault;
  int sig = w->caught;
  /* The handler jumped out instead of returning: the signal is still blocked (no SA_NODEFER) and
   * its disposition was reset (SA_RESETHAND). */
  sigset_t blocked;
  sigemptyset(&blocked);
  sigaddset(&blocked, sig);
  sigprocmask(SIG_UNBLOCK, &blocked, NULL);
  watch(sig, NULL);
  /* Re-running the elements before the faulting one repeats their side effects (RW and INC
   * arguments, reductions): harmless, as the process is about to die. The re-run sees the data
   * the first run left, so a kernel whose fault depends on what earlier elements wrote may fault
   * at another element, or at none. */
  w->one_by_one = true;
  const op2_kernel_call call = op2_kernel_callable(exec->loop->kernel);
  for (int e = exec->begin; e < exec->end; e++) {
    w->element = e;
    op2_kernel_call_range(&call, exec->arg_ptrs, exec->map_ptrs, e, e + 1);
  }
  /* No element faulted alone (a fault that does not repeat): name the range, and die by the
   * signal through the handler that was there before op_init, as a fault met again would. */
  w->one_by_one = false;
  report(ctx, sig);
  sigaction(sig, &w->previous[slot_of(sig)], NULL);
  raise(sig);
  signal(sig, SIG_DFL); /* the previous handler ignored it or returned */
  raise(sig);
  abort();
}

void op2_fault_install(op2_context *ctx) {
  for (int i = 0; i < OP2_FAULT_SIGNALS; i++) watch(watched[i], &ctx->fault.previous[i]);
  ctx->fault.installed = true;
}

void op2_fault_remove(op2_context *ctx) {
  if (!ctx->fault.installed) return;
  for (int i = 0; i < OP2_FAULT_SIGNALS; i++) sigaction(watched[i], &ctx->fault.previous[i], NULL);
  ctx->fault.installed = false;
}
