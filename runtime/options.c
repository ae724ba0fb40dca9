/* SPDX-License-Identifier: BSD-3-Clause */
/* Every run-time option, read once at op_init from the environment and from argv entries of the
 * form OP2_NAME=value (argv wins). One table, the core's rows here and each backend's rows in its
 * op2_backend table, so docs/OPTIONS.md, the diagnostics and the parser cannot disagree; backends
 * read ctx->opt and their own values, never the environment, and never change them. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file_io.h"
#include "runtime/error.h"
#include "runtime/options.h"
#include "runtime/backend.h"
#include "jit/jit.h"
#include "runtime/checkpoint.h"
#include "runtime/distributed.h"

typedef int (*option_parser)(op2_options *opt, const char *name, const char *value);

static int parse_backend(op2_options *opt, const char *name, const char *value) {
  if (!op2_backend_find(value)) {
    char names[256];
    op2_backend_names(names, sizeof names);
    return op2_error(OP2_ERR_ARG, "option %s=%s: unknown backend (choose one of: %s)", name, value,
                     names);
  }
  snprintf(opt->backend, sizeof opt->backend, "%s", value);
  return OP2_OK;
}

int op2_option_to_int(const char *value, int lo, int hi, int *out) {
  char *end;
  errno = 0;
  long v = strtol(value, &end, 10);
  if (errno || end == value || *end || v < lo || v > hi) return -1;
  *out = (int)v;
  return 0;
}

int op2_option_int(const char *name, const char *value, int lo, int hi, int *out) {
  if (op2_option_to_int(value, lo, hi, out) != 0)
    return op2_error(OP2_ERR_ARG, "option %s=%s: expected an integer in [%d, %d]", name, value, lo,
                     hi);
  return OP2_OK;
}

static int parse_part_size(op2_options *opt, const char *name, const char *value) {
  return op2_option_int(name, value, 1, 1 << 24, &opt->part_size);
}

static int parse_diags(op2_options *opt, const char *name, const char *value) {
  return op2_option_int(name, value, 0, 10, &opt->diags);
}

int op2_option_choose(const char *name, const char *value, const op2_option_choice *choices, int n,
                      int *out) {
  for (int i = 0; i < n; i++)
    if (strcmp(value, choices[i].word) == 0) return *out = choices[i].value, OP2_OK;
  char list[256] = "";
  size_t len = 0;
  for (int i = 0; i < n && len < sizeof list; i++)
    len += (size_t)snprintf(list + len, sizeof list - len, "%s%s",
                            i == 0       ? ""
                            : i == n - 1 ? " or "
                                         : ", ",
                            choices[i].word);
  return op2_error(OP2_ERR_ARG, "option %s=%s: expected %s", name, value, list);
}
const op2_option_choice op2_option_on_off[2] = {{"on", 1}, {"off", 0}};

static int parse_cache(op2_options *opt, const char *name, const char *value) {
  static const op2_option_choice modes[] = {
      {"off", OP2_CACHE_OFF}, {"readonly", OP2_CACHE_READONLY}, {"on", OP2_CACHE_ON}};
  int v = 0;
  OP2_CALL(OP2_OPTION_CHOOSE(name, value, modes, &v));
  opt->cache_mode = (op2_cache_mode)v;
  return OP2_OK;
}

static int parse_loader(op2_options *opt, const char *name, const char *value) {
  static const op2_option_choice loaders[] = {
      {"auto", OP2_LOADER_AUTO}, {"direct", OP2_LOADER_DIRECT}, {"dlopen", OP2_LOADER_DLOPEN}};
  return OP2_OPTION_CHOOSE(name, value, loaders, &opt->loader);
}

static int parse_jit(op2_options *opt, const char *name, const char *value) {
  static const op2_option_choice modes[] = {
      {"tcc", OP2_JIT_TCC}, {"cc", OP2_JIT_CC}, {"tiered", OP2_JIT_TIERED}};
  int v = 0;
  OP2_CALL(OP2_OPTION_CHOOSE(name, value, modes, &v));
  opt->jit_mode = (op2_jit_mode)v;
  return OP2_OK;
}

int op2_option_text(char *dst, size_t len, const char *name, const char *value) {
  if (strlen(value) >= len)
    return op2_error(OP2_ERR_ARG, "option %s: value is too long (at most %zu characters)", name,
                     len - 1);
  snprintf(dst, len, "%s", value);
  return OP2_OK;
}

/* A compiler named explicitly must be there: otherwise every kernel would quietly stay on
 * TinyCC code (OP2_CC) or fail with the C compiler's messages (OP2_CXX). Looked up as the tiers
 * look it up (PATH), without running it: op_init stays cheap. */
