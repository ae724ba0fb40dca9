/* SPDX-License-Identifier: BSD-3-Clause */
/* One rank misbehaves; every rank must end within a bounded time with the error, never wait for a
 * rank that went elsewhere. Usage: t494-rank-faults CASE (every rank installs an error handler
 * that returns, the case where ranks used to hang):
 *   decl-dat     op_decl_dat with an unknown type on rank 1: the call fails on every rank, and a
 *                correct declaration after it works everywhere (the run goes on to the end);
 *   decl-map     op_decl_map with a value out of range on rank 0: likewise;
 *   decl-extra   the last rank declares one dat more than the others: it is in op_decl_dat while
 *                the others are in the first loop (out of step);
 *   decl-h5 FILE the last rank declares a set from an HDF5 mesh (FILE) while the others declare
 *                it with op_decl_set, as when one rank is given the mesh in the other format;
 *   out-h5       op_fetch_data_hdf5_file with no file name on the last rank: the call fails on
 *                every rank (no file is left), and the run goes on;
 *   skip-loop    the last rank skips a loop the others run;
 *   extra-loop   rank 0 runs a loop the others do not;
 *   skip-reduce  the last rank skips a loop before a reduction (lazily its queued loops end
 *                there, the others' go on);
 *   early-exit   the last rank calls op_exit while the others run a loop;
 *                (for these four every rank gets one error naming both calls, and every later
 *                collective call fails at once: "not run"; lazily as eagerly: the calls are named
 *                and numbered as the program made them, not as the queued chain ran them);
 *   exit, exit0  the last rank calls exit(3), or exit(0) as a return from main would, in the
 *                middle of the run (without op_exit);
 *   sigkill      the last rank kills itself with SIGKILL;
 *   stuck        the last rank sleeps (OP2_MPI_TIMEOUT set by the test ends the wait);
 *   ckpt-init    op_checkpointing_init with a bad policy on the last rank: the call fails on every
 *                rank, checkpointing stays off everywhere and the run goes on;
 *   ckpt-skip    the last rank skips an op_checkpoint() the others make (out of step, as above).
 * Every rank that gets to the end prints "rank R: finished"; every error it got is printed as
 * "rank R: error: ...". Usage: t494-rank-faults CASE default: the same with the default handler,
 * whose exit must come on every rank once they agree (none gets to the end). */
#include <signal.h>

#include "mpi_test.h"

enum { NN = 200, NE = 450 };

KERNEL_TEXT(
    init_v, static void init_v(const double *x, double *v) { v[0] = 3.0 * x[0] - 0.5; })

KERNEL_TEXT(
    spread, static void spread(const double *va, const double *vb, double *ra, double *rb) {
      ra[0] += va[0] - vb[0];
      rb[0] += 0.25 * va[0] + vb[0];
    })

KERNEL_TEXT(
    zero, static void zero(double *r) { r[0] = 0.0; })

KERNEL_TEXT(
    total, static void total(const double *v, double *sum) { sum[0] += v[0]; })

static int errors_seen;
static char first_error[2048];

static void returning_handler(const char *message, void *user) {
  (void)user;
  fprintf(stderr, "rank %d: error: %s\n", mt_rank(), message);
  if (errors_seen++ == 0) snprintf(first_error, sizeof first_error, "%s", message);
}

typedef struct mesh {
  mt_set nodes, edges;
  op_map pedge;
  op_dat x, v, r;
} mesh;

