/* SPDX-License-Identifier: BSD-3-Clause */
/* OP2's timing calls: op_timing_output_2_file writes op_timing_output's table to a file,
 * op_timings_to_csv one CSV row per loop and rank in OP2's columns, and op_profile_* times
 * nested sections (calls counted, inner sections no longer than outer ones). Rank 0 writes. */
#include <time.h>

#include "capture.h"

static const char *inc_src = "static void inc(double *v) { v[0] += 1.0; }\n";
static const char *twice_src = "static void twice(double *v) { v[0] *= 2.0; }\n";

static void pause_ms(int ms) {
  struct timespec t = {0, ms * 1000000L};
  nanosleep(&t, NULL);
}

/* The calls and `total (s)` columns of a section's line. */
static double section_total(const char *table, const char *path, long want_calls) {
  char key[128];
  snprintf(key, sizeof key, "\n  %s ", path);
  const char *at = strstr(table, key);
  CHECK(at != NULL);
  long calls;
  double total;
  CHECK(sscanf(at + strlen(key), "%ld %lf", &calls, &total) == 2);
  CHECK_EQ_INT(calls, want_calls);
  return total;
}

int main(int argc, char **argv) {
  test_catch_errors();
  op_init(argc, argv, 0);
  int ranks = 1;
  char *env = getenv("OMPI_COMM_WORLD_SIZE");
  if (env) ranks = atoi(env);
  op_set s = op_decl_set(100, "s");
  op_dat dv = op_decl_dat(s, 1, "double", NULL, "v");

  op_profile_start("run");
  for (int it = 0; it < 3; it++) {
    op_profile_enter("iteration");
    op_profile_enter("inc_phase");
    op_par_loop(inc_src, "inc", s, op_arg_dat(dv, -1, OP_ID, 1, "double", OP_RW));
    pause_ms(2);
    op_profile_next("twice_phase");
    op_par_loop(twice_src, "twice", s, op_arg_dat(dv, -1, OP_ID, 1, "double", OP_RW));
    op_profile_exit();
    op_profile_exit();
  }
  op_par_loop(inc_src, "inc", s, op_arg_dat(dv, -1, OP_ID, 1, "double", OP_RW));
  op_profile_end();
  capture c;
  capture_begin(&c, 1);
  op_profile_output();
  char *table = capture_end(&c);
  if (op_is_root()) {
    double run = section_total(table, "run", 1), iter = section_total(table, "run/iteration", 3);
    double inc = section_total(table, "run/iteration/inc_phase", 3);
    section_total(table, "run/iteration/twice_phase", 3);
    CHECK(inc >= 0.006 && iter >= inc && run >= iter);
  } else {
    CHECK(strcmp(table, "") == 0);
  }
  free(table);
  EXPECT_ERROR(op_profile_exit(), "op_profile_exit: no section is open");

  char path[64];
  snprintf(path, sizeof path, "/tmp/t734-%d.txt", (int)getpid());
  op_timing_output_2_file(path);
  if (op_is_root()) {
    char *text = read_whole_file(path, NULL);
    CHECK(text != NULL);
    CHECK_CONTAINS(text, "inc ");
    CHECK_CONTAINS(text, "twice ");
    CHECK_CONTAINS(text, "total");
    free(text);
  }
  op_timings_to_csv(path);
  if (op_is_root()) {
    char *csv = read_whole_file(path, NULL);
    CHECK(csv != NULL);
    const char *head =
        "rank,thread,nranks,nthreads,count,total time,plan time,mpi time,GB used,"
        "GB total,kernel name\n";
    CHECK(strncmp(csv, head, strlen(head)) == 0);
    for (int r = 0; r < ranks; r++) {
      char row[64];
      snprintf(row, sizeof row, "\n%d,0,%d,1,4,", r, ranks);
      CHECK_CONTAINS(csv, row); /* inc: 4 calls on every rank */
      snprintf(row, sizeof row, "\n%d,0,%d,1,3,", r, ranks);
      CHECK_CONTAINS(csv, row); /* twice: 3 */
    }
    CHECK_CONTAINS(csv, ",inc\n");
    CHECK_CONTAINS(csv, ",twice\n");
    free(csv);
    unlink(path);
  }
  EXPECT_ERROR(op_timings_to_csv("/nonexistent-dir/t.csv"),
               "op_timings_to_csv: cannot write /nonexistent-dir/t.csv");
  /* Rank 0 opens the file but the writes fail (a full device): an error on every rank too. */
  if (access("/dev/full", W_OK) == 0) {
    EXPECT_ERROR(op_timings_to_csv("/dev/full"), "op_timings_to_csv: writing /dev/full failed");
    EXPECT_ERROR(op_timing_output_2_file("/dev/full"),
                 "op_timing_output_2_file: writing /dev/full failed");
  }
  op_exit();
  return 0;
}
