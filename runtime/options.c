/* Every run-time option, read once at op_init from the environment and from argv entries of the
 * form OP2_NAME=value (argv wins). One table, so the README, the diagnostics and the parser
 * cannot disagree; backends read ctx->opt, never the environment, and never change it. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "op2_impl.h"
#include "../jit/cache_entry.h"

typedef int (*option_parser)(op2_options *opt, const char *name, const char *value);

static int parse_backend(op2_options *opt, const char *name, const char *value) {
  if (!op2_backend_find(value))
    return op2_error(OP2_ERR_ARG, "option %s=%s: unknown backend (choose one of: %s)", name, value,
                     op2_backend_names());
  snprintf(opt->backend, sizeof opt->backend, "%s", value);
  return OP2_OK;
}

/* A whole decimal integer in [lo, hi]: 0, else -1 (nothing reported). */
static int to_int(const char *value, int lo, int hi, int *out) {
  char *end;
  errno = 0;
  long v = strtol(value, &end, 10);
  if (errno || end == value || *end || v < lo || v > hi) return -1;
  *out = (int)v;
  return 0;
}

static int parse_int(const char *name, const char *value, int lo, int hi, int *out) {
  if (to_int(value, lo, hi, out) != 0)
    return op2_error(OP2_ERR_ARG, "option %s=%s: expected an integer in [%d, %d]", name, value, lo,
                     hi);
  return OP2_OK;
}

static int parse_part_size(op2_options *opt, const char *name, const char *value) {
  return parse_int(name, value, 1, 1 << 24, &opt->part_size);
}

static int parse_diags(op2_options *opt, const char *name, const char *value) {
  return parse_int(name, value, 0, 10, &opt->diags);
}

/* One word of a list; the message lists every accepted word. */
typedef struct choice {
  const char *word;
  int value;
} choice;

