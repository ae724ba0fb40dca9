/* Bad run-time options, from the environment and from argv entries OP2_NAME=value. op_init must
 * name the option and its value and say what is accepted, leave the library uninitialised (so
 * other calls are refused), and succeed when called again once the option is fixed. */
#include "errors_util.h"

static const char *inc_src = "static void inc(int *x) { x[0] += 1; }\n";
static char *prog = "t304-options";

static char init_error[2048]; /* op_init's message: later checks overwrite op_last_error() */

static void print_diagnostics(void) {
  op_diagnostic_output();
}

static void clear_options(void) {
  const char *names[] = {"OP2_BACKEND", "OP2_PART_SIZE", "OP2_DIAGS", "OP2_CACHE",
                         "OP2_TEMPLATE_DIR"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) CHECK(unsetenv(names[i]) == 0);
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
  CHECK(setenv(name, value, 1) == 0);
  char *argv[] = {prog, NULL};
  init_fails(1, argv, needle, needle2);
  CHECK(unsetenv(name) == 0);
}

static void argv_fails(const char *arg, const char *needle, const char *needle2) {
  char *argv[] = {prog, "--some-flag", (char *)arg, NULL};
  init_fails(3, argv, needle, needle2);
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

int main(void) {
  clear_options();
  test_catch_errors();
  char *plain[] = {prog, NULL};

  env_fails("OP2_BACKEND", "nonsense",
            "option OP2_BACKEND=nonsense: unknown backend (choose one of: ", "seq");
  CHECK_CONTAINS(init_error, "openmp");
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
  /* Good values are taken, argv over the environment. */
  CHECK(setenv("OP2_BACKEND", "openmp", 1) == 0);
  CHECK(setenv("OP2_PART_SIZE", "7", 1) == 0);
  char *seq_argv[] = {prog, "OP2_BACKEND=seq", "OP2_PART_SIZE=3", NULL};
  init_works(3, seq_argv, "seq");
  clear_options();
  return 0;
}
