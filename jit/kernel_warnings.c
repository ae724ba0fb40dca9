/* SPDX-License-Identifier: BSD-3-Clause */
/* OP2_DIAGS's warnings check: the system compiler's warnings that point at real bugs (cc.c's
 * warning flags: implicit declarations, values thrown away, uninitialised use), the lines about
 * the user's kernel only (the generated file's #line directives name its lines
 * kernel:NAME:LINE:COL or by their header), said at OP2_DIAGS=1 once per kernel (so once per
 * loop and its constants' values).
 *
 * They come from the kernel's optimised build, compiled with those flags (they change no code):
 * no second compile, nothing on the first call's path. Every optimised build keeps its lines
 * in a record (kernel_records.c, whatever the level), so a later run that loads the build prints
 * one line for a kernel that had warnings and compiles nothing; lines recorded by a run that did
 * not say them (OP2_DIAGS=0) are said in full by the first run that does. Only a kernel that gets
 * no optimised build (TinyCC code in memory, a cache that cannot be written) or whose record is
 * missing is checked on its own, in a private run directory. A C++ kernel is not checked: a C
 * compile says only that its C++ is not C ("type defaults to int" for `auto`). */
#include <stdlib.h>
#include <string.h>

#include "jit_internal.h"

/* Whether a line of the compiler's messages is a warning about the user's code: one naming a
 * line of the kernel (kernel:NAME:, or a header its text came from), not of the generated parts
 * (the generated file NAME.c, wherever it was compiled); or one a newer compiler makes an error
 * by default (implicit declarations). */
static int user_warning(const char *line, const char *name) {
  if (!strstr(line, "warning:") && !strstr(line, "[-W")) return 0;
  size_t n = strlen(name);
  if (strncmp(line, "kernel:", 7) == 0)
    return strncmp(line + 7, name, n) == 0 && line[7 + n] == ':';
  const char *colon = strchr(line, ':');
  if (!colon || colon[1] < '0' || colon[1] > '9') return 0; /* FILE:LINE:COL only */
  const char *base = line;
  for (const char *p = line; p < colon; p++)
    if (*p == '/') base = p + 1;
  int generated = (size_t)(colon - base) == n + 2 && strncmp(base, name, n) == 0 &&
                  strncmp(base + n, ".c", 2) == 0;
  return !generated;
}

/* The first line of a record whose lines no run has said yet. */
static const char unsaid[] = "(not said yet)\n";

/* The kernel's warning lines in `log`: said at OP2_DIAGS=1 and kept in its record. */
static void tell_and_keep(op2_jit *jit, const char *name, const op2_cache_key *key,
                          const char *log) {
  op2_buf found = {0};
  if (jit->cfg.diags < 1) op2_buf_printf(&found, "%s", unsaid);
  for (const char *line = log; line && *line;) {
    size_t n = strcspn(line, "\n");
    char *text = strndup(line, n);
    if (text && user_warning(text, name)) {
      op2_jit_diag(jit, 1, "loop '%s': %s", name, text);
      op2_buf_printf(&found, "%s\n", text);
    }
    free(text);
    line += n + (line[n] == '\n');
  }
  const char *root = jit->cfg.cache_mode == OP2_CACHE_ON ? op2_jit_cache_root(jit) : NULL;
  op2_jit_error why;
  /* (the marker alone is no warning: then the record is empty) */
  int none = found.len == (jit->cfg.diags < 1 ? sizeof unsaid - 1 : 0);
  if (root && !found.failed &&
      op2_kernel_record_write(root, OP2_RECORD_WARNINGS, name, key,
                              none         ? ""
                              : found.data ? found.data
                                           : "",
                              none ? 0 : found.len, &why) != OP2_OK)
    /* no record: the check runs again next time */
    op2_jit_diag(jit, 1, "loop '%s': the warnings check's result is not kept (%s)", name, why.msg);
  op2_buf_free(&found);
}

/* The record's count, said at OP2_DIAGS=1: 0 when there is a record, -1 when none. */
static int tell_recorded(op2_jit *jit, const char *name, const op2_cache_key *key) {
  const char *root = jit->cfg.cache_mode == OP2_CACHE_ON ? op2_jit_cache_root(jit) : NULL;
  char *stored = NULL;
  if (!root || op2_kernel_record_read(root, OP2_RECORD_WARNINGS, name, key, &stored) != 0)
    return -1;
  if (strncmp(stored, unsaid, sizeof unsaid - 1) == 0) { /* said in full, once */
    tell_and_keep(jit, name, key, stored + sizeof unsaid - 1);
    free(stored);
    return 0;
  }
  int n = 0;
  for (const char *c = stored; *c; c++) n += *c == '\n';
  if (n)
    op2_jit_diag(jit, 1,
                 "loop '%s': %d compiler warning%s about its kernel when it was first checked "
                 "(%s/%s)",
                 name, n, n == 1 ? "" : "s", root, OP2_RECORD_WARNINGS);
  free(stored);
  return 0;
}

void op2_jit_build_warnings(op2_jit *jit, op2_kernel *k, const op2_cache_key *key,
                            const char *log) {
  if (k->tier == OP2_TIER_CXX || !jit->cc.warn) return;
  if (log)
    tell_and_keep(jit, k->name, key, log);
  else if (jit->cfg.diags >= 1)
    tell_recorded(jit, k->name, key);
  k->warnings_told = true;
}

void op2_jit_kernel_warnings(op2_jit *jit, op2_kernel *k, const op2_generated *gen) {
  /* told by its build already, or to be told by the build on its way; a kernel whose optimised
   * build fails has its compiler's messages in its failure record */
  if (jit->cfg.diags < 1 || !jit->cc_usable || k->tier == OP2_TIER_CXX || k->warnings_told ||
      k->job || k->awaiting_peer || k->cc_failed_before)
    return;
  op2_cache_key key;
  op2_jit_tier_key(&jit->cc, gen, &key);
  if (tell_recorded(jit, k->name, &key) == 0) return;
  char *log = NULL;
  /* (a failed compile has its messages too) */
  op2_cc_warnings(&jit->cc, k->name, gen->source.data, gen->source.len, &log);
  tell_and_keep(jit, k->name, &key, log);
  free(log);
}
