/* SPDX-License-Identifier: BSD-3-Clause */
/* The TinyCC tier: milliseconds per kernel, in memory or to a shared object for the disk cache.
 * libtcc keeps global state, so compiles are serialised here. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libtcc.h>

#include "jit_internal.h"

#ifndef OP2_TCC_VERSION
#define OP2_TCC_VERSION "tcc"
#endif

/* libtcc's global state belongs to the process, not to a library context, so its lock does too:
 * the one mutable file-level variable besides the context pointer (runtime/context.c). */
static pthread_mutex_t tcc_lock = PTHREAD_MUTEX_INITIALIZER;

/* The libraries kernels are linked with: the one list for the cache key and the compile. */
static const char *const tcc_libraries[] = {"m"};
enum { NLIBRARIES = sizeof tcc_libraries / sizeof tcc_libraries[0] };

static void library_flags(char *out, size_t len) {
  size_t n = 0;
  out[0] = '\0';
  for (int i = 0; i < NLIBRARIES && n < len; i++)
    n += (size_t)snprintf(out + n, len - n, "%s-l%s", i ? " " : "", tcc_libraries[i]);
}

static void collect_message(void *opaque, const char *msg) {
  op2_buf *log = opaque;
  op2_buf_printf(log, "%s\n", msg);
}

int op2_tcc_compile(const char *source, const char *so_path, void **tcc_state, op2_kernel_fn *fn,
                    char **log_out) {
  op2_buf log = {0};
  int ok = 0;
  pthread_mutex_lock(&tcc_lock);
  TCCState *s = tcc_new();
  if (s) {
    tcc_set_error_func(s, &log, collect_message);
    tcc_set_output_type(s, so_path ? TCC_OUTPUT_DLL : TCC_OUTPUT_MEMORY);
    ok = tcc_compile_string(s, source) == 0;
    /* C makes a write through a pointer to const an error; TinyCC only warns. Read-only data is
     * passed as const, so this is a kernel writing what it may only read. */
    if (ok && log.data && strstr(log.data, "warning: assignment of read-only location")) ok = 0;
    for (int i = 0; ok && i < NLIBRARIES; i++) ok = tcc_add_library(s, tcc_libraries[i]) == 0;
    if (ok && so_path) {
      ok = tcc_output_file(s, so_path) == 0;
      tcc_delete(s);
      s = NULL;
    } else if (ok) {
      ok = tcc_relocate(s, TCC_RELOCATE_AUTO) >= 0;
      *fn = ok ? (op2_kernel_fn)tcc_get_symbol(s, "op2_loop") : NULL;
      if (ok && !*fn) op2_buf_printf(&log, "generated code defines no op2_loop\n"), ok = 0;
    }
  } else {
    op2_buf_printf(&log, "tcc_new failed\n");
  }
  if (s && (!ok || so_path)) tcc_delete(s), s = NULL;
  pthread_mutex_unlock(&tcc_lock);
  if (tcc_state) *tcc_state = s;
  *log_out = log.data ? log.data : calloc(1, 1);
  return ok ? OP2_OK : OP2_ERR_JIT;
}

void op2_tcc_release(void *tcc_state) {
  if (!tcc_state) return;
  pthread_mutex_lock(&tcc_lock);
  tcc_delete(tcc_state);
  pthread_mutex_unlock(&tcc_lock);
}

static int compile_tcc(const op2_tier *t, const char *source, const char *src_path,
                       const char *so_path, char **log, char *flags_used, size_t flags_len) {
  (void)t, (void)src_path;
  library_flags(flags_used, flags_len);
  return op2_tcc_compile(source, so_path, NULL, NULL, log) == OP2_OK ? 0 : -1;
}

void op2_tcc_tier(op2_tier *t) {
  memset(t, 0, sizeof *t);
  t->name = "tcc";
  snprintf(t->identity, sizeof t->identity, "libtcc %s", OP2_TCC_VERSION);
  library_flags(t->flags, sizeof t->flags);
  t->compile = compile_tcc;
}