static int compiler_found(const char *name, const char *value) {
  char path[OP2_PATH_MAX];
  if (op2_find_program(value, path, sizeof path) == 0) return OP2_OK;
  return op2_error(OP2_ERR_ARG, "option %s=%s: no such compiler (not an executable file%s)", name,
                   value, strchr(value, '/') ? "" : ", nor found on PATH");
}

static int parse_cc(op2_options *opt, const char *name, const char *value) {
  if (!*value) return op2_error(OP2_ERR_ARG, "option %s: empty compiler name", name);
  OP2_CALL(op2_option_text(opt->cc, sizeof opt->cc, name, value));
  opt->compiler_given = 1;
  return compiler_found(name, value);
}

static int parse_fc(op2_options *opt, const char *name, const char *value) {
  if (!*value) return op2_error(OP2_ERR_ARG, "option %s: empty compiler name", name);
  OP2_CALL(op2_option_text(opt->fc, sizeof opt->fc, name, value));
  opt->compiler_given = 1;
  return compiler_found(name, value);
}

static int parse_fflags(op2_options *opt, const char *name, const char *value) {
  OP2_CALL(op2_option_text(opt->fflags, sizeof opt->fflags, name, value));
  opt->compiler_given = 1;
  return OP2_OK;
}

static int parse_cxx(op2_options *opt, const char *name, const char *value) {
  if (!*value) return op2_error(OP2_ERR_ARG, "option %s: empty compiler name (off: none)", name);
  OP2_CALL(op2_option_text(opt->cxx, sizeof opt->cxx, name, value));
  return strcmp(value, "off") == 0 ? OP2_OK : compiler_found(name, value);
}

/* Flags are only known good once the compiler took them: a bad one is reported, naming
 * OP2_CFLAGS, at the optimised tier's first failure (at any OP2_DIAGS, since the user set them)
 * and in op_timing_output. */
static int parse_cflags(op2_options *opt, const char *name, const char *value) {
  OP2_CALL(op2_option_text(opt->cflags, sizeof opt->cflags, name, value));
  opt->compiler_given = 1;
  return OP2_OK;
}

static int parse_simd(op2_options *opt, const char *name, const char *value) {
  if (strcmp(value, "off") == 0) return opt->simd = 0, OP2_OK;
  if (strcmp(value, "auto") == 0) return opt->simd = -1, OP2_OK;
  if (op2_option_to_int(value, 2, 64, &opt->simd) != 0)
    return op2_error(OP2_ERR_ARG, "option %s=%s: expected off, auto or a lane count in [2, 64]",
                     name, value);
  return OP2_OK;
}

/* Lanes of doubles in this CPU's vectors (auto): 8 with AVX-512, 4 with AVX2, else none. */
static int native_simd_width(void) {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return 8;
  if (__builtin_cpu_supports("avx2")) return 4;
#endif
  return 0;
}

/* The optimised tier's SIMD flags: -fopenmp-simd honours `#pragma omp simd` without the OpenMP
 * runtime; -fno-math-errno because otherwise gcc must keep a library call that may set errno for
 * every sqrt (treated as clobbering memory, which stops vectorisation), while the results of
 * IEEE-exact functions such as sqrt are the same; OP2_SIMD_W selects the SIMD loop of the
 * generated source and its lane count. Being among the tier's flags they enter the cache key. */
static int add_simd_flags(op2_options *opt) {
  opt->simd_width = opt->simd < 0 ? native_simd_width() : opt->simd;
  if (!opt->simd_width) return OP2_OK;
  size_t len = strlen(opt->cflags);
  int n = snprintf(opt->cflags + len, sizeof opt->cflags - len,
                   " -fopenmp-simd -fno-math-errno -fno-trapping-math -DOP2_SIMD_W=%d",
                   opt->simd_width);
  if (n < 0 || (size_t)n >= sizeof opt->cflags - len)
    return op2_error(OP2_ERR_ARG, "option OP2_CFLAGS: too long to add the SIMD flags");
  return OP2_OK;
}

