/* SPDX-License-Identifier: BSD-3-Clause */
/* Every option of the library's table (read from the table, so an option added later is walked
 * too) given garbage, empty, negative, huge and over-long values from the environment: op_init
 * either refuses the value with a message naming the option, or accepts it, and then a loop,
 * op_timing_output and op_exit run without any error: nothing accepted fails later. Named
 * compilers must exist, the restart file and the template directory too. Variables OP2_* that
 * are no option are warned about at OP2_DIAGS=0, near misses with a suggestion, while the few
 * foreign names (the test harness's, OP2-Common's build variables) are not.
 * usage: t313-option-values TEMPLATES_DIR */
#include "errors_util.h"
#include "runtime/op2_impl.h"

static const char *inc_src = "static void inc(int *x) { x[0] += 1; }\n";
static char *prog = "t313-option-values";
static int errors_seen;
static char first_error[2048];

static void count_errors(const char *message, void *user) {
  (void)user;
  if (!errors_seen++) snprintf(first_error, sizeof first_error, "%s", message);
}

static void quiet_timing(void) {
  op_timing_output();
}

/* op_init with name=value in the environment: 1 refused (naming the option), 0 accepted and
 * then a whole run without any error. */
static int try_value(const char *name, const char *value) {
  CHECK(setenv(name, value, 1) == 0);
  errors_seen = 0;
  first_error[0] = '\0';
  char *argv[] = {prog, NULL};
  op_init(1, argv, 0);
  int refused = !op2_ctx()->initialised;
  if (refused) {
    CHECK_EQ_INT(errors_seen, 1);
    /* (gcc -O2 with the sanitizers cannot see that name and value are never NULL here) */
    if (!strstr(first_error, name))
      fprintf(stderr, "%s=%.40s refused without naming it: %s\n", name ? name : "?",
              value ? value : "?", first_error);
    CHECK(strstr(first_error, name) != NULL);
  } else {
    if (errors_seen)
      fprintf(stderr, "%s=%.40s: accepted, yet %s\n", name ? name : "?", value ? value : "?",
              first_error);
    CHECK_EQ_INT(errors_seen, 0);
    op_set s = op_decl_set(5, "s");
    const int v[] = {1, 2, 3, 4, 5};
    op_dat d = op_decl_dat(s, 1, "int", v, "d");
    op_par_loop(inc_src, "inc", s, op_arg_dat(d, -1, OP_ID, 1, "int", OP_RW));
    int got[5] = {0};
    op_fetch_data(d, got);
    free(eu_capture_stdout(quiet_timing));
    op_exit();
    if (errors_seen) fprintf(stderr, "%s=%.40s: accepted, then %s\n", name, value, first_error);
    CHECK_EQ_INT(errors_seen, 0);
    for (int i = 0; i < 5; i++) CHECK_EQ_INT(got[i], v[i] + 1);
  }
  CHECK(unsetenv(name) == 0);
  return refused;
}

static char long_value[6000];

static void every_option(void) {
  memset(long_value, 'x', sizeof long_value - 1);
  const char *values[] = {"garbage#%&",
                          "",
                          "-1",
                          "99999999999999999999",
                          "-99999999999999999999",
                          "1e999",
                          " ",
                          "/proc/op2-none/x",
                          long_value};
  int nvalues = (int)(sizeof values / sizeof values[0]), refused = 0, accepted = 0;
  for (int i = 0; i < op2_option_count(); i++) {
    const char *name = op2_option_name(i);
    if (!strcmp(name, "OP2_CACHE_DIR") || !strcmp(name, "OP2_BACKEND")) continue; /* below */
    for (int v = 0; v < nvalues; v++) try_value(name, values[v]) ? refused++ : accepted++;
  }
  /* The test runner's values of these two are restored after each. */
  const char *keep_cache = getenv("OP2_CACHE_DIR");
  char *cache = strdup(keep_cache ? keep_cache : "cache");
  for (int v = 0; v < nvalues; v++) {
    try_value("OP2_CACHE_DIR", values[v]) ? refused++ : accepted++;
    try_value("OP2_BACKEND", values[v]) ? refused++ : accepted++;
    CHECK(setenv("OP2_CACHE_DIR", cache, 1) == 0 && setenv("OP2_BACKEND", "seq", 1) == 0);
  }
  free(cache);
  fprintf(stderr, "%d options x %d values: %d refused at op_init, %d accepted and run\n",
          op2_option_count(), nvalues, refused, accepted);
}