static int parse_choice(const char *name, const char *value, const choice *choices, int n,
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
#define PARSE_CHOICE(name, value, choices, out) \
  parse_choice(name, value, choices, (int)(sizeof choices / sizeof choices[0]), out)

static const choice on_off[] = {{"on", 1}, {"off", 0}};

static int parse_cache(op2_options *opt, const char *name, const char *value) {
  static const choice modes[] = {
      {"off", OP2_CACHE_OFF}, {"readonly", OP2_CACHE_READONLY}, {"on", OP2_CACHE_ON}};
  int v = 0;
  OP2_CALL(PARSE_CHOICE(name, value, modes, &v));
  opt->cache_mode = (op2_cache_mode)v;
  return OP2_OK;
}

static int parse_jit(op2_options *opt, const char *name, const char *value) {
  static const choice modes[] = {
      {"tcc", OP2_JIT_TCC}, {"cc", OP2_JIT_CC}, {"tiered", OP2_JIT_TIERED}};
  int v = 0;
  OP2_CALL(PARSE_CHOICE(name, value, modes, &v));
  opt->jit_mode = (op2_jit_mode)v;
  return OP2_OK;
}

static int parse_text(char *dst, size_t len, const char *name, const char *value) {
  if (strlen(value) >= len)
    return op2_error(OP2_ERR_ARG, "option %s: value is too long (at most %zu characters)", name,
                     len - 1);
  snprintf(dst, len, "%s", value);
  return OP2_OK;
}

static int parse_cc(op2_options *opt, const char *name, const char *value) {
  if (!*value) return op2_error(OP2_ERR_ARG, "option %s: empty compiler name", name);
  return parse_text(opt->cc, sizeof opt->cc, name, value);
}

static int parse_cxx(op2_options *opt, const char *name, const char *value) {
  if (!*value) return op2_error(OP2_ERR_ARG, "option %s: empty compiler name (off: none)", name);
  return parse_text(opt->cxx, sizeof opt->cxx, name, value);
}

static int parse_cflags(op2_options *opt, const char *name, const char *value) {
  return parse_text(opt->cflags, sizeof opt->cflags, name, value);
}

static int parse_simd(op2_options *opt, const char *name, const char *value) {
  if (strcmp(value, "off") == 0) return opt->simd = 0, OP2_OK;
  if (strcmp(value, "auto") == 0) return opt->simd = -1, OP2_OK;
  if (to_int(value, 2, 64, &opt->simd) != 0)
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

static int parse_profile_json(op2_options *opt, const char *name, const char *value) {
  return parse_text(opt->profile_json, sizeof opt->profile_json, name, value);
}

static int parse_renumber(op2_options *opt, const char *name, const char *value) {
  return PARSE_CHOICE(name, value, on_off, &opt->renumber);
}

static int parse_mpi_decl(op2_options *opt, const char *name, const char *value) {
  static const choice modes[] = {
      {"auto", OP2_DECL_AUTO}, {"local", OP2_DECL_LOCAL}, {"replicated", OP2_DECL_REPLICATED}};
  int v = 0;
  OP2_CALL(PARSE_CHOICE(name, value, modes, &v));
  opt->mpi_decl = (op2_decl_mode)v;
  return OP2_OK;
}

static int parse_ptscotch_check(op2_options *opt, const char *name, const char *value) {
  return PARSE_CHOICE(name, value, on_off, &opt->ptscotch_check);
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

static int parse_restart(op2_options *opt, const char *name, const char *value) {
  return parse_path(opt->restart, sizeof opt->restart, name, value);
}

/* ---- the CUDA backends ---- */

static int parse_cuda_driver(op2_options *opt, const char *name, const char *value) {
  if (!*value) return op2_error(OP2_ERR_ARG, "option %s: empty driver library name", name);
  return parse_text(opt->cuda_driver, sizeof opt->cuda_driver, name, value);
}

static int parse_cuda_device(op2_options *opt, const char *name, const char *value) {
  if (strcmp(value, "auto") == 0) return opt->cuda_device = -1, OP2_OK;
  if (to_int(value, 0, INT_MAX, &opt->cuda_device) != 0)
    return op2_error(OP2_ERR_ARG,
                     "option %s=%s: expected auto or a device ordinal (an integer >= 0)", name,
                     value);
  return OP2_OK;
}

/* A real architecture NVRTC can make a CUBIN for: sm_ and a compute capability, with the
 * architecture-specific suffix a or f allowed (sm_80, sm_90a, sm_100f). */
static int is_real_arch(const char *s, size_t n) {
  size_t digits = 0;
  if (n < 5 || strncmp(s, "sm_", 3) != 0 || s[3] == '0') return 0;
  while (3 + digits < n && s[3 + digits] >= '0' && s[3 + digits] <= '9') digits++;
  size_t rest = n - 3 - digits;
  return digits >= 2 && digits <= 3 &&
         (rest == 0 || (rest == 1 && (s[n - 1] == 'a' || s[n - 1] == 'f')));
}

static int parse_cuda_arch(op2_options *opt, const char *name, const char *value) {
  if (strcmp(value, "auto") == 0) return opt->cuda_arch[0] = '\0', OP2_OK;
  if (!is_real_arch(value, strlen(value)))
    return op2_error(OP2_ERR_ARG,
                     "option %s=%s: expected auto or a real GPU architecture such as sm_80 or "
                     "sm_90a",
                     name, value);
  return parse_text(opt->cuda_arch, sizeof opt->cuda_arch, name, value);
}

static int parse_cuda_block_size(op2_options *opt, const char *name, const char *value) {
  if (to_int(value, 32, 1024, &opt->cuda_block_size) != 0 || opt->cuda_block_size % 32)
    return op2_error(OP2_ERR_ARG, "option %s=%s: expected a multiple of 32 in [32, 1024]", name,
                     value);
  return OP2_OK;
}

static int parse_cuda_strategy(op2_options *opt, const char *name, const char *value) {
  static const choice strategies[] = {{"auto", OP2_CUDA_ASK_AUTO},
                                      {"atomics", OP2_CUDA_ASK_ATOMICS},
                                      {"global", OP2_CUDA_ASK_GLOBAL},
                                      {"hierarchical", OP2_CUDA_ASK_HIERARCHICAL}};
  int v = 0;
  OP2_CALL(PARSE_CHOICE(name, value, strategies, &v));
  opt->cuda_strategy = (op2_cuda_ask)v;
  return OP2_OK;
}

/* Architectures separated by commas or spaces; empty: none. */
static int parse_cuda_emu_verify(op2_options *opt, const char *name, const char *value) {
  for (const char *p = value; *p;) {
    size_t n = strcspn(p, ", ");
    if (n && !is_real_arch(p, n))
      return op2_error(OP2_ERR_ARG,
                       "option %s=%s: '%.*s' is not a real GPU architecture (expected a list such "
                       "as sm_80,sm_90)",
                       name, value, (int)n, p);
    p += n + (p[n] != '\0');
  }
  return parse_text(opt->cuda_emu_verify, sizeof opt->cuda_emu_verify, name, value);
}

static int parse_cuda_ptxas(op2_options *opt, const char *name, const char *value) {
  if (!*value) return op2_error(OP2_ERR_ARG, "option %s: empty path to ptxas", name);
  return parse_text(opt->cuda_ptxas, sizeof opt->cuda_ptxas, name, value);
}

static int parse_cuda_emu_sectors(op2_options *opt, const char *name, const char *value) {
  return PARSE_CHOICE(name, value, on_off, &opt->cuda_emu_sectors);
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
  return parse_text(opt->kernel_path, sizeof opt->kernel_path, name, value);
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

static int parse_cuda_emu_check(op2_options *opt, const char *name, const char *value) {
  static const choice modes[] = {{"races", 1}, {"off", 0}};
  return PARSE_CHOICE(name, value, modes, &opt->cuda_emu_check);
}

/* ascending, reverse, or shuffle:SEED (a seed in [0, 2^31)). */
static int parse_cuda_emu_order(op2_options *opt, const char *name, const char *value) {
  int seed = 0;
  if (strcmp(value, "ascending") == 0 || strcmp(value, "reverse") == 0) {
    opt->cuda_emu_order = value[0] == 'r';
  } else if (strncmp(value, "shuffle:", 8) == 0 && to_int(value + 8, 0, INT_MAX, &seed) == 0) {
    opt->cuda_emu_order = 2;
  } else {
    return op2_error(
        OP2_ERR_ARG,
        "option %s=%s: expected ascending, reverse or shuffle:SEED (a seed in [0, %d])", name,
        value, INT_MAX);
  }
  opt->cuda_emu_seed = (unsigned)seed;
  return OP2_OK;
}

/* Persistent auto-tuning (tune.c): off, on, or reset (discard the records, then on). */
static int parse_tune(op2_options *opt, const char *name, const char *value) {
  static const choice modes[] = {
      {"off", OP2_TUNE_OFF}, {"on", OP2_TUNE_ON}, {"reset", OP2_TUNE_RESET}};
  return PARSE_CHOICE(name, value, modes, &opt->tune);
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
  return PARSE_CHOICE(name, value, on_off, &opt->huge_pages);
}

/* Seconds a child compiler (OP2_CC, OP2_CXX, ptxas) may run before it is killed; 0: no limit. */
static int parse_compile_timeout(op2_options *opt, const char *name, const char *value) {
  return parse_int(name, value, 0, 86400, &opt->compile_timeout);
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
    {"OP2_CXX", parse_cxx},
    {"OP2_SIMD", parse_simd},
    {"OP2_PROFILE_JSON", parse_profile_json},
    {"OP2_RENUMBER", parse_renumber},
    {"OP2_MPI_DECL", parse_mpi_decl},
    {"OP2_RESTART", parse_restart},
    {"OP2_PTSCOTCH_CHECK", parse_ptscotch_check},
    {"OP2_PARTITION_KEEP", parse_partition_keep},
    {"OP2_HUGE_PAGES", parse_huge_pages},
    {"OP2_CUDA_DRIVER", parse_cuda_driver},
    {"OP2_CUDA_DEVICE", parse_cuda_device},
    {"OP2_CUDA_ARCH", parse_cuda_arch},
    {"OP2_CUDA_BLOCK_SIZE", parse_cuda_block_size},
    {"OP2_CUDA_STRATEGY", parse_cuda_strategy},
    {"OP2_CUDA_EMU_VERIFY", parse_cuda_emu_verify},
    {"OP2_CUDA_PTXAS", parse_cuda_ptxas},
    {"OP2_CUDA_EMU_SECTORS", parse_cuda_emu_sectors},
    {"OP2_FAULT", parse_fault},
    {"OP2_KERNEL_PATH", parse_kernel_path},
    {"OP2_CUDA_EMU_CHECK", parse_cuda_emu_check},
    {"OP2_CUDA_EMU_ORDER", parse_cuda_emu_order},
    {"OP2_TUNE", parse_tune},
    {"OP2_COMPILE_TIMEOUT", parse_compile_timeout},
};
enum { NOPTIONS = sizeof option_table / sizeof option_table[0] };

int op2_option_count(void) {
  return NOPTIONS;
}

const char *op2_option_name(int i) {
  return i >= 0 && i < NOPTIONS ? option_table[i].name : NULL;
}

static int default_cache_dir(op2_options *opt) {
  return op2_cache_default_root(opt->cache_dir, sizeof opt->cache_dir) == 0
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
  snprintf(opt->cxx, sizeof opt->cxx, "g++");
  /* -ffp-contract=off: no fused multiply-adds, so results match TinyCC's code bit for bit. */
  /* -fno-semantic-interposition: the kernel is an exported function of a shared object; without
   * it gcc calls it through the PLT for every element instead of inlining it. */
  snprintf(opt->cflags, sizeof opt->cflags,
           "-O3 -march=native -ffp-contract=off -fno-semantic-interposition -fPIC -shared");
  snprintf(opt->cuda_driver, sizeof opt->cuda_driver, "libcuda.so.1");
  opt->cuda_device = -1;
  opt->cuda_block_size = 256;
  opt->simd = -1;
  opt->partition_keep = 0.01;
  opt->huge_pages = 1;
  opt->compile_timeout = 300;
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
  return add_simd_flags(opt);
}
