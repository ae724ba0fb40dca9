/* SPDX-License-Identifier: BSD-3-Clause */
/* The optimising tier: the system C compiler, run as a child process with posix_spawn (no fork
 * of a possibly large, possibly MPI-attached process). Its identity for the cache key is the
 * resolved binary (path, size, mtime) and, because -march=native code only runs on the CPU it was
 * built for, this CPU's model and feature flags. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jit_internal.h"

static void cpu_identity(char *out, size_t len) {
  char *info;
  size_t n;
  snprintf(out, len, "cpu unknown");
  if (op2_read_file("/proc/cpuinfo", &info, &n) != 0) return;
  const char *model = strstr(info, "model name");
  const char *flags = strstr(info, "\nflags");
  char model_name[128] = "unknown", flags_hash[17] = "0";
  if (model && (model = strchr(model, ':'))) sscanf(model + 1, " %127[^\n]", model_name);
  if (flags) {
    const char *end = strchr(flags + 1, '\n');
    op2_hash_hex64(flags, end ? (size_t)(end - flags) : strlen(flags), flags_hash);
  }
  snprintf(out, len, "cpu %s flags %s", model_name, flags_hash);
  free(info);
}

int op2_cc_tier(const char *cc, const char *flags, int timeout_s, op2_tier *out) {
  memset(out, 0, sizeof *out);
  out->timeout_s = timeout_s;
  /* One space between words: the flags are spelled here exactly as op2_cc_compile passes them. */
  char words[1024];
  snprintf(words, sizeof words, "%s", flags);
  size_t n = 0;
  for (char *save = NULL, *tok = strtok_r(words, " \t", &save); tok && n < sizeof out->flags;
       tok = strtok_r(NULL, " \t", &save))
    n += (size_t)snprintf(out->flags + n, sizeof out->flags - n, "%s%s", n ? " " : "", tok);
  struct stat st;
  if (op2_find_program(cc, out->path, sizeof out->path) != 0 || stat(out->path, &st) != 0)
    return -1;
  char cpu[256];
  cpu_identity(cpu, sizeof cpu);
  snprintf(out->identity, sizeof out->identity, "%s size %lld mtime %lld, %s", out->path,
           (long long)st.st_size, (long long)st.st_mtime, cpu);
  out->name = "cc";
  out->compile = op2_cc_compile;
  return 0;
}

/* The warnings that point at real bugs (OP2_DIAGS's warnings check, kernel_warnings.c): implicit
 * function declarations, values and results thrown away, uninitialised use (whose analysis needs
 * the optimiser, so they come from an optimised compile). They change no generated code, so the
 * optimised build is compiled with them (op2_tier.warn) and its messages are the check: no
 * second compile. Not part of the cache key nor of the manifest's flags. Only -W options, which
 * compilers accept when they do not know them (clang says so on a line that names no kernel
 * line); a compiler that refuses one anyway builds the kernel once more without them (store.c). */
static const char *const warning_flags[] = {"-Wimplicit-function-declaration", "-Wuninitialized",
                                            "-Wmaybe-uninitialized", "-Wunused-value",
                                            "-Wunused-result"};
enum { NWARNING_FLAGS = sizeof warning_flags / sizeof *warning_flags };

int op2_cc_refused_warning_flag(const char *log) {
  for (int i = 0; log && i < NWARNING_FLAGS; i++)
    for (const char *p = log; (p = strstr(p, warning_flags[i])) != NULL; p++)
      if (p == log || p[-1] != '[') return 1;
  return 0;
}

/* argv for the compiler: its path, then the tier's flags split at blanks (into `flags`, a copy),
 * leaving out `skip` if given; room is left for 7 more entries and the NULL. */
static int compiler_argv(const op2_tier *cc, char flags[1024], const char *skip, char *argv[140]) {
  snprintf(flags, 1024, "%s", cc->flags);
  int argc = 0;
  argv[argc++] = (char *)cc->path;
  for (char *save = NULL, *tok = strtok_r(flags, " \t", &save); tok && argc < 120;
       tok = strtok_r(NULL, " \t", &save))
    if (!skip || strcmp(tok, skip) != 0) argv[argc++] = tok;
  return argc;
}

