/* SPDX-License-Identifier: BSD-3-Clause */
/* Auto-tuning (OP2_TUNE): each case is a fresh process (fork) over the same cache directory.
 * A first run tunes and writes records; a second reads them and runs no trial; OP2_TUNE=reset
 * discards them; a corrupt, a foreign and a group-writable record are ignored with a warning
 * at OP2_DIAGS=1 and the loop is tuned again; OP2_TUNE=off reads nothing. Every run's results
 * equal plain C: bit for bit on seq, within 1e-12 on the other backends (the tuned parameters
 * reorder increments and reduction partials only). A loop writing through a map with OP_RW is
 * never tuned. Run with OP2_BACKEND from meson (seq, openmp with 2 threads, cuda-emu). */
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "runtime/op2_impl.h"

enum { NE = 8192, CALLS = 30 };

static const char *inc_src =
    "void spread(const double *w, double *a, double *b, double *sum) {\n"
    "  a[0] += 0.5 * w[0]; b[0] += 0.25 * w[0]; *sum += w[0];\n"
    "}\n";
static const char *scale_src = "void scale(double *y) { y[0] = 0.999 * y[0] + 0.001; }\n";
static const char *rw_src = "void touch(double *a) { a[0] = 2.0 * a[0] - 1.0; }\n";

typedef struct result {
  int read, written, ignored, tuned;
  long trials;
  int touch_tuned; /* the OP_RW-through-map loop got a tuning source other than "not tuned" */
  double y[NE], sum;
} result;

static char cache[4096], tune_dir[4200];

static void plain_c(int *map, double *w, double *y, double *sum) {
  for (int c = 0; c < CALLS; c++) {
    for (int e = 0; e < NE; e++) {
      y[map[2 * e]] += 0.5 * w[e];
      y[map[2 * e + 1]] += 0.25 * w[e];
      *sum += w[e];
    }
    for (int n = 0; n < NE; n++) y[n] = 0.999 * y[n] + 0.001;
  }
}

static void mesh(int *map, double *w, double *y) {
  for (int e = 0; e < NE; e++) {
    map[2 * e] = e, map[2 * e + 1] = (int)((e * 37L + 11) % NE);
    w[e] = 1.0 / (1 + e % 13) - 0.07;
    y[e] = 0.01 * (e % 5);
  }
}

/* One program run with OP2_TUNE=mode; its counters and results come back through a pipe. */
static void run_child(const char *mode, int diags, int out) {
  setenv("OP2_TUNE", mode, 1);
  static int map[2 * NE];
  static double w[NE];
  static result r;
  mesh(map, w, r.y);
  op_init(0, NULL, diags);
  op_set edges = op_decl_set(NE, "edges"), nodes = op_decl_set(NE, "nodes");
  op_map e2n = op_decl_map(edges, nodes, 2, map, "e2n");
  op_dat dw = op_decl_dat(edges, 1, "double", w, "w");
  op_dat dy = op_decl_dat(nodes, 1, "double", r.y, "y");
  static double scratch[NE];
  op_dat dz = op_decl_dat(nodes, 1, "double", scratch, "z");
  for (int c = 0; c < CALLS; c++) {
    op_par_loop(inc_src, "spread", edges, op_arg_dat(dw, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(dy, 0, e2n, 1, "double", OP_INC),
                op_arg_dat(dy, 1, e2n, 1, "double", OP_INC),
                op_arg_gbl(&r.sum, 1, "double", OP_INC));
    op_par_loop(scale_src, "scale", nodes, op_arg_dat(dy, -1, OP_ID, 1, "double", OP_RW));
    op_par_loop(rw_src, "touch", edges, op_arg_dat(dz, 1, e2n, 1, "double", OP_RW));
  }
  op_fetch_data(dy, r.y);
  op2_context *ctx = op2_ctx();
  r.read = ctx->tune.records_read, r.written = ctx->tune.records_written;
  r.ignored = ctx->tune.records_ignored, r.tuned = ctx->tune.loops_tuned;
  r.trials = ctx->tune.trial_calls;
  op2_loop_stats *s = op2_stats_for(ctx, "touch");
  r.touch_tuned = s->tune_source != OP2_TUNED_NOT || s->tune_calls != 0;
  op_exit();
  CHECK(write(out, &r, sizeof r) == (ssize_t)sizeof r);
  fflush(NULL); /* _exit flushes nothing */
  _exit(0);
}

/* Runs a child; its stderr goes to `err_path` when given. */
static void run(const char *mode, int diags, const char *err_path, result *r) {
  int fd[2];
  CHECK(pipe(fd) == 0);
  fflush(stdout), fflush(stderr);
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    close(fd[0]);
    if (err_path) CHECK(freopen(err_path, "w", stderr) != NULL);
    run_child(mode, diags, fd[1]);
  }
  close(fd[1]);
  size_t got = 0;
  for (ssize_t n; got < sizeof *r && (n = read(fd[0], (char *)r + got, sizeof *r - got)) > 0;)
    got += (size_t)n;
  close(fd[0]);
  int status = 0;
  CHECK(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK_EQ_INT(got, sizeof *r);
}

static int count_records(void) {
  DIR *d = opendir(tune_dir);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));) n += strstr(e->d_name, ".json") != NULL;
  if (d) closedir(d);
  return n;
}