/* The directory part of `path` ("." when none) into dir. */
static void dir_of(const char *path, char *dir, size_t len) {
  const char *slash = strrchr(path, '/');
  if (!slash)
    snprintf(dir, len, ".");
  else if (slash == path)
    snprintf(dir, len, "/");
  else
    snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

/* Written by op_exit: checked now, so a run does not find out at its end that its profile
 * cannot be written. An existing file (or device) must be writable; a new one needs a
 * writable directory. Empty: no profile. */
static int parse_profile_json(op2_options *opt, const char *name, const char *value) {
  OP2_CALL(op2_option_text(opt->profile_json, sizeof opt->profile_json, name, value));
  if (!*value) return OP2_OK;
  struct stat st;
  char dir[OP2_PATH_MAX];
  dir_of(value, dir, sizeof dir);
  if (stat(value, &st) == 0) {
    if (S_ISDIR(st.st_mode))
      return op2_error(OP2_ERR_ARG, "option %s=%s: is a directory (expected a file name)", name,
                       value);
    if (access(value, W_OK) != 0)
      return op2_error(OP2_ERR_ARG, "option %s=%s: cannot be written: %s", name, value,
                       strerror(errno));
  } else if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(dir, W_OK | X_OK) != 0) {
    return op2_error(OP2_ERR_ARG,
                     "option %s=%s: cannot be created (directory %s is missing or not writable)",
                     name, value, dir);
  }
  return OP2_OK;
}

static int parse_renumber(op2_options *opt, const char *name, const char *value) {
  static const op2_option_choice modes[] = {{"off", OP2_RENUMBER_OFF},
                                            {"on", OP2_RENUMBER_RCM},
                                            {"blocks", OP2_RENUMBER_BLOCKS},
                                            {"auto", OP2_RENUMBER_AUTO}};
  return OP2_OPTION_CHOOSE(name, value, modes, &opt->renumber);
}

static int parse_mpi_decl(op2_options *opt, const char *name, const char *value) {
  static const op2_option_choice modes[] = {
      {"auto", OP2_DECL_AUTO}, {"local", OP2_DECL_LOCAL}, {"replicated", OP2_DECL_REPLICATED}};
  int v = 0;
  OP2_CALL(OP2_OPTION_CHOOSE(name, value, modes, &v));
  opt->mpi_decl = (op2_decl_mode)v;
  return OP2_OK;
}

static int parse_ptscotch_check(op2_options *opt, const char *name, const char *value) {
  return OP2_OPTION_CHOOSE(name, value, op2_option_on_off, &opt->ptscotch_check);
}

static int parse_path(char *dst, size_t len, const char *name, const char *value) {
  if (!*value || strlen(value) >= len - 300) /* room for entry and file names */
    return op2_error(OP2_ERR_ARG, "option %s: path is empty or too long", name);
  snprintf(dst, len, "%s", value);
  return OP2_OK;
}

static int parse_cache_dir(op2_options *opt, const char *name, const char *value) {
  return parse_path(opt->cache_dir, sizeof opt->cache_dir, name, value);
}

/* A source tree's templates/: the C prelude every kernel starts with must be there. */
static int parse_template_dir(op2_options *opt, const char *name, const char *value) {
  OP2_CALL(parse_path(opt->template_dir, sizeof opt->template_dir, name, value));
  char prelude[OP2_PATH_BUF];
  snprintf(prelude, sizeof prelude, "%s/c/prelude.h", value);
  struct stat st;
  if (stat(value, &st) != 0 || !S_ISDIR(st.st_mode) || stat(prelude, &st) != 0 ||
      !S_ISREG(st.st_mode) || access(prelude, R_OK) != 0)
    return op2_error(OP2_ERR_ARG,
                     "option %s=%s: not a templates directory (expected a readable c/prelude.h "
                     "in it, as in the source tree's templates/)",
                     name, value);
  return OP2_OK;
}