static void refused(const char *name, const char *value, const char *needle) {
  if (!try_value(name, value)) fprintf(stderr, "%s=%s was accepted\n", name, value);
  CHECK_CONTAINS(first_error, needle);
  CHECK_CONTAINS(first_error, needle);
}

static void accepted(const char *name, const char *value) {
  CHECK(try_value(name, value) == 0);
}

/* op_init with `env` set, at OP2_DIAGS=0: what it printed on stderr. */
static const char *const *warn_env;
static char **warn_argv;
static void init_with_env(const void *arg) {
  (void)arg;
  for (const char *const *e = warn_env; *e; e += 2) CHECK(setenv(e[0], e[1], 1) == 0);
  int argc = 0;
  while (warn_argv[argc]) argc++;
  op_init(argc, warn_argv, 0);
  CHECK(op2_ctx()->initialised);
  op_exit();
}

/* Flags the compiler refuses: told at OP2_DIAGS=0, naming OP2_CFLAGS, and in op_timing_output.
 * In a fresh cache: the failure is recorded, and a later run in the same cache says instead that
 * the loop runs TinyCC code because its build failed before (ctest/cache/cache_failures.c). */
static void run_bad_flags(const void *arg) {
  CHECK(setenv("OP2_CACHE_DIR", arg, 1) == 0);
  CHECK(setenv("OP2_CFLAGS", "-fPIC -shared --no-such-flag", 1) == 0);
  CHECK(setenv("OP2_JIT", "cc", 1) == 0);
  CHECK(try_value("OP2_DIAGS", "0") == 0);
}

