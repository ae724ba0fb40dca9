/* SPDX-License-Identifier: BSD-3-Clause */
/* Bad run-time options, from the environment and from argv entries OP2_NAME=value. op_init must
 * name the option and its value and say what is accepted, leave the library uninitialised (so
 * other calls are refused), and succeed when called again once the option is fixed. Every option
 * of the library's table has a refused value here, and a row in docs/OPTIONS.md (argv[1]). */
#include "errors_util.h"
#include "runtime/op2_impl.h"
#ifdef OP2_HAVE_CUDA
#include "runtime/cuda/cuda_options.h"
#endif

static const char *inc_src = "static void inc(int *x) { x[0] += 1; }\n";
static char *prog = "t304-options";

static char init_error[2048]; /* op_init's message: later checks overwrite op_last_error() */

static void print_diagnostics(void) {
  op_diagnostic_output();
}

/* Every option but the cache directory, which the test runner sets. */
static void clear_options(void) {
  for (int i = 0; i < op2_option_count(); i++)
    if (strcmp(op2_option_name(i), "OP2_CACHE_DIR") != 0) CHECK(unsetenv(op2_option_name(i)) == 0);
}

/* op_init(argv) fails with a message containing both needles, and leaves nothing initialised. */
static void init_fails(int argc, char **argv, const char *needle, const char *needle2) {
  EXPECT_ERROR(op_init(argc, argv, 0), needle);
  if (needle2) CHECK_CONTAINS(op_last_error(), needle2);
  snprintf(init_error, sizeof init_error, "%s", op_last_error());
  op_set s;
  EXPECT_ERROR(s = op_decl_set(1, "s"), "op_decl_set called before op_init");
  CHECK(s == NULL);
}

static void env_fails(const char *name, const char *value, const char *needle,
                      const char *needle2) {
  const char *was = getenv(name);
  char *saved = was ? strdup(was) : NULL;
  CHECK(setenv(name, value, 1) == 0);
  char *argv[] = {prog, NULL};
  init_fails(1, argv, needle, needle2);
  CHECK(saved ? setenv(name, saved, 1) == 0 : unsetenv(name) == 0);
  free(saved);
}

static void argv_fails(const char *arg, const char *needle, const char *needle2) {
  char *argv[] = {prog, "--some-flag", (char *)arg, NULL};
  init_fails(3, argv, needle, needle2);
}

static char long_value[5000]; /* longer than any option's text */

/* One refused value per option and what the message must say. An option added to the table
 * without a row here fails the test. */