/* The checkpoint must exist and start like one now (its checksum and contents are verified when
 * the run reads it). */
static int parse_restart(op2_options *opt, const char *name, const char *value) {
  OP2_CALL(parse_path(opt->restart, sizeof opt->restart, name, value));
  struct stat st;
  op2_jit_error why;
  if (stat(value, &st) != 0)
    return op2_error(OP2_ERR_ARG, "option %s=%s: no such checkpoint file (%s)", name, value,
                     strerror(errno));
  if (op2_ckpt_header_check(value, &why) != OP2_OK)
    return op2_error(OP2_ERR_ARG, "option %s=%s: not a checkpoint file of op2jit: %s", name, value,
                     why.msg);
  return OP2_OK;
}

/* Directories separated by ':' where op_kernel_file looks; each must fit a path with a file name.
 */
static int parse_kernel_path(op2_options *opt, const char *name, const char *value) {
  for (const char *p = value; *p;) {
    size_t n = strcspn(p, ":");
    if (n >= 3000)
      return op2_error(OP2_ERR_ARG, "option %s: a directory of the list is too long", name);
    p += n + (p[n] != '\0');
  }
  return op2_option_text(opt->kernel_path, sizeof opt->kernel_path, name, value);
}

static int parse_fault(op2_options *opt, const char *name, const char *value) {
  if (op2_fault_parse(value, NULL, NULL) != 0 || strlen(value) >= sizeof opt->fault)
    return op2_error(OP2_ERR_ARG,
                     "option %s=%s: expected STEP:RANK with STEP one of distribute, halo, "
                     "exchange, validate, node-build, gather",
                     name, value);
  snprintf(opt->fault, sizeof opt->fault, "%s", value);
  return OP2_OK;
}

static int parse_mpi_timeout(op2_options *opt, const char *name, const char *value) {
  int seconds = 0;
  OP2_CALL(op2_option_int(name, value, 0, 1000000, &seconds));
  opt->mpi_timeout = seconds;
  return OP2_OK;
}

/* Persistent auto-tuning (tune.c): off, on, or reset (discard the records, then on). */
static int parse_tune(op2_options *opt, const char *name, const char *value) {
  static const op2_option_choice modes[] = {
      {"off", OP2_TUNE_OFF}, {"on", OP2_TUNE_ON}, {"reset", OP2_TUNE_RESET}};
  return OP2_OPTION_CHOOSE(name, value, modes, &opt->tune);
}

/* The share of map entries that may cross ranks for op_partition to keep the declared blocks:
 * a number in [0, 1]; 0 always runs the partitioner. */
static int parse_partition_keep(op2_options *opt, const char *name, const char *value) {
  char *end;
  errno = 0;
  double v = strtod(value, &end);
  if (errno || end == value || *end || !(v >= 0 && v <= 1))
    return op2_error(OP2_ERR_ARG,
                     "option %s=%s: expected a share of map entries in [0, 1] (0: always "
                     "partition)",
                     name, value);
  opt->partition_keep = v;
  return OP2_OK;
}

static int parse_huge_pages(op2_options *opt, const char *name, const char *value) {
  return OP2_OPTION_CHOOSE(name, value, op2_option_on_off, &opt->huge_pages);
}

/* Seconds a child compiler (OP2_CC, OP2_CXX, ptxas) may run before it is killed; 0: no limit. */
static int parse_compile_timeout(op2_options *opt, const char *name, const char *value) {
  return op2_option_int(name, value, 0, 86400, &opt->compile_timeout);
}

/* Lazy execution (runtime/chain.c): op_par_loop queues its call; off runs each call at once. */
static int parse_lazy(op2_options *opt, const char *name, const char *value) {
  static const op2_option_choice choices[] = {
      {"off", OP2_LAZY_OFF}, {"on", OP2_LAZY_ON}, {"auto", OP2_LAZY_AUTO}};
  return OP2_OPTION_CHOOSE(name, value, choices, &opt->lazy);
}

/* The most op_par_loop calls queued before the chain runs. */
static int parse_lazy_chain(op2_options *opt, const char *name, const char *value) {
  return op2_option_int(name, value, 1, 1000000, &opt->lazy_chain);
}

