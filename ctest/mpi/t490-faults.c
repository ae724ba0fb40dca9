/* SPDX-License-Identifier: BSD-3-Clause */
/* A failure on one rank inside collective work must make every rank stop (default handler) or
 * return an error (a handler that returns), never leave the others waiting. The failure comes
 * from OP2_FAULT=STEP:RANK (set by the test's environment: distribute, halo, exchange, validate or
 * node-build) or, with step "dim", from an argument whose dim is wrong on the last rank only.
 * Usage: t490-faults STEP default|returning
 *   default    the first failing call must not return on any rank (each prints the error and
 *              exits 1); t490-check reads every rank's output and the exit status;
 *   returning  every rank gets one error from the failing call, then the same program goes on:
 *              the next calls run on every rank and compute what plain C computes; except after
 *              a failed halo build (the elements had begun to move): there every later loop and
 *              fetch must fail with an error that says the mesh is broken, on every rank.
 * node-build is no error (the node's other ranks stay on TinyCC code for the failed build):
 * every rank must stop waiting for it and finish. Every rank prints "rank R: finished" when it gets
 * to the end. */
#include "mpi_test.h"
#include "runtime/op2_impl.h"

enum { NN = 300, NE = 700 };

KERNEL(
    init_v, static void init_v(const double *x, double *v) { v[0] = 3.0 * x[0] - 0.5; })

KERNEL(
    spread, static void spread(const double *va, const double *vb, double *ra, double *rb) {
      ra[0] += va[0] - vb[0];
      rb[0] += 0.25 * va[0] + vb[0];
    })

KERNEL_TEXT(
    zero, static void zero(double *r) { r[0] = 0.0; })

static int errors_seen;
static char first_error[2048];

static void returning_handler(const char *message, void *user) {
  (void)user;
  if (errors_seen++ == 0) snprintf(first_error, sizeof first_error, "%s", message);
}

typedef struct mesh {
  mt_set nodes, edges;
  op_map pedge;
  op_dat x, v, r;
  double *xs, *vs, *rs;
  int *en;
} mesh;

