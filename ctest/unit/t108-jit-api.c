/* SPDX-License-Identifier: BSD-3-Clause */
/* jit/ used as the lower layer it is, without op_init and without the runtime's structures: a
 * loop description and a request give a kernel that runs, a second request reuses it, and a
 * kernel that does not compile comes back as a recorded failure that jit/ itself never reports
 * (the caller reports it once). */
#include "test.h"
#include "jit/jit_internal.h" /* white-box: the jit layer's internals */

static int diags_seen;
static void count_diag(int level, const char *msg) {
  (void)level, (void)msg;
  diags_seen++;
}

static const op2_arg_desc args[2] = {
    {.kind = OP2_ARG_DAT,
     .acc = OP_READ,
     .type = OP2_TYPE_DOUBLE,
     .dim = 1,
     .idx = -1,
     .map_group = -1,
     .dat_group = 0},
    {.kind = OP2_ARG_DAT,
     .acc = OP_WRITE,
     .type = OP2_TYPE_DOUBLE,
     .dim = 1,
     .idx = -1,
     .map_group = -1,
     .dat_group = 1},
};

int main(void) {
  test_catch_errors();
  op2_jit_config cfg = {.mode = OP2_JIT_TCC, .cache_mode = OP2_CACHE_OFF, .diag = count_diag};
  op2_jit *jit;
  CHECK_EQ_INT(op2_jit_create(&cfg, &jit), OP2_OK);

  double scale_value = 3.0;
  op2_const scale = {.name = "scale", .type = OP2_TYPE_DOUBLE, .dim = 1, .data = &scale_value};
  op2_const *consts[] = {&scale};
  const op2_loop_desc twice = {"twice", 2, args, consts, 1};
  op2_jit_request rq = {.loop = &twice,
                        .kernel_src =
                            "static inline void twice(const double *a, double *b) {\n"
                            "  b[0] = 2.0 * scale * a[0];\n}\n",
                        .target = OP2_TARGET_C};
  op2_jit_result res;
  CHECK_EQ_INT(op2_jit_kernel(jit, &rq, &res), OP2_OK);
  op2_kernel *k = res.kernel;
  CHECK(k && res.fresh);
  CHECK_EQ_INT(res.counts.compiles, 1);
  CHECK_EQ_INT(op2_kernel_origin_of(k), OP2_FROM_COMPILE);
  CHECK_EQ_INT(op2_kernel_tier(k), OP2_TIER_TCC);

  double a[4] = {1, 2, 3, 4}, b[4] = {0};
  void *ptrs[2] = {a, b};
  const int *maps[2] = {NULL, NULL};
  op2_kernel_entry(k)(ptrs, maps, 0, 4);
  for (int i = 0; i < 4; i++) CHECK_NEAR(b[i], 6.0 * a[i], 0);

  /* The caller's kernels are looked at first: the same source gives the same kernel. */
  rq.loaded = &k, rq.nloaded = 1;
  CHECK_EQ_INT(op2_jit_kernel(jit, &rq, &res), OP2_OK);
  CHECK(res.kernel == k && !res.fresh);
  CHECK_EQ_INT(res.counts.compiles, 0);

  /* A compile error: recorded with the message the user would see, reported by nobody here. */
  const op2_loop_desc broken = {"broken", 2, args, consts, 1};
  op2_jit_request bad = {.loop = &broken,
                         .kernel_src = "void broken(const double *a, double *b) { b[0] = ; }\n",
                         .target = OP2_TARGET_C};
  CHECK_EQ_INT(op2_jit_kernel(jit, &bad, &res), OP2_ERR_JIT);
  CHECK(res.kernel == NULL);
  const op2_jit_error *e = op2_jit_failure(jit);
  CHECK_EQ_INT(e->code, OP2_ERR_JIT);
  CHECK_CONTAINS(e->msg, "op_par_loop 'broken': the kernel does not compile");
  CHECK_CONTAINS(e->file, "jit/ladder.c");
  CHECK_EQ_INT(test_errors_seen, 0);
  CHECK_EQ_INT(diags_seen, 0); /* diags level 0: nothing formatted, nothing printed */

  /* The first failure stays until the caller has taken it. */
  CHECK_EQ_INT(op2_jit_fail(jit, OP2_ERR_IO, "later"), OP2_ERR_IO);
  CHECK_CONTAINS(e->msg, "broken");
  op2_jit_failure_clear(jit);
  CHECK_EQ_INT(op2_jit_failure(jit)->code, OP2_OK);

  /* Every target is a row of the target table: one it does not have is refused by name. */
  op2_jit_request unknown = rq;
  unknown.target = (op2_target_id)42;
  CHECK_EQ_INT(op2_jit_kernel(jit, &unknown, &res), OP2_ERR_ARG);
  CHECK(res.kernel == NULL);
  CHECK_CONTAINS(op2_jit_failure(jit)->msg, "op_par_loop 'twice': this build has no target 42");
  op2_jit_failure_clear(jit);

  op2_jit_counters cnt = {0};
  op2_jit_shutdown(jit, &k, 1, &cnt);
  op2_kernel_free(k);
  op2_jit_destroy(jit);
  return 0;
}