/* Fusion of consecutive direct loops over one set in the lazy chain (runtime/chain_fuse.c). */
static int parse_fuse(op2_options *opt, const char *name, const char *value) {
  return OP2_OPTION_CHOOSE(name, value, op2_option_on_off, &opt->fuse);
}

/* Testing aid: global element ids start at this base under MPI, so a small mesh sends ids past
 * 2^31 through every MPI path (docs/MPI.md, "Global ids"). */
static int parse_test_id_base(op2_options *opt, const char *name, const char *value) {
  char *end;
  errno = 0;
  long long v = strtoll(value, &end, 10);
  if (errno || end == value || *end || v < 0 || v > (1LL << 62))
    return op2_error(OP2_ERR_ARG, "option %s=%s: expected an integer in [0, 2^62]", name, value);
  opt->test_id_base = v;
  return OP2_OK;
}

static const struct {
  const char *name;
  option_parser parse;
} option_table[] = {
    {"OP2_BACKEND", parse_backend},
    {"OP2_PART_SIZE", parse_part_size},
    {"OP2_DIAGS", parse_diags},
    {"OP2_CACHE", parse_cache},
    {"OP2_CACHE_DIR", parse_cache_dir},
    {"OP2_LOADER", parse_loader},
    {"OP2_TEMPLATE_DIR", parse_template_dir},
    {"OP2_JIT", parse_jit},
    {"OP2_CC", parse_cc},
    {"OP2_CFLAGS", parse_cflags},
    {"OP2_CXX", parse_cxx},
    {"OP2_FC", parse_fc},
    {"OP2_FFLAGS", parse_fflags},
    {"OP2_SIMD", parse_simd},
    {"OP2_PROFILE_JSON", parse_profile_json},
    {"OP2_RENUMBER", parse_renumber},
    {"OP2_MPI_DECL", parse_mpi_decl},
    {"OP2_RESTART", parse_restart},
    {"OP2_PTSCOTCH_CHECK", parse_ptscotch_check},
    {"OP2_PARTITION_KEEP", parse_partition_keep},
    {"OP2_HUGE_PAGES", parse_huge_pages},
    {"OP2_FAULT", parse_fault},
    {"OP2_MPI_TIMEOUT", parse_mpi_timeout},
    {"OP2_KERNEL_PATH", parse_kernel_path},
    {"OP2_TUNE", parse_tune},
    {"OP2_COMPILE_TIMEOUT", parse_compile_timeout},
    {"OP2_LAZY", parse_lazy},
    {"OP2_LAZY_CHAIN", parse_lazy_chain},
    {"OP2_FUSE", parse_fuse},
    {"OP2_TEST_ID_BASE", parse_test_id_base},
};
enum { NOPTIONS = sizeof option_table / sizeof option_table[0] };

/* The k-th distinct option table of the backends (backends may share one), or NULL. */
static const op2_option_table *backend_table(int k) {
  for (int i = 0, seen = 0; i < op2_backend_count(); i++) {
    const op2_option_table *t = op2_backend_at(i)->options;
    bool shared = false;
    for (int j = 0; j < i; j++) shared |= op2_backend_at(j)->options == t;
    if (t && !shared && seen++ == k) return t;
  }
  return NULL;
}

int op2_option_count(void) {
  int n = NOPTIONS;
  for (int k = 0; backend_table(k); k++) n += backend_table(k)->nrows;
  return n;
}

const char *op2_option_name(int i) {
  if (i >= 0 && i < NOPTIONS) return option_table[i].name;
  i -= NOPTIONS;
  for (int k = 0; i >= 0 && backend_table(k); i -= backend_table(k)->nrows, k++)
    if (i < backend_table(k)->nrows) return backend_table(k)->rows[i].name;
  return NULL;
}

/* The option's value: argv's OP2_NAME=value, else the environment's, else NULL. argv wins, so a
 * bad value that argv overrides is never looked at. */
static const char *option_value(const char *name, int argc, char **argv) {
  const char *value = getenv(name);
  size_t len = strlen(name);
  for (int a = 1; a < argc && argv; a++)
    if (argv[a] && strncmp(argv[a], name, len) == 0 && argv[a][len] == '=')
      value = argv[a] + len + 1;
  return value;
}