/* Applies `edit` to every record's text and writes it back in place. */
static void edit_records(void (*edit)(char *text, size_t cap)) {
  DIR *d = opendir(tune_dir);
  CHECK(d != NULL);
  for (struct dirent *e; (e = readdir(d));) {
    if (!strstr(e->d_name, ".json")) continue;
    char path[4600], text[65536] = "";
    snprintf(path, sizeof path, "%s/%s", tune_dir, e->d_name);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    fclose(f);
    edit(text, sizeof text);
    f = fopen(path, "w");
    CHECK(f != NULL);
    fputs(text, f);
    fclose(f);
  }
  closedir(d);
}

static void corrupt(char *text, size_t cap) {
  snprintf(text, cap, "{\"op2_tune\": 1, \"loop\": ");
}

static void foreign(char *text, size_t cap) {
  (void)cap;
  char *cpu = strstr(text, "\"cpu\"");
  CHECK(cpu != NULL);
  char *q = strchr(cpu + 5, '"');
  CHECK(q != NULL);
  q[1] = q[1] == 'X' ? 'Y' : 'X'; /* another machine's record */
}

static void make_group_writable(void) {
  DIR *d = opendir(tune_dir);
  CHECK(d != NULL);
  for (struct dirent *e; (e = readdir(d));) {
    if (!strstr(e->d_name, ".json")) continue;
    char path[4600];
    snprintf(path, sizeof path, "%s/%s", tune_dir, e->d_name);
    CHECK(chmod(path, 0664) == 0);
  }
  closedir(d);
}

/* Whether a line of the file holds `what` (diagnostics are one line each). */
static int file_has(const char *path, const char *what) {
  FILE *f = fopen(path, "r");
  CHECK(f != NULL);
  char line[8192];
  int found = 0;
  while (!found && fgets(line, sizeof line, f)) found = strstr(line, what) != NULL;
  fclose(f);
  return found;
}

static void check_results(const result *r, const double *ref_y, double ref_sum, int bitwise) {
  CHECK(!r->touch_tuned);
  for (int n = 0; n < NE; n++) {
    if (bitwise)
      CHECK(memcmp(&r->y[n], &ref_y[n], sizeof(double)) == 0);
    else
      CHECK_NEAR(r->y[n], ref_y[n], 1e-12);
  }
  if (bitwise)
    CHECK(memcmp(&r->sum, &ref_sum, sizeof(double)) == 0);
  else
    CHECK_NEAR(r->sum, ref_sum, 1e-12);
}

/* op2-cache list shows the records: one line for the tuned loop. */
static void check_tool_lists(const char *tool) {
  char cmd[9000], line[1024];
  snprintf(cmd, sizeof cmd, "'%s' --dir '%s' list", tool, cache);
  FILE *p = popen(cmd, "r");
  CHECK(p != NULL);
  int header = 0, spread = 0;
  while (fgets(line, sizeof line, p)) {
    header |= strstr(line, "tuning records") != NULL;
    spread |= strstr(line, "spread") && strstr(line, "set size 8192");
  }
  CHECK_EQ_INT(pclose(p), 0);
  CHECK(header && spread);
}

