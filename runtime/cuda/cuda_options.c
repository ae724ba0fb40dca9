/* SPDX-License-Identifier: BSD-3-Clause */
/* The CUDA backends' options (OP2_CUDA_*): their rows, parsers and defaults. options.c reads
 * them with the core's, through op2_backend's options; cuda and cuda-emu share this table. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "base/file_io.h"
#include "runtime/cuda/cuda_options.h"
#include "runtime/context.h"
#include "runtime/error.h"

static int parse_driver(void *values, const char *name, const char *value) {
  op2_cuda_options *o = values;
  if (!*value) return op2_error(OP2_ERR_ARG, "option %s: empty driver library name", name);
  return op2_option_text(o->driver, sizeof o->driver, name, value);
}

static int parse_device(void *values, const char *name, const char *value) {
  op2_cuda_options *o = values;
  if (strcmp(value, "auto") == 0) return o->device = -1, OP2_OK;
  if (op2_option_to_int(value, 0, INT_MAX, &o->device) != 0)
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

static int parse_arch(void *values, const char *name, const char *value) {
  op2_cuda_options *o = values;
  if (strcmp(value, "auto") == 0) return o->arch[0] = '\0', OP2_OK;
  if (!is_real_arch(value, strlen(value)))
    return op2_error(OP2_ERR_ARG,
                     "option %s=%s: expected auto or a real GPU architecture such as sm_80 or "
                     "sm_90a",
                     name, value);
  return op2_option_text(o->arch, sizeof o->arch, name, value);
}

static int parse_block_size(void *values, const char *name, const char *value) {
  op2_cuda_options *o = values;
  if (op2_option_to_int(value, 32, 1024, &o->block_size) != 0 || o->block_size % 32)
    return op2_error(OP2_ERR_ARG, "option %s=%s: expected a multiple of 32 in [32, 1024]", name,
                     value);
  return OP2_OK;
}

static int parse_strategy(void *values, const char *name, const char *value) {
  op2_cuda_options *o = values;
  static const op2_option_choice strategies[] = {{"auto", OP2_CUDA_ASK_AUTO},
                                                 {"atomics", OP2_CUDA_ASK_ATOMICS},
                                                 {"global", OP2_CUDA_ASK_GLOBAL},
                                                 {"hierarchical", OP2_CUDA_ASK_HIERARCHICAL}};
  int v = 0;
  OP2_CALL(OP2_OPTION_CHOOSE(name, value, strategies, &v));
  o->strategy = (op2_cuda_ask)v;
  return OP2_OK;
}

/* Architectures separated by commas or spaces; empty: none. */
static int parse_emu_verify(void *values, const char *name, const char *value) {
  op2_cuda_options *o = values;
  for (const char *p = value; *p;) {
    size_t n = strcspn(p, ", ");
    if (n && !is_real_arch(p, n))
      return op2_error(OP2_ERR_ARG,
                       "option %s=%s: '%.*s' is not a real GPU architecture (expected a list such "
                       "as sm_80,sm_90)",
                       name, value, (int)n, p);
    p += n + (p[n] != '\0');
  }
  return op2_option_text(o->emu_verify, sizeof o->emu_verify, name, value);
}

static int parse_ptxas(void *values, const char *name, const char *value) {
  op2_cuda_options *o = values;
  if (!*value) return op2_error(OP2_ERR_ARG, "option %s: empty path to ptxas", name);
  /* checked here, not at the first loop that would run it */
  char found[OP2_PATH_MAX];
  if (op2_find_program(value, found, sizeof found) != 0)
    return op2_error(OP2_ERR_ARG,
                     "option %s=%s: no executable program there (a path to ptxas, or a name "
                     "found on PATH)",
                     name, value);
  return op2_option_text(o->ptxas, sizeof o->ptxas, name, value);
}

static int parse_emu_sectors(void *values, const char *name, const char *value) {
  op2_cuda_options *o = values;
  return OP2_OPTION_CHOOSE(name, value, op2_option_on_off, &o->emu_sectors);
}

static int parse_emu_check(void *values, const char *name, const char *value) {
  op2_cuda_options *o = values;
  static const op2_option_choice modes[] = {{"races", 1}, {"off", 0}};
  return OP2_OPTION_CHOOSE(name, value, modes, &o->emu_check);
}

/* ascending, reverse, or shuffle:SEED (a seed in [0, 2^31)). */
static int parse_emu_order(void *values, const char *name, const char *value) {
  op2_cuda_options *o = values;
  int seed = 0;
  if (strcmp(value, "ascending") == 0 || strcmp(value, "reverse") == 0) {
    o->emu_order = value[0] == 'r';
  } else if (strncmp(value, "shuffle:", 8) == 0 &&
             op2_option_to_int(value + 8, 0, INT_MAX, &seed) == 0) {
    o->emu_order = 2;
  } else {
    return op2_error(
        OP2_ERR_ARG,
        "option %s=%s: expected ascending, reverse or shuffle:SEED (a seed in [0, %d])", name,
        value, INT_MAX);
  }
  o->emu_seed = (unsigned)seed;
  return OP2_OK;
}

static void defaults(void *values) {
  op2_cuda_options *o = values;
  snprintf(o->driver, sizeof o->driver, "libcuda.so.1");
  o->device = -1;
  o->block_size = 256;
}

static const op2_option_row rows[] = {
    {"OP2_CUDA_DRIVER", parse_driver},       {"OP2_CUDA_DEVICE", parse_device},
    {"OP2_CUDA_ARCH", parse_arch},           {"OP2_CUDA_BLOCK_SIZE", parse_block_size},
    {"OP2_CUDA_STRATEGY", parse_strategy},   {"OP2_CUDA_EMU_VERIFY", parse_emu_verify},
    {"OP2_CUDA_PTXAS", parse_ptxas},         {"OP2_CUDA_EMU_SECTORS", parse_emu_sectors},
    {"OP2_CUDA_EMU_CHECK", parse_emu_check}, {"OP2_CUDA_EMU_ORDER", parse_emu_order},
};

const op2_option_table op2_cuda_option_table = {
    .rows = rows,
    .nrows = (int)(sizeof rows / sizeof rows[0]),
    .size = sizeof(op2_cuda_options),
    .defaults = defaults,
};

const op2_cuda_options *op2_cuda_options_of(const op2_context *ctx) {
  static const op2_cuda_options none = {.driver = "libcuda.so.1", .device = -1, .block_size = 256};
  const op2_cuda_options *o = op2_option_values_of(&ctx->backend_opt, &op2_cuda_option_table);
  return o ? o : &none;
}