const void *op2_option_values_of(const op2_option_values *v, const op2_option_table *table) {
  for (int k = 0; v && k < v->count; k++)
    if (v->table[k] == table) return v->values[k];
  return NULL;
}

void op2_option_values_free(op2_option_values *v) {
  for (int k = 0; k < v->count; k++) free(v->values[k]);
  memset(v, 0, sizeof *v);
}

/* Every backend's options, whatever the backend: a value is refused at op_init even when the
 * backend that reads it is not the one chosen. */
static int read_backend_options(op2_option_values *v, int argc, char **argv) {
  for (const op2_option_table *t; (t = backend_table(v->count)) != NULL;) {
    if (v->count == OP2_MAX_OPTION_TABLES)
      return op2_error(OP2_ERR_STATE, "more backend option tables than %d", OP2_MAX_OPTION_TABLES);
    void *values = calloc(1, t->size);
    if (!values) return op2_error(OP2_ERR_MEM, "op_init: out of memory reading the options");
    v->table[v->count] = t;
    v->values[v->count++] = values;
    if (t->defaults) t->defaults(values);
    for (int i = 0; i < t->nrows; i++) {
      const char *value = option_value(t->rows[i].name, argc, argv);
      if (value) OP2_CALL(t->rows[i].parse(values, t->rows[i].name, value));
    }
  }
  return OP2_OK;
}

static int default_cache_dir(op2_options *opt) {
  return op2_cache_default_root(opt->cache_dir, sizeof opt->cache_dir) == 0
             ? OP2_OK
             : op2_error(OP2_ERR_ARG, "cache directory path is too long");
}

static int read_core_options(op2_options *opt, int argc, char **argv, int diags) {
  memset(opt, 0, sizeof *opt);
  snprintf(opt->backend, sizeof opt->backend, "openmp");
  opt->part_size = 256;
  opt->renumber = OP2_RENUMBER_AUTO;
  opt->diags = diags;
  opt->cache_mode = OP2_CACHE_ON;
  opt->jit_mode = OP2_JIT_TIERED;
  snprintf(opt->cc, sizeof opt->cc, "cc");
  snprintf(opt->cxx, sizeof opt->cxx, "g++");
  snprintf(opt->fc, sizeof opt->fc, "gfortran");
  /* Fortran kernels' loops: as the C tier's (no contraction into fused multiply-adds, so they
   * compute what the program's kernel computes when it was built without them), and as OP2's
   * Fortran programs are compiled (long lines, Cray pointers) */
  snprintf(
      opt->fflags, sizeof opt->fflags,
      "-O3 -march=native -ffp-contract=off -fopenmp-simd -fPIC -shared -ffree-line-length-none "
      "-fcray-pointer");
  /* -ffp-contract=off: no fused multiply-adds, so results match TinyCC's code bit for bit. */
  /* -fno-semantic-interposition: the kernel is an exported function of a shared object; without
   * it gcc calls it through the PLT for every element instead of inlining it. */
  snprintf(opt->cflags, sizeof opt->cflags,
           "-O3 -march=native -ffp-contract=off -fno-semantic-interposition -fPIC -shared");
  opt->simd = -1;
  opt->partition_keep = 0.01;
  opt->mpi_timeout = 600;
  opt->huge_pages = 1;
  opt->compile_timeout = 300;
  opt->lazy = OP2_LAZY_AUTO; /* queued where it pays: chain.c's op2_chain_lazy */
  opt->lazy_chain = 64;
  OP2_CALL(default_cache_dir(opt));
  for (int i = 0; i < NOPTIONS; i++) {
    const char *value = option_value(option_table[i].name, argc, argv);
    if (value) OP2_CALL(option_table[i].parse(opt, option_table[i].name, value));
  }
  /* OP2's own spelling, argv only as OP2 reads it: map values given from 1 (Fortran-style
   * meshes), converted to 0-based when declared. */
  static const char base_name[] = "OP_MAPS_BASE_INDEX";
  for (int a = 1; a < argc && argv; a++)
    if (argv[a] && strncmp(argv[a], base_name, sizeof base_name - 1) == 0 &&
        argv[a][sizeof base_name - 1] == '=' &&
        op2_option_to_int(argv[a] + sizeof base_name, 0, 1, &opt->maps_base_index) != 0)
      return op2_error(OP2_ERR_ARG, "%s: '%s' is not 0 or 1", base_name,
                       argv[a] + sizeof base_name);
  return add_simd_flags(opt);
}