static const struct bad_value {
  const char *name, *value, *needle;
} bad_values[] = {
    {"OP2_BACKEND", "nonsense", "option OP2_BACKEND=nonsense: unknown backend (choose one of: "},
    {"OP2_PART_SIZE", "0", "option OP2_PART_SIZE=0: expected an integer in [1, "},
    {"OP2_DIAGS", "11", "option OP2_DIAGS=11: expected an integer in [0, 10]"},
    {"OP2_CACHE", "maybe", "option OP2_CACHE=maybe: expected off, readonly or on"},
    {"OP2_CACHE_DIR", "", "option OP2_CACHE_DIR: path is empty or too long"},
    {"OP2_TEMPLATE_DIR", "", "option OP2_TEMPLATE_DIR: path is empty or too long"},
    {"OP2_JIT", "fast", "option OP2_JIT=fast: expected tcc, cc or tiered"},
    {"OP2_LOADER", "ld.so", "option OP2_LOADER=ld.so: expected auto, direct or dlopen"},
    {"OP2_CC", "", "option OP2_CC: empty compiler name"},
    {"OP2_CXX", "", "option OP2_CXX: empty compiler name (off: none)"},
    {"OP2_CFLAGS", long_value, "option OP2_CFLAGS: value is too long (at most 1023 characters)"},
    {"OP2_FC", "", "option OP2_FC: empty compiler name"},
    {"OP2_FFLAGS", long_value, "option OP2_FFLAGS: value is too long (at most 1023 characters)"},
    {"OP2_SIMD", "wide", "option OP2_SIMD=wide: expected off, auto or a lane count in [2, 64]"},
    {"OP2_PROFILE_JSON", long_value,
     "option OP2_PROFILE_JSON: value is too long (at most 4095 characters)"},
    {"OP2_RENUMBER", "yes", "option OP2_RENUMBER=yes: expected off, on, blocks or auto"},
    {"OP2_MPI_DECL", "global", "option OP2_MPI_DECL=global: expected auto, local or replicated"},
    {"OP2_FAULT", "exchange", "option OP2_FAULT=exchange: expected STEP:RANK"},
    {"OP2_MPI_TIMEOUT", "soon", "option OP2_MPI_TIMEOUT=soon: expected an integer in [0, 1000000]"},
    {"OP2_KERNEL_PATH", long_value, "option OP2_KERNEL_PATH: a directory of the list is too long"},
    {"OP2_RESTART", "", "option OP2_RESTART: path is empty or too long"},
    {"OP2_PTSCOTCH_CHECK", "1", "option OP2_PTSCOTCH_CHECK=1: expected on or off"},
    {"OP2_PARTITION_KEEP", "2",
     "option OP2_PARTITION_KEEP=2: expected a share of map entries in [0, 1]"},
    {"OP2_HUGE_PAGES", "always", "option OP2_HUGE_PAGES=always: expected on or off"},
#ifdef OP2_HAVE_CUDA /* the CUDA backends' own options: only where they are built */
    {"OP2_CUDA_DRIVER", "", "option OP2_CUDA_DRIVER: empty driver library name"},
    {"OP2_CUDA_DEVICE", "garbage",
     "option OP2_CUDA_DEVICE=garbage: expected auto or a device ordinal (an integer >= 0)"},
    {"OP2_CUDA_ARCH", "compute_90",
     "option OP2_CUDA_ARCH=compute_90: expected auto or a real GPU architecture such as sm_80"},
    {"OP2_CUDA_BLOCK_SIZE", "100",
     "option OP2_CUDA_BLOCK_SIZE=100: expected a multiple of 32 in [32, 1024]"},
    {"OP2_CUDA_STRATEGY", "fastest",
     "option OP2_CUDA_STRATEGY=fastest: expected auto, atomics, global or hierarchical"},
    {"OP2_CUDA_EMU_VERIFY", "sm_80,bogus",
     "option OP2_CUDA_EMU_VERIFY=sm_80,bogus: 'bogus' is not a real GPU architecture"},
    {"OP2_CUDA_PTXAS", "", "option OP2_CUDA_PTXAS: empty path to ptxas"},
    {"OP2_CUDA_EMU_SECTORS", "yes", "option OP2_CUDA_EMU_SECTORS=yes: expected on or off"},
    {"OP2_CUDA_EMU_CHECK", "on", "option OP2_CUDA_EMU_CHECK=on: expected races or off"},
    {"OP2_CUDA_EMU_ORDER", "shuffle:x",
     "option OP2_CUDA_EMU_ORDER=shuffle:x: expected ascending, reverse or shuffle:SEED"},
#endif
    {"OP2_TUNE", "auto", "option OP2_TUNE=auto: expected off, on or reset"},
    {"OP2_COMPILE_TIMEOUT", "-1",
     "option OP2_COMPILE_TIMEOUT=-1: expected an integer in [0, 86400]"},
    {"OP2_LAZY", "yes", "option OP2_LAZY=yes: expected off, on or auto"},
    {"OP2_LAZY_CHAIN", "0", "option OP2_LAZY_CHAIN=0: expected an integer in [1, 1000000]"},
    {"OP2_FUSE", "all", "option OP2_FUSE=all: expected on or off"},
    {"OP2_TEST_ID_BASE", "-1", "option OP2_TEST_ID_BASE=-1: expected an integer in [0, 2^62]"},
};
enum { NBAD = sizeof bad_values / sizeof bad_values[0] };

static const struct bad_value *bad_value_of(const char *name) {
  for (int i = 0; i < NBAD; i++)
    if (!strcmp(bad_values[i].name, name)) return &bad_values[i];
  return NULL;
}

/* Whether a table row of `doc` names `quoted` in its first cell ("| `OP2_CC`, `OP2_CFLAGS` |"):
 * a mention elsewhere, in another option's text, does not document an option. */
