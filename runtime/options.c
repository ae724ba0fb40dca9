/* Every run-time option, read once at op_init from the environment and from argv entries of the
 * form OP2_NAME=value (argv wins). One table, so the README, the diagnostics and the parser
 * cannot disagree. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "op2_impl.h"

typedef int (*option_parser)(op2_options *opt, const char *name, const char *value);

static int parse_backend(op2_options *opt, const char *name, const char *value) {
  if (!op2_backend_find(value))
    return op2_error(OP2_ERR_ARG, "option %s=%s: unknown backend (choose one of: %s)", name, value,
                     op2_backend_names());
  snprintf(opt->backend, sizeof opt->backend, "%s", value);
  return OP2_OK;
}

static int parse_int(const char *name, const char *value, int lo, int hi, int *out) {
  char *end;
  errno = 0;
  long v = strtol(value, &end, 10);
  if (errno || end == value || *end || v < lo || v > hi)
    return op2_error(OP2_ERR_ARG, "option %s=%s: expected an integer in [%d, %d]", name, value, lo,
                     hi);
  *out = (int)v;
  return OP2_OK;
}

static int parse_part_size(op2_options *opt, const char *name, const char *value) {
  return parse_int(name, value, 1, 1 << 24, &opt->part_size);
}

static int parse_diags(op2_options *opt, const char *name, const char *value) {
  return parse_int(name, value, 0, 10, &opt->diags);
}

static int parse_cache(op2_options *opt, const char *name, const char *value) {
  if (strcmp(value, "off") == 0)
    opt->cache_mode = OP2_CACHE_OFF;
  else if (strcmp(value, "readonly") == 0)
    opt->cache_mode = OP2_CACHE_READONLY;
  else if (strcmp(value, "on") == 0)
    opt->cache_mode = OP2_CACHE_ON;
  else
    return op2_error(OP2_ERR_ARG, "option %s=%s: expected off, readonly or on", name, value);
  return OP2_OK;
}

static int parse_jit(op2_options *opt, const char *name, const char *value) {
  if (strcmp(value, "tcc") == 0)
    opt->jit_mode = OP2_JIT_TCC;
  else if (strcmp(value, "cc") == 0)
    opt->jit_mode = OP2_JIT_CC;
  else if (strcmp(value, "tiered") == 0)
    opt->jit_mode = OP2_JIT_TIERED;
  else
    return op2_error(OP2_ERR_ARG, "option %s=%s: expected tcc, cc or tiered", name, value);
  return OP2_OK;
}

static int parse_text(char *dst, size_t len, const char *name, const char *value) {
  if (strlen(value) >= len) return op2_error(OP2_ERR_ARG, "option %s: value is too long", name);
  snprintf(dst, len, "%s", value);
  return OP2_OK;
}

static int parse_cc(op2_options *opt, const char *name, const char *value) {
  if (!*value) return op2_error(OP2_ERR_ARG, "option %s: empty compiler name", name);
  return parse_text(opt->cc, sizeof opt->cc, name, value);
}

static int parse_cflags(op2_options *opt, const char *name, const char *value) {
  return parse_text(opt->cflags, sizeof opt->cflags, name, value);
}

static int parse_profile_json(op2_options *opt, const char *name, const char *value) {
  return parse_text(opt->profile_json, sizeof opt->profile_json, name, value);
}

static int parse_renumber(op2_options *opt, const char *name, const char *value) {
  if (strcmp(value, "on") == 0)
    opt->renumber = 1;
  else if (strcmp(value, "off") == 0)
    opt->renumber = 0;
  else
    return op2_error(OP2_ERR_ARG, "option %s=%s: expected on or off", name, value);
  return OP2_OK;
}

static int parse_mpi_decl(op2_options *opt, const char *name, const char *value) {
  if (strcmp(value, "auto") == 0)
    opt->mpi_decl = OP2_DECL_AUTO;
  else if (strcmp(value, "local") == 0)
    opt->mpi_decl = OP2_DECL_LOCAL;
  else if (strcmp(value, "replicated") == 0)
    opt->mpi_decl = OP2_DECL_REPLICATED;
  else
    return op2_error(OP2_ERR_ARG, "option %s=%s: expected auto, local or replicated", name, value);
  return OP2_OK;
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

static int parse_template_dir(op2_options *opt, const char *name, const char *value) {
  return parse_path(opt->template_dir, sizeof opt->template_dir, name, value);
}

static int parse_fault(op2_options *opt, const char *name, const char *value) {
  if (op2_fault_parse(value, NULL, NULL) != 0 || strlen(value) >= sizeof opt->fault)
    return op2_error(OP2_ERR_ARG,
                     "option %s=%s: expected STEP:RANK with STEP one of distribute, exchange, "
                     "validate, node-build",
                     name, value);
  snprintf(opt->fault, sizeof opt->fault, "%s", value);
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
    {"OP2_TEMPLATE_DIR", parse_template_dir},
    {"OP2_JIT", parse_jit},
    {"OP2_CC", parse_cc},
    {"OP2_CFLAGS", parse_cflags},
    {"OP2_PROFILE_JSON", parse_profile_json},
    {"OP2_RENUMBER", parse_renumber},
    {"OP2_MPI_DECL", parse_mpi_decl},
    {"OP2_FAULT", parse_fault},
};
enum { NOPTIONS = sizeof option_table / sizeof option_table[0] };

static int default_cache_dir(op2_options *opt) {
  const char *xdg = getenv("XDG_CACHE_HOME");
  const char *home = getenv("HOME");
  int n;
  if (xdg && *xdg)
    n = snprintf(opt->cache_dir, sizeof opt->cache_dir, "%s/op2", xdg);
  else if (home && *home)
    n = snprintf(opt->cache_dir, sizeof opt->cache_dir, "%s/.cache/op2", home);
  else
    n = snprintf(opt->cache_dir, sizeof opt->cache_dir, "/tmp/op2-cache-%d", (int)getuid());
  return n > 0 && (size_t)n < sizeof opt->cache_dir
             ? OP2_OK
             : op2_error(OP2_ERR_ARG, "cache directory path is too long");
}

int op2_options_read(op2_options *opt, int argc, char **argv, int diags) {
  memset(opt, 0, sizeof *opt);
  snprintf(opt->backend, sizeof opt->backend, "openmp");
  opt->part_size = 256;
  opt->diags = diags;
  opt->cache_mode = OP2_CACHE_ON;
  opt->jit_mode = OP2_JIT_TIERED;
  snprintf(opt->cc, sizeof opt->cc, "cc");
  /* -ffp-contract=off: no fused multiply-adds, so results match TinyCC's code bit for bit. */
  /* -fno-semantic-interposition: the kernel is an exported function of a shared object; without
   * it gcc calls it through the PLT for every element instead of inlining it. */
  snprintf(opt->cflags, sizeof opt->cflags,
           "-O3 -march=native -ffp-contract=off -fno-semantic-interposition -fPIC -shared");
  OP2_CALL(default_cache_dir(opt));
  for (int i = 0; i < NOPTIONS; i++) {
    /* argv wins over the environment: a bad value that argv overrides is never looked at. */
    const char *value = getenv(option_table[i].name);
    size_t len = strlen(option_table[i].name);
    for (int a = 1; a < argc && argv; a++)
      if (argv[a] && strncmp(argv[a], option_table[i].name, len) == 0 && argv[a][len] == '=')
        value = argv[a] + len + 1;
    if (value) OP2_CALL(option_table[i].parse(opt, option_table[i].name, value));
  }
  return OP2_OK;
}
