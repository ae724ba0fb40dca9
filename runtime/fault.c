/* A fatal signal inside a kernel (SIGSEGV, SIGFPE, SIGBUS, SIGILL) names the loop before the
 * process dies: its name, its set, the element range being run and the generated source's path.
 * The element range, not the element: recording each element index would cost a store per element
 * in every generated loop (a volatile index slot stops the compiler vectorising the loop: a direct
 * `y += a * x` loop ran 3x slower at -O3 -march=native), while the range costs one store per run
 * and on the seq backend without MPI the range of a failing kernel can be bisected by the user
 * with a smaller set. The handler writes with write(2) only, restores the handler that was there
 * before op_init and re-raises the signal, so the process ends by that signal (or the program's
 * own handler runs). */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "op2_impl.h"

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

static void on_fault(int sig, siginfo_t *info, void *uctx) {
  op2_context *ctx = op2_ctx(); /* exists: the handler is installed by op_init */
  const op2_exec *exec = ctx->fault.running;
  if (exec) {
    const op2_loop *loop = exec->loop;
    put("op2: fatal signal ");
    put(signal_name(sig));
    put(" in the kernel of loop '");
    put(loop->name);
    put("' on set '");
    put(loop->set->name);
    put("', elements ");
    put_int(exec->begin);
    put(" to ");
    put_int((long long)exec->end - 1);
    put(" (");
    put(ctx->backend ? ctx->backend->name : "?");
    put(" backend); generated source: ");
    put(loop->kernel && loop->kernel->source_path ? loop->kernel->source_path
                                                  : "not kept (compiled in memory)");
    put("\n");
  }
  for (int i = 0; i < OP2_FAULT_SIGNALS; i++) {
    if (watched[i] != sig) continue;
    const struct sigaction *prev = &ctx->fault.previous[i];
    sigaction(sig, prev, NULL);
    if (prev->sa_flags & SA_SIGINFO) {
      if (prev->sa_sigaction) prev->sa_sigaction(sig, info, uctx);
      return;
    }
    if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN) {
      prev->sa_handler(sig);
      return;
    }
  }
  /* Blocked until this handler returns, then delivered with the default action. */
  raise(sig);
}

void op2_fault_install(op2_context *ctx) {
  struct sigaction ours;
  memset(&ours, 0, sizeof ours);
  ours.sa_sigaction = on_fault;
  ours.sa_flags = SA_SIGINFO | SA_RESETHAND;
  sigemptyset(&ours.sa_mask);
  for (int i = 0; i < OP2_FAULT_SIGNALS; i++) sigaction(watched[i], &ours, &ctx->fault.previous[i]);
  ctx->fault.installed = true;
}

void op2_fault_remove(op2_context *ctx) {
  if (!ctx->fault.installed) return;
  for (int i = 0; i < OP2_FAULT_SIGNALS; i++) sigaction(watched[i], &ctx->fault.previous[i], NULL);
  ctx->fault.installed = false;
}