static void bad_flags(void) {
  char *err = NULL, cache[] = "/tmp/op2-t313-XXXXXX", rm[64];
  CHECK(mkdtemp(cache) != NULL);
  int status = eu_in_child(run_bad_flags, cache, &err);
  snprintf(rm, sizeof rm, "rm -rf %s", cache);
  CHECK(system(rm) == 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK_CONTAINS(err, "optimising compile of 'inc' failed");
  CHECK_CONTAINS(err, "OP2_CFLAGS=-fPIC -shared --no-such-flag");
  free(err);
}

/* A C++ kernel without a C++ compiler (the default g++ not on PATH): the error says so, not only
 * TinyCC's message. */
static void no_cxx_compiler(void) {
  char *path = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
  CHECK(path && setenv("PATH", "/proc/op2-none", 1) == 0 && setenv("OP2_JIT", "tcc", 1) == 0);
  errors_seen = 0;
  char *argv[] = {prog, NULL};
  op_init(1, argv, 0);
  CHECK(op2_ctx()->initialised);
  op_set s = op_decl_set(4, "s");
  op_dat d = op_decl_dat(s, 1, "double", NULL, "d");
  /* a reference: C++ that no rewriting into C covers (std::min would be) */
  op_par_loop("void lo(double *x) { double &y = x[0]; y = y < 1.0 ? y : 1.0; }\n", "lo", s,
              op_arg_dat(d, -1, OP_ID, 1, "double", OP_RW));
  test_run_queued(); /* lazy execution: the queued call runs (and fails) now */
  CHECK_EQ_INT(errors_seen, 1);
  CHECK_CONTAINS(first_error, "the kernel does not compile");
  CHECK_CONTAINS(first_error, "nor as C++: the C++ compiler OP2_CXX=g++ was not found");
  op_exit();
  CHECK(setenv("PATH", path, 1) == 0 && unsetenv("OP2_JIT") == 0);
  free(path);
}

static void misspelt_names(void) {
  const char *const env[] = {"OP2_BAKCEND",
                             "seq",
                             "OP2_CACHEDIR",
                             "x",
                             "OP2_ZZZZZZZZZZZZ",
                             "1",
                             "OP2_TEST_THING",
                             "1",
                             "OP2_INSTALL_PATH",
                             "/x",
                             "OP2_COMPILER",
                             "gnu",
                             "OP2_DIAGS",
                             "0",
                             NULL};
  char *argv[] = {prog, "OP2_PART_SIZ=3", "OP2_JITT=tcc", "OP2_PART_SIZE=8", NULL};
  warn_env = env, warn_argv = argv;
  char *err = NULL;
  int status = eu_in_child(init_with_env, NULL, &err);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  fprintf(stderr, "%s", err);
  CHECK_CONTAINS(err,
                 "OP2_BAKCEND in the environment is not an op2jit option and is ignored "
                 "(did you mean OP2_BACKEND?)");
  CHECK_CONTAINS(err,
                 "OP2_CACHEDIR in the environment is not an op2jit option and is ignored "
                 "(did you mean OP2_CACHE_DIR?)");
  CHECK_CONTAINS(err,
                 "OP2_ZZZZZZZZZZZZ in the environment is not an op2jit option and is "
                 "ignored\n");
  CHECK_CONTAINS(err,
                 "OP2_PART_SIZ in the arguments is not an op2jit option and is ignored (did "
                 "you mean OP2_PART_SIZE?)");
  CHECK_CONTAINS(err,
                 "OP2_JITT in the arguments is not an op2jit option and is ignored (did you "
                 "mean OP2_JIT?)");
  CHECK(!strstr(err, "OP2_TEST_THING") && !strstr(err, "OP2_INSTALL_PATH") &&
        !strstr(err, "OP2_COMPILER") && !strstr(err, "OP2_DIAGS ") &&
        !strstr(err, "OP2_PART_SIZE "));
  free(err);
}

int main(int argc, char **argv) {
  CHECK(argc == 2);
  for (int i = 0; i < op2_option_count(); i++)
    if (strcmp(op2_option_name(i), "OP2_CACHE_DIR") != 0) CHECK(unsetenv(op2_option_name(i)) == 0);
  CHECK(setenv("OP2_BACKEND", "seq", 1) == 0);
  /* Relative values (a profile called "garbage#%&") land in a scratch directory. */
  char scratch[4096], cwd[4096];
  CHECK(getcwd(cwd, sizeof cwd) != NULL);
  const char *cache = getenv("OP2_CACHE_DIR");
  if (cache && cache[0] != '/') { /* keep the runner's cache where it meant */
    char abs[8300];
    snprintf(abs, sizeof abs, "%s/%s", cwd, cache);
    CHECK(setenv("OP2_CACHE_DIR", abs, 1) == 0);
  }
  eu_make_scratch(scratch, sizeof scratch, "t313");
  CHECK(chdir(scratch) == 0);
  op_set_error_handler(count_errors, NULL);

  every_option();

  refused("OP2_CC", "/proc/op2-none/cc", "option OP2_CC=/proc/op2-none/cc: no such compiler");
  refused("OP2_CC", "no-such-compiler-here", "nor found on PATH");
  refused("OP2_CC", "/tmp", "option OP2_CC=/tmp: no such compiler"); /* a directory */
  refused("OP2_CXX", "/proc/op2-none/c++", "option OP2_CXX=/proc/op2-none/c++: no such compiler");
  accepted("OP2_CXX", "off");
  accepted("OP2_CC", "cc");
  refused("OP2_RESTART", "/proc/op2-none/run.h5",
          "option OP2_RESTART=/proc/op2-none/run.h5: no such");
  refused("OP2_RESTART", "/tmp",
          "option OP2_RESTART=/tmp: not a checkpoint file of op2jit: it is not a regular file");
  refused("OP2_TEMPLATE_DIR", "/tmp", "option OP2_TEMPLATE_DIR=/tmp: not a templates directory");
  accepted("OP2_TEMPLATE_DIR", argv[1]);
  refused("OP2_PROFILE_JSON", "/proc/op2-none/p.json",
          "option OP2_PROFILE_JSON=/proc/op2-none/p.json: cannot be created");
  refused("OP2_PROFILE_JSON", "/tmp", "option OP2_PROFILE_JSON=/tmp: is a directory");
  accepted("OP2_PROFILE_JSON", "profile.json");
  CHECK(eu_is_file("profile.json"));
  accepted("OP2_PROFILE_JSON", "");
  refused("OP2_RESTART", "profile.json",
          "option OP2_RESTART=profile.json: not a checkpoint file of op2jit: it has no op2jit "
          "checkpoint header");

  misspelt_names();
  bad_flags();
  no_cxx_compiler();

  CHECK(chdir(cwd) == 0);
  eu_remove_tree(scratch);
  return 0;
}