int main(int argc, char **argv) {
  const char *c = getenv("OP2_CACHE_DIR"), *backend = getenv("OP2_BACKEND");
  CHECK(c != NULL && backend != NULL);
  snprintf(cache, sizeof cache, "%s", c);
  snprintf(tune_dir, sizeof tune_dir, "%s/tune", cache);
  int seq = strcmp(backend, "seq") == 0;
  static int map[2 * NE];
  static double w[NE], ref_y[NE];
  double ref_sum = 0;
  mesh(map, w, ref_y);
  plain_c(map, w, ref_y, &ref_sum);
  static result r;
  char err[4400];
  snprintf(err, sizeof err, "%s.stderr", cache);

  /* A first run tunes (reset: records of an earlier test run are gone first). */
  run("reset", 0, NULL, &r);
  check_results(&r, ref_y, ref_sum, seq);
  if (seq) { /* nothing to tune: the reference stays the reference */
    CHECK_EQ_INT(r.tuned, 0);
    CHECK_EQ_INT(r.trials, 0);
    CHECK_EQ_INT(count_records(), 0);
    run("on", 0, NULL, &r);
    CHECK_EQ_INT(r.read + r.written + r.tuned + r.trials, 0);
    check_results(&r, ref_y, ref_sum, 1);
    printf("t112-tune: seq: nothing tuned, results bit for bit\n");
    return 0;
  }
  CHECK(r.tuned >= 1);
  CHECK(r.trials >= 2L * 3);
  CHECK_EQ_INT(r.written, r.tuned);
  int records = count_records();
  CHECK_EQ_INT(records, r.tuned);
  int tuned = r.tuned;
  if (argc > 1) check_tool_lists(argv[1]);

  /* A second process starts from the records: no trial. */
  run("on", 0, NULL, &r);
  check_results(&r, ref_y, ref_sum, 0);
  CHECK_EQ_INT(r.read, tuned);
  CHECK_EQ_INT(r.trials, 0);
  CHECK_EQ_INT(r.tuned + r.written + r.ignored, 0);

  /* OP2_TUNE=off reads nothing and tries nothing. */
  run("off", 0, NULL, &r);
  check_results(&r, ref_y, ref_sum, 0);
  CHECK_EQ_INT(r.read + r.trials + r.tuned, 0);

  /* Records that are corrupt, of another machine, or writable by others are ignored, with a
   * warning naming why, and the loop is tuned again (the record rewritten). */
  struct {
    const char *what, *warning;
  } bad[] = {{"corrupt", "not a tuning record"},
             {"foreign", "another machine"},
             {"group-writable", "writable by others"}};
  for (int b = 0; b < 3; b++) {
    if (b == 0) edit_records(corrupt);
    if (b == 1) edit_records(foreign);
    if (b == 2) make_group_writable();
    run("on", 1, err, &r);
    check_results(&r, ref_y, ref_sum, 0);
    if (r.ignored != tuned || r.read != 0 || r.tuned != tuned || !file_has(err, bad[b].warning)) {
      fprintf(stderr, "t112-tune: %s record: ignored %d, read %d, tuned %d (expected %d)\n",
              bad[b].what, r.ignored, r.read, r.tuned, tuned);
      exit(1);
    }
    CHECK(file_has(err, "ignored"));
    if (b == 2) { /* rewritten privately: read again */
      run("on", 0, NULL, &r);
      CHECK_EQ_INT(r.read, tuned);
      CHECK_EQ_INT(r.ignored, 0);
    }
  }

  /* OP2_TUNE=reset discards the records: the loops are tuned again. */
  run("reset", 1, err, &r);
  CHECK(file_has(err, "removed"));
  CHECK_EQ_INT(r.read, 0);
  CHECK_EQ_INT(r.ignored, 0);
  CHECK_EQ_INT(r.tuned, tuned);
  check_results(&r, ref_y, ref_sum, 0);
  remove(err);
  printf("t112-tune: %s: %d loop(s) tuned, records read, reset and refused as expected\n", backend,
         tuned);
  return 0;
}