int op2_cc_compile(const op2_tier *cc, const char *source, const char *src_path,
                   const char *so_path, char **log, char *flags_used, size_t flags_len) {
  (void)source; /* the compiler reads src_path */
  char flags[1024];
  char *argv[140];
  int argc = compiler_argv(cc, flags, NULL, argv);
  size_t n = 0;
  flags_used[0] = '\0';
  for (int i = 1; i < argc && n < flags_len; i++)
    n += (size_t)snprintf(flags_used + n, flags_len - n, "%s%s", i > 1 ? " " : "", argv[i]);
  for (int i = 0; cc->warn && i < NWARNING_FLAGS; i++) argv[argc++] = (char *)warning_flags[i];
  argv[argc++] = "-o";
  argv[argc++] = (char *)so_path;
  argv[argc++] = (char *)src_path;
  argv[argc] = NULL;

  op2_buf out = {0};
  int rc = op2_spawn_capture(cc->path, argv, cc->timeout_s, &out);
  *log = out.data ? out.data : calloc(1, 1);
  return rc;
}

/* Runs the compiler on kernel `name`'s source with the tier's flags (no -shared) and `extra`,
 * in a private run directory: the source is written there as NAME.c and an output, when
 * `output` is set, goes to NAME.o there. Its messages go to *log. The cache key is untouched:
 * nothing is stored. */
static int run_check(const op2_tier *cc, const char *const *extra, int nextra, int output,
                     const char *name, const char *source, size_t len, char **log) {
  op2_buf out = {0};
  op2_run_dir dir;
  char file[300], src_path[OP2_PATH_BUF], obj_path[OP2_PATH_BUF];
  int rc = OP2_SPAWN_BROKEN;
  snprintf(file, sizeof file, "%s.c", name);
  if (op2_run_dir_open(&dir, &out) == 0) {
    op2_run_dir_file(&dir, file, src_path, sizeof src_path);
    snprintf(file, sizeof file, "%s.o", name);
    op2_run_dir_file(&dir, file, obj_path, sizeof obj_path);
    if (op2_run_dir_write(&dir, strrchr(src_path, '/') + 1, source, len, &out) == 0) {
      char flags[1024];
      char *argv[140]; /* compiler_argv fills at most 120 */
      int argc = compiler_argv(cc, flags, "-shared", argv);
      for (int i = 0; i < nextra; i++) argv[argc++] = (char *)extra[i];
      if (output) argv[argc++] = "-c", argv[argc++] = "-o", argv[argc++] = obj_path;
      argv[argc++] = src_path;
      argv[argc] = NULL;
      rc = op2_spawn_capture(cc->path, argv, cc->timeout_s, &out);
    }
    op2_run_dir_close(&dir);
  }
  *log = out.data ? out.data : calloc(1, 1);
  return rc;
}

/* TinyCC reports an error at the end of a line on the next line and gives no column; the system
 * compiler, run syntax-only (a few milliseconds, no code generated), names the kernel's own line
 * and column through the generated file's `#line` directive. A call to an undeclared function is
 * made an error here so that it, too, is reported at its line rather than as an undefined symbol
 * at load time. */
int op2_cc_syntax_check(const op2_tier *cc, const char *name, const char *source, size_t len,
                        char **log) {
  static const char *const extra[] = {"-fsyntax-only", "-Werror=implicit-function-declaration"};
  return run_check(cc, extra, 2, 0, name, source, len, log);
}

/* The warnings check on its own, for a kernel that has no optimised build to take them from: a
 * full compile (the uninitialised-use analysis needs the optimiser). */
int op2_cc_warnings(const op2_tier *cc, const char *name, const char *source, size_t len,
                    char **log) {
  return run_check(cc, warning_flags, NWARNING_FLAGS, 1, name, source, len, log);
}