static int has_row(const char *doc, const char *quoted) {
  for (const char *line = doc; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
    if (strncmp(line, "| ", 2) != 0) continue;
    const char *end = strstr(line + 2, " | "), *eol = strchr(line, '\n');
    if (!end || (eol && end > eol)) continue;
    const char *hit = strstr(line + 2, quoted);
    if (hit && hit < end) return 1;
  }
  return 0;
}

/* Each option of the table: refused from the environment and from argv, and documented. */
static void every_option(const char *readme_path) {
  char *readme = eu_read_file(readme_path);
  CHECK(readme != NULL);
  memset(long_value, 'x', sizeof long_value - 1);
  for (int i = 0; i < op2_option_count(); i++) {
    const char *name = op2_option_name(i);
    const struct bad_value *b = bad_value_of(name);
    if (!b) fprintf(stderr, "option %s has no refused value in this test\n", name);
    CHECK(b != NULL);
    env_fails(name, b->value, b->needle, NULL);
    char *arg = malloc(strlen(name) + strlen(b->value) + 2);
    CHECK(arg != NULL);
    sprintf(arg, "%s=%s", name, b->value);
    argv_fails(arg, b->needle, NULL);
    free(arg);
    char row[128];
    snprintf(row, sizeof row, "`%s`", name);
    if (!has_row(readme, row)) fprintf(stderr, "docs/OPTIONS.md has no row for option %s\n", name);
    CHECK(has_row(readme, row));
  }
  for (int i = 0; i < NBAD; i++) { /* and no row here for an option that is gone */
    int found = 0;
    for (int j = 0; j < op2_option_count(); j++)
      found |= !strcmp(op2_option_name(j), bad_values[i].name);
    CHECK(found);
  }
  CHECK(op2_option_name(op2_option_count()) == NULL);
  /* Each option once: backends sharing an option table (cuda, cuda-emu) do not repeat its rows. */
  for (int i = 0; i < op2_option_count(); i++)
    for (int j = i + 1; j < op2_option_count(); j++) {
      if (!strcmp(op2_option_name(i), op2_option_name(j)))
        fprintf(stderr, "option %s is listed twice\n", op2_option_name(i));
      CHECK(strcmp(op2_option_name(i), op2_option_name(j)) != 0);
    }
  free(readme);
}

/* op_init succeeds now, on `backend` (or whichever is the default when NULL: never a refused
 * value), and a loop runs; then the library is closed again. */
static void init_works(int argc, char **argv, const char *backend) {
  op_init(argc, argv, 0);
  op_set s = op_decl_set(5, "s");
  const int v[] = {1, 2, 3, 4, 5};
  op_dat d = op_decl_dat(s, 1, "int", v, "d");
  CHECK(s && d);
  op_par_loop(inc_src, "inc", s, op_arg_dat(d, -1, OP_ID, 1, "int", OP_RW));
  int got[5];
  op_fetch_data(d, got);
  for (int i = 0; i < 5; i++) CHECK_EQ_INT(got[i], v[i] + 1);
  char *diag = eu_capture_stdout(print_diagnostics);
  if (backend) {
    char want[64];
    snprintf(want, sizeof want, "(backend %s)", backend);
    CHECK_CONTAINS(diag, want);
  }
  CHECK(strstr(diag, "nonsense") == NULL);
  free(diag);
  op_exit();
  test_catch_errors(); /* op_exit dropped it */
}