static void init_v_call(mesh *m, int dim) {
  op_par_loop(init_v_src, "init_v", m->nodes.set, op_arg_dat(m->x, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(m->v, -1, OP_ID, dim, "double", OP_WRITE));
}

static void spread_call(mesh *m) {
  op_par_loop(spread_src, "spread", m->edges.set,
              op_arg_dat(m->v, 0, m->pedge, 1, "double", OP_READ),
              op_arg_dat(m->v, 1, m->pedge, 1, "double", OP_READ),
              op_arg_dat(m->r, 0, m->pedge, 1, "double", OP_INC),
              op_arg_dat(m->r, 1, m->pedge, 1, "double", OP_INC));
}

/* The same two loops in plain C on the whole mesh. */
static void reference(mesh *m) {
  for (int n = 0; n < NN; n++) init_v(m->xs + n, m->vs + n);
  for (int e = 0; e < NE; e++)
    spread(m->vs + m->en[2 * e], m->vs + m->en[2 * e + 1], m->rs + m->en[2 * e],
           m->rs + m->en[2 * e + 1]);
}

/* The call that fails on one rank: the first loop for distribution, validation and a wrong dim;
 * the loop reading v through the map (after init_v wrote it) for the halo exchange. */
static void failing_call(mesh *m, const char *step) {
  if (strcmp(step, "exchange") == 0) {
    init_v_call(m, 1);
    spread_call(m);
  } else {
    init_v_call(m, strcmp(step, "dim") == 0 && mt_rank() == mt_size() - 1 ? 2 : 1);
  }
  test_run_queued(); /* lazy execution: the calls run (and fail) now */
}

/* After a halo build failed half way, the next loop and fetch are refused, every time. */
static void refused_after_broken_mesh(mesh *m) {
  double *out = rm_alloc(sizeof(double) * NN);
  for (int attempt = 0; attempt < 2; attempt++) {
    errors_seen = 0, first_error[0] = '\0';
    init_v_call(m, 1);
    test_run_queued();
    CHECK(errors_seen == 1 && strstr(first_error, "distribution failed earlier") != NULL);
    errors_seen = 0, first_error[0] = '\0';
    op_fetch_data(m->x, out);
    CHECK(errors_seen == 1 && strstr(first_error, "distribution failed earlier") != NULL);
  }
  free(out);
}

static int any_awaiting(void) {
  op2_context *ctx = op2_ctx();
  for (int i = 0; i < ctx->kernels.count; i++)
    if (op2_kernel_awaiting_peer(ctx->kernels.items[i])) return 1;
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  CHECK(argc == 3);
  const char *step = argv[1];
  int returning = strcmp(argv[2], "returning") == 0;
  char dir[4096];
  mt_fresh_cache(dir, sizeof dir); /* the node build must really run */
  if (returning) op_set_error_handler(returning_handler, NULL);
  op_init(argc, argv, 0);
  mesh m;
  unsigned rng = rm_rng(490);
  m.nodes = mt_decl_set(MT_LOCAL, MT_SPLIT_SKEWED, NN, "nodes");
  m.edges = mt_decl_set(MT_LOCAL, MT_SPLIT_SKEWED, NE, "edges");
  m.en = rm_map_values(NE, 2, NN, 50, &rng);
  m.pedge = mt_decl_map(&m.edges, &m.nodes, 2, m.en, "pedge");
  m.xs = rm_doubles(NN, -1, 1, &rng);
  m.vs = rm_alloc(sizeof(double) * NN);
  m.rs = rm_alloc(sizeof(double) * NN);
  m.x = mt_decl_dat(&m.nodes, 1, "double", sizeof(double), m.xs, "x");
  m.v = mt_decl_dat(&m.nodes, 1, "double", sizeof(double), NULL, "v");
  m.r = mt_decl_dat(&m.nodes, 1, "double", sizeof(double), NULL, "r");

  if (strcmp(step, "node-build") == 0) {
    /* No error: the builder's optimised build fails, and the followers must learn it (and stop
     * waiting) from the builder, not time out. Bounded by the test's timeout. */
    int waiting = 1;
    while (waiting) {
      init_v_call(&m, 1);
      spread_call(&m);
      test_run_queued(); /* lazy execution: the calls compile and run now */
      reference(&m);
      int mine = any_awaiting();
      MPI_Allreduce(&mine, &waiting, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    }
    /* The fault fails the builder's first build: a follower stays on its TinyCC code for that
     * kernel, and never compiled optimised code itself. Which kernel it is depends on timing:
     * the builder takes the queued kernel with most time on TinyCC code, init_v or spread. */
    op2_context *ctx = op2_ctx();
    int tcc = 0;
    for (int i = 0; i < ctx->kernels.count; i++)
      tcc += op2_kernel_tier(ctx->kernels.items[i]) == OP2_TIER_TCC;
    CHECK(ctx->mpi.node_rank == 0 || (tcc == 1 && ctx->jit.cc_compiles == 0));
  } else {
    failing_call(&m, step);
    /* Only a returning handler gets here. */
    CHECK(returning);
    if (errors_seen != 1) {
      fprintf(stderr, "rank %d: %d errors from the failing call, expected 1\n", mt_rank(),
              errors_seen);
      exit(1);
    }
    fprintf(stderr, "rank %d: error returned: %s\n", mt_rank(), first_error);
    if (strcmp(step, "halo") == 0) {
      CHECK(strstr(first_error, "failure injected by OP2_FAULT") != NULL);
      refused_after_broken_mesh(&m);
    } else {
      /* The program goes on: the same calls now succeed on every rank (a failed loop leaves its
       * written dats undefined: r starts again from zero). */
      op_par_loop(zero_src, "zero", m.nodes.set, op_arg_dat(m.r, -1, OP_ID, 1, "double", OP_WRITE));
      failing_call(&m, "none");
      spread_call(&m);
      test_run_queued();
      CHECK(errors_seen == 1);
      reference(&m);
    }
  }
  if (strcmp(step, "halo") != 0) {
    double *got = mt_fetch_all(m.r, NN, sizeof(double));
    mt_check_doubles(got, m.rs, NN, 1e-12, "r");
    free(got);
  }
  fprintf(stderr, "rank %d: finished\n", mt_rank());
  free(m.xs), free(m.vs), free(m.rs), free(m.en);
  op_exit();
  mt_remove_cache(dir);
  MPI_Finalize();
  return 0;
}