static void init_v_call(mesh *m) {
  op_par_loop(init_v_src, "init_v", m->nodes.set, op_arg_dat(m->x, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(m->v, -1, OP_ID, 1, "double", OP_WRITE));
}

static void zero_call(mesh *m) {
  op_par_loop(zero_src, "zero", m->nodes.set, op_arg_dat(m->r, -1, OP_ID, 1, "double", OP_WRITE));
}

static void total_call(mesh *m) {
  double sum = 0;
  op_par_loop(total_src, "total", m->nodes.set, op_arg_dat(m->v, -1, OP_ID, 1, "double", OP_READ),
              op_arg_gbl(&sum, 1, "double", OP_INC));
}

static void spread_call(mesh *m) {
  op_par_loop(spread_src, "spread", m->edges.set,
              op_arg_dat(m->v, 0, m->pedge, 1, "double", OP_READ),
              op_arg_dat(m->v, 1, m->pedge, 1, "double", OP_READ),
              op_arg_dat(m->r, 0, m->pedge, 1, "double", OP_INC),
              op_arg_dat(m->r, 1, m->pedge, 1, "double", OP_INC));
}

/* The loops before the calls out of step, with a fetch between them (lazily it runs the queued
 * ones): the calls out of step come after a chain has run, with a loop queued before them, and
 * are numbered as eagerly all the same (the six declarations, zero, init_v, the fetch and init_v
 * again are calls 1-10; the calls out of step are call 11). */
static void loops_before(mesh *m) {
  double first;
  zero_call(m);
  init_v_call(m);
  op_fetch_data_idx(m->v, &first, 0, 0);
  init_v_call(m);
}

/* The errors this rank got since the last check: exactly `want`, the first containing `text`.
 * The calls queued by lazy execution run first (collective, as the program's next use of their
 * results would run them), so a loop's error comes where it would eagerly. */
static void expect_errors(int want, const char *text, const char *text2) {
  test_run_queued();
  if (errors_seen != want ||
      (want && (!strstr(first_error, text) || (text2 && !strstr(first_error, text2))))) {
    fprintf(stderr, "rank %d: %d errors (expected %d), the first: '%s' (expected '%s'%s%s)\n",
            mt_rank(), errors_seen, want, first_error, text, text2 ? " and " : "",
            text2 ? text2 : "");
    exit(1);
  }
  errors_seen = 0, first_error[0] = '\0';
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  CHECK(argc == 2 || argc == 3);
  const char *c = argv[1];
  int rank = mt_rank(), last = mt_size() - 1;
  /* "default" after the case: the default handler (each rank prints the error and exits 1) */
  int default_handler = argc == 3 && strcmp(argv[2], "default") == 0;
  if (!default_handler) op_set_error_handler(returning_handler, NULL);
  op_init(argc, argv, 0);
  if (strcmp(c, "decl-h5") == 0) {
    CHECK(argc == 3);
    op_set nodes = rank == last ? op_decl_set_hdf5(argv[2], "nodes") : op_decl_set(100, "nodes");
    CHECK(nodes == NULL);
    expect_errors(1, "called op_decl_set 'nodes'", "called op_decl_set_hdf5 'nodes'");
    op_decl_set(10, "cells"); /* every later collective call fails at once */
    expect_errors(1, "not run", "out of step");
    op_exit();
    expect_errors(1, "op_exit: not run", NULL);
    fprintf(stderr, "rank %d: finished\n", rank);
    MPI_Finalize();
    return 0;
  }
  mesh m;
  unsigned rng = rm_rng(494);
  m.nodes = mt_decl_set(MT_LOCAL, MT_SPLIT_SKEWED, NN, "nodes");
  m.edges = mt_decl_set(MT_LOCAL, MT_SPLIT_SKEWED, NE, "edges");
  int *en = rm_map_values(NE, 2, NN, 50, &rng);
  if (strcmp(c, "decl-map") == 0) {
    int saved = en[2 * m.edges.b.first];
    if (rank == 0 && m.edges.b.count > 0) en[2 * m.edges.b.first] = NN + 5;
    op_map bad = op_decl_map(m.edges.set, m.nodes.set, 2, en + 2 * m.edges.b.first, "pedge");
    CHECK(bad == NULL);
    expect_errors(1, "op_decl_map 'pedge'", rank == 0 ? "outside set" : "rank 0 failed in");
    en[2 * m.edges.b.first] = saved;
  }
  m.pedge = mt_decl_map(&m.edges, &m.nodes, 2, en, "pedge");
  double *xs = rm_doubles(NN, -1, 1, &rng);
  m.x = mt_decl_dat(&m.nodes, 1, "double", sizeof(double), xs, "x");
  if (strcmp(c, "decl-dat") == 0) {
    op_dat bad = op_decl_dat(m.nodes.set, 1, rank == 1 ? "doubel" : "double", NULL, "v");
    CHECK(bad == NULL);
    expect_errors(1, "op_decl_dat 'v'", rank == 1 ? "unknown type" : "rank 1 failed in");
  }
  m.v = mt_decl_dat(&m.nodes, 1, "double", sizeof(double), NULL, "v");
  m.r = mt_decl_dat(&m.nodes, 1, "double", sizeof(double), NULL, "r");
  int out_of_step = 1;
  if (strcmp(c, "decl-extra") == 0) {
    if (rank == last) op_decl_dat(m.nodes.set, 1, "double", NULL, "extra");
    zero_call(&m); /* the last rank: not run */
    expect_errors(rank == last ? 2 : 1, "called op_par_loop 'zero'", "called op_decl_dat 'extra'");
  } else if (strcmp(c, "skip-loop") == 0) {
    zero_call(&m);
    if (rank != last) init_v_call(&m);
    spread_call(&m); /* the others: not run */
    expect_errors(rank == last ? 1 : 2, "called op_par_loop 'init_v'",
                  "called op_par_loop 'spread'");
    spread_call(&m); /* every later collective call fails at once, never waits */
    expect_errors(1, "not run", "out of step");
  } else if (strcmp(c, "extra-loop") == 0) {
    loops_before(&m);
    if (rank == 0) zero_call(&m);
    spread_call(&m); /* rank 0: not run */
    expect_errors(rank == 0 ? 2 : 1, "rank 0 called op_par_loop 'zero' (its call 11)",
                  "called op_par_loop 'spread' (its call 11)");
  } else if (strcmp(c, "skip-reduce") == 0) {
    loops_before(&m);
    if (rank != last) zero_call(&m);
    total_call(&m); /* the last rank's queued loops end at it; the others: not run */
    expect_errors(rank == last ? 1 : 2, "rank 0 called op_par_loop 'zero' (its call 11)",
                  "called op_par_loop 'total' (its call 11)");
  } else if (strcmp(c, "early-exit") == 0) {
    loops_before(&m);
    if (rank == last) {
      op_exit();
      expect_errors(1, "rank 0 called op_par_loop 'spread' (its call 11)",
                    "called op_exit (its call 11)");
      fprintf(stderr, "rank %d: finished\n", rank);
      free(xs), free(en);
      MPI_Finalize();
      return 0;
    }
    spread_call(&m);
    expect_errors(1, "rank 0 called op_par_loop 'spread' (its call 11)",
                  "called op_exit (its call 11)");
  } else if (strcmp(c, "ckpt-skip") == 0) {
    char dir[4096], file[4200];
    mt_scratch_dir(dir, sizeof dir);
    snprintf(file, sizeof file, "%s/ck.h5", dir);
    CHECK(op_checkpointing_init(file, "manual") == 0);
    expect_errors(0, "", NULL);
    zero_call(&m);
    init_v_call(&m);
    if (rank != last) op_checkpoint();
    spread_call(&m); /* the others: not run */
    expect_errors(rank == last ? 1 : 2, "called op_checkpoint", "called op_par_loop 'spread'");
    mt_scratch_remove(dir);
  } else if (strcmp(c, "ckpt-init") == 0) {
    out_of_step = 0;
    char dir[4096], file[4200];
    mt_scratch_dir(dir, sizeof dir);
    snprintf(file, sizeof file, "%s/ck.h5", dir);
    CHECK(op_checkpointing_init(file, rank == last ? "every:3" : "manual") == 0);
    expect_errors(1, rank == last ? "op_checkpointing_init" : "ck.h5",
                  rank == last ? "every:3" : "rank");
    zero_call(&m);
    init_v_call(&m);
    op_checkpoint(); /* off on every rank: nothing to agree on, nothing written */
    spread_call(&m);
    expect_errors(0, "", NULL);
    struct stat st;
    CHECK(stat(file, &st) != 0);
    CHECK(mt_scratch_remove(dir) == 0);
  } else if (strcmp(c, "out-h5") == 0) {
    out_of_step = 0;
    zero_call(&m);
    init_v_call(&m);
    spread_call(&m);
    char dir[4096], file[4200];
    mt_scratch_dir(dir, sizeof dir);
    snprintf(file, sizeof file, "%s/r.h5", dir);
    op_fetch_data_hdf5_file(m.r, rank == last ? NULL : file);
    expect_errors(1, "op_fetch_data_hdf5_file", rank == last ? "is NULL" : "failed in");
    CHECK(mt_scratch_remove(dir) == 0);
  } else {
    out_of_step = 0;
    zero_call(&m);
    init_v_call(&m);
    if (rank == last && strcmp(c, "exit") == 0) exit(3);
    if (rank == last && strcmp(c, "exit0") == 0) exit(0); /* as a return from main would */
    if (rank == last && strcmp(c, "sigkill") == 0) kill(getpid(), SIGKILL);
    if (rank == last && strcmp(c, "stuck") == 0) sleep(60);
    spread_call(&m);
    expect_errors(0, "", NULL);
  }
  double *got = rm_alloc(sizeof(double) * NN);
  op_fetch_data_idx(m.r, got, 0, NN - 1);
  if (out_of_step)
    expect_errors(1, "not run", "out of step");
  else
    expect_errors(0, "", NULL);
  free(got);
  op_exit();
  expect_errors(out_of_step, "op_exit: not run", NULL);
  fprintf(stderr, "rank %d: finished\n", rank);
  free(xs), free(en);
  MPI_Finalize();
  return 0;
}