int main(int argc, char **argv) {
  CHECK(argc == 2);
  clear_options();
  test_catch_errors();
  char *plain[] = {prog, NULL};
  every_option(argv[1]);

  env_fails("OP2_BACKEND", "nonsense",
            "option OP2_BACKEND=nonsense: unknown backend (choose one of: ", "seq");
  CHECK_CONTAINS(init_error, "openmp");
  /* The list is the backend table's, in its order, each name with its description. */
  const char *listed = strstr(init_error, "choose one of: ");
  for (int i = 0; listed && i < op2_backend_count(); i++) {
    const op2_backend *b = op2_backend_at(i);
    CHECK(b->description && b->description[0]);
    listed = strstr(listed, b->name);
    CHECK(listed != NULL);
  }
  env_fails("OP2_BACKEND", "", "option OP2_BACKEND=: unknown backend", NULL);
  env_fails("OP2_PART_SIZE", "0", "option OP2_PART_SIZE=0: expected an integer in [1, ", NULL);
  env_fails("OP2_PART_SIZE", "abc", "option OP2_PART_SIZE=abc: expected an integer in [1, ", NULL);
  env_fails("OP2_PART_SIZE", "12abc", "option OP2_PART_SIZE=12abc: expected an integer", NULL);
  env_fails("OP2_PART_SIZE", "-4", "option OP2_PART_SIZE=-4: expected an integer", NULL);
  env_fails("OP2_PART_SIZE", "", "option OP2_PART_SIZE=: expected an integer", NULL);
  env_fails("OP2_PART_SIZE", "99999999999999999999",
            "option OP2_PART_SIZE=99999999999999999999: expected an integer", NULL);
  env_fails("OP2_CACHE", "maybe", "option OP2_CACHE=maybe: expected off, readonly or on", NULL);
  env_fails("OP2_CACHE", "", "option OP2_CACHE=: expected off, readonly or on", NULL);
  env_fails("OP2_DIAGS", "11", "option OP2_DIAGS=11: expected an integer in [0, 10]", NULL);
  env_fails("OP2_CACHE_DIR", "", "option OP2_CACHE_DIR: path is empty or too long", NULL);
  char long_path[6000];
  memset(long_path, 'a', sizeof long_path - 1);
  long_path[0] = '/';
  long_path[sizeof long_path - 1] = '\0';
  env_fails("OP2_CACHE_DIR", long_path, "option OP2_CACHE_DIR: path is empty or too long", NULL);

  argv_fails("OP2_PART_SIZE=0", "option OP2_PART_SIZE=0: expected an integer in [1, ", NULL);
  argv_fails("OP2_BACKEND=nonsense", "option OP2_BACKEND=nonsense: unknown backend", "seq");
  argv_fails("OP2_CACHE=maybe", "option OP2_CACHE=maybe: expected off, readonly or on", NULL);
  /* A good environment does not hide a bad argv entry. */
  CHECK(setenv("OP2_PART_SIZE", "64", 1) == 0);
  argv_fails("OP2_PART_SIZE=abc", "option OP2_PART_SIZE=abc", NULL);
  CHECK(unsetenv("OP2_PART_SIZE") == 0);

  /* After all those refusals, op_init works in the same process. */
  init_works(1, plain, NULL);
  /* Entries that only look like options are not options. */
  char *lookalikes[] = {
      prog, "OP2_PART_SIZEX=0", "OP2_PART_SIZE", "xOP2_BACKEND=nonsense", "op2_backend=nonsense",
      NULL};
  init_works(5, lookalikes, NULL);
  env_fails("OP2_PTSCOTCH_CHECK", "", "option OP2_PTSCOTCH_CHECK=: expected on or off", NULL);
#ifdef OP2_HAVE_CUDA
  /* Edges of the CUDA options' values: refused whatever the backend. */
  const char *ordinal = "expected auto or a device ordinal (an integer >= 0)";
  env_fails("OP2_CUDA_DEVICE", "-1", "option OP2_CUDA_DEVICE=-1: ", ordinal);
  env_fails("OP2_CUDA_DEVICE", "", "option OP2_CUDA_DEVICE=: ", ordinal);
  env_fails("OP2_CUDA_DEVICE", "1x", "option OP2_CUDA_DEVICE=1x: ", ordinal);
  env_fails("OP2_CUDA_DEVICE", "99999999999", "option OP2_CUDA_DEVICE=99999999999: ", ordinal);
  const char *multiple = "expected a multiple of 32 in [32, 1024]";
  env_fails("OP2_CUDA_BLOCK_SIZE", "1056", "option OP2_CUDA_BLOCK_SIZE=1056: ", multiple);
  env_fails("OP2_CUDA_BLOCK_SIZE", "0", "option OP2_CUDA_BLOCK_SIZE=0: ", multiple);
  env_fails("OP2_CUDA_BLOCK_SIZE", "16", "option OP2_CUDA_BLOCK_SIZE=16: ", multiple);
  env_fails("OP2_CUDA_BLOCK_SIZE", "", "option OP2_CUDA_BLOCK_SIZE=: ", multiple);
  const char *arch = "expected auto or a real GPU architecture such as sm_80 or sm_90a";
  const char *archs[] = {"sm_8", "sm_08", "sm_90x", "sm_1000", "sm_", "", "sm_90 ", "SM_90"};
  for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++) {
    char needle[64];
    snprintf(needle, sizeof needle, "option OP2_CUDA_ARCH=%s: ", archs[i]);
    env_fails("OP2_CUDA_ARCH", archs[i], needle, arch);
  }
  env_fails("OP2_CUDA_EMU_VERIFY", "sm_80 compute_90",
            "option OP2_CUDA_EMU_VERIFY=sm_80 compute_90: 'compute_90' is not", NULL);
  env_fails("OP2_CUDA_STRATEGY", "", "option OP2_CUDA_STRATEGY=: expected auto, atomics", NULL);
  env_fails("OP2_CUDA_EMU_SECTORS", "", "option OP2_CUDA_EMU_SECTORS=: expected on or off", NULL);
  /* at op_init, not at the first loop that would run it */
  env_fails("OP2_CUDA_PTXAS", "/nonexistent/ptxas",
            "option OP2_CUDA_PTXAS=/nonexistent/ptxas: no executable program there", NULL);
  /* Good CUDA values are taken as given (the seq backend uses none of them). */
  char *cuda_argv[] = {prog,
                       "OP2_CUDA_DEVICE=3",
                       "OP2_CUDA_ARCH=sm_90a",
                       "OP2_CUDA_BLOCK_SIZE=1024",
                       "OP2_CUDA_STRATEGY=global",
                       "OP2_CUDA_EMU_VERIFY=sm_80, sm_100f",
                       "OP2_CUDA_PTXAS=true", /* a program found on PATH */
                       "OP2_CUDA_DRIVER=/nonexistent/libcuda.so.1",
                       "OP2_CUDA_EMU_SECTORS=on",
                       "OP2_PTSCOTCH_CHECK=on",
                       NULL};
  op_init(10, cuda_argv, 0);
  const op2_options *o = &op2_ctx()->opt;
  const op2_cuda_options *c = op2_cuda_options_of(op2_ctx()); /* kept by CUDA, not in opt */
  CHECK(op2_ctx()->initialised);
  CHECK_EQ_INT(c->device, 3);
  CHECK(!strcmp(c->arch, "sm_90a"));
  CHECK_EQ_INT(c->block_size, 1024);
  CHECK_EQ_INT(c->strategy, OP2_CUDA_ASK_GLOBAL);
  CHECK(!strcmp(c->emu_verify, "sm_80, sm_100f"));
  CHECK(!strcmp(c->ptxas, "true"));
  CHECK(!strcmp(c->driver, "/nonexistent/libcuda.so.1"));
  CHECK(c->emu_sectors && o->ptscotch_check);
  op_exit();
  test_catch_errors();
  char *auto_argv[] = {prog,
                       "OP2_CUDA_DEVICE=auto",
                       "OP2_CUDA_ARCH=auto",
                       "OP2_CUDA_STRATEGY=auto",
                       "OP2_CUDA_EMU_VERIFY=",
                       NULL};
  CHECK(setenv("OP2_CUDA_ARCH", "sm_80", 1) == 0); /* argv's auto wins */
  op_init(5, auto_argv, 0);
  c = op2_cuda_options_of(op2_ctx());
  CHECK(op2_ctx()->initialised);
  CHECK_EQ_INT(c->device, -1);
  CHECK(c->arch[0] == '\0' && c->emu_verify[0] == '\0');
  CHECK_EQ_INT(c->strategy, OP2_CUDA_ASK_AUTO);
  CHECK_EQ_INT(c->block_size, 256);
  CHECK(!strcmp(c->driver, "libcuda.so.1"));
  CHECK(!c->emu_sectors && !o->ptscotch_check);
  op_exit();
  test_catch_errors();
  CHECK(unsetenv("OP2_CUDA_ARCH") == 0);
#endif

  /* Good values are taken, argv over the environment. */
  CHECK(setenv("OP2_BACKEND", "openmp", 1) == 0);
  CHECK(setenv("OP2_PART_SIZE", "7", 1) == 0);
  char *seq_argv[] = {prog, "OP2_BACKEND=seq", "OP2_PART_SIZE=3", NULL};
  init_works(3, seq_argv, "seq");
  clear_options();
  return 0;
}
