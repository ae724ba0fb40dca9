/* SPDX-License-Identifier: BSD-3-Clause */
/* Allocation failures the library must unwind from:
 * - op_init failing part way (each of its callocs fails in turn) leaves nothing running: a
 *   backend that had started (cuda-emu holds emulator state from its init) is finalised again
 *   before op_init returns its error;
 * - a loop's first call failing at each of its reallocs in turn (growing the lists of loops,
 *   plans, kernels...) leaves no plan behind once op_exit has run.
 * The sanitizer build also sees any leak.
 *
 * The test is linked with -Wl,--wrap=calloc,--wrap=realloc,--wrap=free (the library is static),
 * so the library's allocations go through the wrappers below; their counters are this test's. */
#include <errno.h>
#include <stdlib.h>

#include "test.h"
#include "runtime/op2_impl.h"

void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void __real_free(void *p);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);
void __wrap_free(void *p);

static int calloc_calls, calloc_fail_at; /* 0: never fail */
static int realloc_calls, realloc_fail_at;
enum { MAX_PLANS = 64 };
static void *live_plans[MAX_PLANS]; /* allocations of a plan's size not freed yet */

void *__wrap_calloc(size_t n, size_t size) {
  if (++calloc_calls == calloc_fail_at) {
    errno = ENOMEM;
    return NULL;
  }
  void *p = __real_calloc(n, size);
  if (p && n == 1 && size == sizeof(op2_plan)) {
    int k = 0;
    while (k < MAX_PLANS && live_plans[k]) k++;
    CHECK(k < MAX_PLANS);
    live_plans[k] = p;
  }
  return p;
}

void *__wrap_realloc(void *p, size_t size) {
  if (++realloc_calls == realloc_fail_at) {
    errno = ENOMEM;
    return NULL;
  }
  return __real_realloc(p, size);
}

void __wrap_free(void *p) {
  for (int k = 0; p && k < MAX_PLANS; k++)
    if (live_plans[k] == p) live_plans[k] = NULL;
  __real_free(p);
}

static int plans_alive(void) {
  int n = 0;
  for (int k = 0; k < MAX_PLANS; k++) n += live_plans[k] != NULL;
  return n;
}

static const char *inc_src =
    "void inc(const double *w, double *a, double *b) {\n"
    "  a[0] += w[0];\n"
    "  b[0] += w[0];\n"
    "}\n";

enum { NE = 1000, NN = NE + 1 };

/* The first call of an indirect-increment loop (it builds a plan) with the n-th realloc failing
 * (0: none); whether the call failed. */
static int first_indirect_loop(int n) {
  op_init(0, NULL, 0);
  CHECK(op2_ctx()->initialised);
  static int chain[2 * NE];
  static double w[NE];
  for (int e = 0; e < NE; e++) chain[2 * e] = e, chain[2 * e + 1] = e + 1, w[e] = e;
  op_set edges = op_decl_set(NE, "edges"), nodes = op_decl_set(NN, "nodes");
  op_map m = op_decl_map(edges, nodes, 2, chain, "chain");
  op_dat dw = op_decl_dat(edges, 1, "double", w, "w");
  op_dat dn = op_decl_dat(nodes, 1, "double", NULL, "n");
  realloc_calls = 0;
  realloc_fail_at = n;
  test_errors_expected = 1;
  test_errors_seen = 0;
  op_par_loop(inc_src, "inc", edges, op_arg_dat(dw, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(dn, 0, m, 1, "double", OP_INC), op_arg_dat(dn, 1, m, 1, "double", OP_INC));
  test_run_queued(); /* lazy execution: a queued call makes its loop and plan when it runs */
  test_errors_expected = 0;
  realloc_fail_at = 0;
  int failed = test_errors_seen > 0;
  if (failed) CHECK_CONTAINS(op_last_error(), "out of memory");
  op_exit();
  return failed;
}

static void plan_not_leaked_when_a_push_fails(void) {
  setenv("OP2_BACKEND", "seq", 1);
  CHECK(!first_indirect_loop(0));
  CHECK_EQ_INT(plans_alive(), 0);
  int during_call = realloc_calls, failed = 0;
  CHECK(during_call > 0);
  for (int n = 1; n <= during_call; n++) {
    failed += first_indirect_loop(n);
    if (plans_alive())
      fprintf(stderr, "realloc %d of the loop's first call failed and a plan leaked\n", n);
    CHECK_EQ_INT(plans_alive(), 0);
  }
  CHECK(failed > 0);
}

static void init_unwinds_backend(void) {
  setenv("OP2_BACKEND", "cuda-emu", 1);
  test_catch_errors();
  op2_ctx(); /* the context itself is not op_init's to allocate */

  calloc_calls = 0;
  op_init(0, NULL, 0);
  int during_init = calloc_calls;
  CHECK(op2_ctx()->initialised);
  op_exit();
  CHECK(during_init > 0);

  int failed = 0, last_failed = 0;
  for (int n = 1; n <= during_init; n++) {
    calloc_calls = 0;
    calloc_fail_at = n;
    test_errors_expected = 1;
    op_init(0, NULL, 0);
    test_errors_expected = 0;
    calloc_fail_at = 0;
    op2_context *ctx = op2_ctx();
    if (!ctx->initialised) {
      failed++;
      last_failed = n == during_init;
      if (ctx->backend_data)
        fprintf(stderr, "allocation %d of op_init failed and the backend was left running\n", n);
      CHECK(ctx->backend_data == NULL);
      CHECK_CONTAINS(op_last_error(), "out of memory");
    }
    op_exit();
  }
  CHECK(failed > 0);
  CHECK(last_failed); /* the JIT's state, allocated after the backend started */
}

int main(void) {
  init_unwinds_backend();
  plan_not_leaked_when_a_push_fails();
  return 0;
}
