/* SPDX-License-Identifier: BSD-3-Clause */
/* No silent slow path: an optimised build that fails leaves its kernel on TinyCC code, which can
 * run several times slower. It is said once, at every OP2_DIAGS level (the kernel, the compiler,
 * its first error line, what runs instead), and, when the compiler rejected the source (it ran
 * and said no: not a timeout, a kill or a lost exit status), recorded in the cache under
 * ROOT/failures (kernel_records.c), keyed like the build: the same source with the same compiler
 * and flags is not built again on every run, until one of them changes or `op2-cache retry`
 * removes the record. `op2-cache list` shows the records. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit_internal.h"

/* A line of compiler output that says what is wrong. */
static int is_error_line(const char *line, size_t n) {
  static const char *const words[] = {"error:", "Error:", "fatal", "undefined reference"};
  for (size_t w = 0; w < sizeof words / sizeof *words; w++) {
    size_t k = strlen(words[w]);
    for (size_t i = 0; i + k <= n; i++)
      if (memcmp(line + i, words[w], k) == 0) return 1;
  }
  return 0;
}

void op2_first_error_line(const char *log, char *out, size_t len) {
  const char *first = NULL, *error = NULL;
  size_t first_n = 0, error_n = 0;
  for (const char *p = log; p && *p && !error;) {
    size_t n = strcspn(p, "\n");
    if (n && !first) first = p, first_n = n;
    if (n && is_error_line(p, n)) error = p, error_n = n;
    p += n + (p[n] == '\n');
  }
  const char *line = error ? error : first;
  size_t n = error ? error_n : first_n;
  if (!line) {
    snprintf(out, len, "no message");
    return;
  }
  /* The generated file by its name only: its directory (an entry, a private build directory)
   * says nothing and makes the line long. */
  const char *colon = memchr(line, ':', n), *base = line;
  for (const char *c = line; colon && c < colon; c++)
    if (*c == '/') base = c + 1;
  if (colon && base != line && line[0] == '/') n -= (size_t)(base - line), line = base;
  snprintf(out, len, "%.*s", (int)(n > 300 ? 300 : n), line);
}

/* The compiler as the message names it: its file name. */
static const char *compiler_name(const op2_tier *t) {
  const char *slash = strrchr(t->path, '/');
  return slash ? slash + 1 : t->path;
}

void op2_jit_build_failed(op2_jit *jit, const char *name, const op2_tier *t,
                          const op2_cache_key *key, const char *log, int rejected) {
  char first[400];
  op2_first_error_line(log ? log : "", first, sizeof first);
  const char *root = rejected ? op2_jit_cache_root(jit) : NULL;
  int kept = 0;
  op2_jit_error why = {.code = OP2_OK};
  if (root && jit->cfg.cache_mode == OP2_CACHE_ON) {
    op2_buf text = {0};
    op2_buf_printf(&text, "%s: %s\ncompiler %s\nflags %s\n\n%s", compiler_name(t), first,
                   t->identity, t->flags, log ? log : "");
    kept = !text.failed && op2_kernel_record_write(root, OP2_RECORD_FAILURES, name, key, text.data,
                                                   text.len, &why) == OP2_OK;
    op2_buf_free(&text);
  }
  char given[1200] = "";
  if (jit->cfg.compiler_given) /* the user's compiler or flags: likely their mistake */
    snprintf(given, sizeof given, " (OP2_CC=%s OP2_CFLAGS=%s)", jit->cfg.cc, jit->cfg.cflags);
  if (kept)
    op2_jit_diag(jit, 0,
                 "optimising compile of '%s' failed (%s: %s)%s: TinyCC code runs instead; "
                 "recorded in %s/%s, `op2-cache retry %s` builds it again",
                 name, compiler_name(t), first, given, root, OP2_RECORD_FAILURES, name);
  else
    op2_jit_diag(jit, 0,
                 "optimising compile of '%s' failed (%s: %s)%s: TinyCC code runs instead%s%s", name,
                 compiler_name(t), first, given, why.code != OP2_OK ? "; not recorded: " : "",
                 why.code != OP2_OK ? why.msg : "");
  if (log && *log) {
    size_t n = strlen(log);
    op2_jit_diag(jit, 2, "the compiler's messages for '%s':\n%.*s", name,
                 (int)(log[n - 1] == '\n' ? n - 1 : n), log);
  }
}

int op2_jit_failed_before(op2_jit *jit, op2_jit_counters *cnt, const char *name,
                          const op2_cache_key *key) {
  const char *root = jit->cfg.cache_mode != OP2_CACHE_OFF ? op2_jit_cache_root(jit) : NULL;
  char *text = NULL;
  if (!root || op2_kernel_record_read(root, OP2_RECORD_FAILURES, name, key, &text) != 0) return 0;
  cnt->cc_failed_before++;
  /* the first in a run at every level, the others at OP2_DIAGS=1 */
  int first = jit->told_failed_before++ == 0;
  char given[1200] = "";
  if (jit->cfg.compiler_given) /* the user's compiler or flags: likely their mistake */
    snprintf(given, sizeof given, " (OP2_CC=%s OP2_CFLAGS=%s)", jit->cfg.cc, jit->cfg.cflags);
  op2_jit_diag(jit, first ? 0 : 1,
               "loop '%s' runs TinyCC code: its optimised build failed before (%.*s)%s; "
               "`op2-cache retry %s` builds it again%s",
               name, (int)strcspn(text, "\n"), text, given, name,
               first ? " (`op2-cache list` shows every such loop)" : "");
  free(text);
  return 1;
}