int op2_options_read(op2_options *opt, op2_option_values *backend, int argc, char **argv,
                     int diags) {
  op2_option_values values = {0};
  if (backend) op2_option_values_free(backend); /* an earlier op_init's that failed later */
  int rc = read_core_options(opt, argc, argv, diags);
  if (rc == OP2_OK) rc = read_backend_options(&values, argc, argv);
  if (rc == OP2_OK && backend)
    *backend = values;
  else
    op2_option_values_free(&values);
  return rc;
}

/* ---- names that are no option ---- */

/* OP2_ names that are not ours but legitimately set around a run, never warned about:
 * OP2_TEST_* (this project's test harness, ctest/cache), OP2_GOLDEN_UPDATE (ctest/golden), and
 * the build variables OP2-Common's guide has its users export (an application ported from it
 * keeps its environment). Keep it short: every name here is one a typo can hide behind. */
static int foreign_name(const char *name, size_t len) {
  static const char *const names[] = {
      "OP2_GOLDEN_UPDATE",   "OP2_INSTALL_PATH",   "OP2_COMPILER",   "OP2_C_COMPILER",
      "OP2_C_CUDA_COMPILER", "OP2_C_HIP_COMPILER", "OP2_F_COMPILER", "OP2_PROFILE"};
  if (len >= 9 && strncmp(name, "OP2_TEST_", 9) == 0) return 1;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strlen(names[i]) == len && strncmp(names[i], name, len) == 0) return 1;
  return 0;
}

/* Edit distance with transpositions (optimal string alignment) between a[0..n) and b, at most
 * `cap` + 1 (larger distances are not told apart). */
static int edit_distance(const char *a, size_t n, const char *b, int cap) {
  size_t m = strlen(b);
  if (n > 64 || m > 64) return cap + 1;
  int d[65][65];
  for (size_t i = 0; i <= n; i++) d[i][0] = (int)i;
  for (size_t j = 0; j <= m; j++) d[0][j] = (int)j;
  for (size_t i = 1; i <= n; i++)
    for (size_t j = 1; j <= m; j++) {
      int cost = a[i - 1] != b[j - 1];
      int v = d[i - 1][j - 1] + cost;
      if (d[i - 1][j] + 1 < v) v = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
        v = d[i - 2][j - 2] + 1;
      d[i][j] = v;
    }
  return d[n][m] > cap ? cap + 1 : d[n][m];
}

static int is_option(const char *name, size_t len) {
  for (int i = 0; i < op2_option_count(); i++)
    if (strlen(op2_option_name(i)) == len && strncmp(op2_option_name(i), name, len) == 0) return 1;
  return 0;
}

static void warn_unknown(const char *name, size_t len, const char *where) {
  if (is_option(name, len) || foreign_name(name, len)) return;
  const char *best = NULL;
  int best_d = 3; /* a near miss: at most 2 edits, fewer for short names */
  for (int i = 0; i < op2_option_count(); i++) {
    int d = edit_distance(name, len, op2_option_name(i), 2);
    if (d < best_d && (size_t)d * 4 <= len) best = op2_option_name(i), best_d = d;
  }
  char hint[96] = "";
  if (best) snprintf(hint, sizeof hint, " (did you mean %s?)", best);
  op2_diag(0, "warning: %.*s in the %s is not an op2jit option and is ignored%s", (int)len, name,
           where, hint);
}

extern char **environ;

void op2_options_warn_unknown(int argc, char **argv) {
  for (char **e = environ; e && *e; e++)
    if (strncmp(*e, "OP2_", 4) == 0) warn_unknown(*e, strcspn(*e, "="), "environment");
  for (int a = 1; a < argc && argv; a++)
    if (argv[a] && strncmp(argv[a], "OP2_", 4) == 0 && strchr(argv[a], '='))
      warn_unknown(argv[a], strcspn(argv[a], "="), "arguments");
}
