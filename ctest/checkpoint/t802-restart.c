/* SPDX-License-Identifier: BSD-3-Clause */
/* Restart through the public API, in one process: a reference run; a run that checkpoints at
 * every step and stops (as if killed) after K steps; a restarted run of the whole program, whose
 * reductions of every kind (INC, MIN, MAX) and type (double, float, int) and whose final data
 * must equal the reference's bit for bit. Then the errors: another program, a bad policy, a late
 * op_checkpointing_init, OP2_RESTART naming no file. Usage: t802-restart WORKDIR */
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"

enum { N = 97, STEPS = 12, K = 7 };

static const char *step_src =
    "void evolve(double *v, float *w, int *k, double *dsum, double *dmin, double *dmax,\n"
    "          float *fsum, float *fmin, float *fmax, int *isum, int *imin, int *imax) {\n"
    "  v[0] = v[0] * scale + 0.25 * k[0];\n"
    "  w[0] = w[0] * 0.5f + (float)v[0];\n"
    "  k[0] = (k[0] * 7 + 3) % 101 - 50;\n"
    "  *dsum += v[0]; *dmin = v[0] < *dmin ? v[0] : *dmin; *dmax = v[0] > *dmax ? v[0] : *dmax;\n"
    "  *fsum += w[0]; *fmin = w[0] < *fmin ? w[0] : *fmin; *fmax = w[0] > *fmax ? w[0] : *fmax;\n"
    "  *isum += k[0]; *imin = k[0] < *imin ? k[0] : *imin; *imax = k[0] > *imax ? k[0] : *imax;\n"
    "}\n";

typedef struct results {
  double d[STEPS][3];
  float f[STEPS][3];
  int i[STEPS][3];
  double v[N];
  float w[N];
  int k[N];
} results;

static op_set nodes;
static op_dat dv, dw, dk;

static void declare(void) {
  nodes = op_decl_set(N, "nodes");
  double v[N];
  float w[N];
  int k[N];
  for (int e = 0; e < N; e++) v[e] = 0.37 * e - 3, w[e] = (float)e / 3, k[e] = (e * 13) % 17;
  dv = op_decl_dat(nodes, 1, "double", v, "v");
  dw = op_decl_dat(nodes, 1, "float", w, "w");
  dk = op_decl_dat(nodes, 1, "int", k, "k");
  double scale = 0.875;
  op_decl_const(1, "double", &scale, "scale");
}

/* Steps [0, steps): op_checkpoint() before each, then the loop; a step's reductions start from
 * values that depend on the step, as a program's would. */
static void run_steps(int steps, const char *name, results *r) {
  for (int s = 0; s < steps; s++) {
    op_checkpoint();
    double d[3] = {0, 1e30, -1e30};
    float f[3] = {0, 1e30f, -1e30f};
    int i[3] = {s, 1 << 30, -(1 << 30)};
    op_par_loop(step_src, name, nodes, op_arg_dat(dv, -1, OP_ID, 1, "double", OP_RW),
                op_arg_dat(dw, -1, OP_ID, 1, "float", OP_RW),
                op_arg_dat(dk, -1, OP_ID, 1, "int", OP_RW), op_arg_gbl(&d[0], 1, "double", OP_INC),
                op_arg_gbl(&d[1], 1, "double", OP_MIN), op_arg_gbl(&d[2], 1, "double", OP_MAX),
                op_arg_gbl(&f[0], 1, "float", OP_INC), op_arg_gbl(&f[1], 1, "float", OP_MIN),
                op_arg_gbl(&f[2], 1, "float", OP_MAX), op_arg_gbl(&i[0], 1, "int", OP_INC),
                op_arg_gbl(&i[1], 1, "int", OP_MIN), op_arg_gbl(&i[2], 1, "int", OP_MAX));
    if (r) {
      memcpy(r->d[s], d, sizeof d);
      memcpy(r->f[s], f, sizeof f);
      memcpy(r->i[s], i, sizeof i);
    }
  }
  if (r) {
    op_fetch_data(dv, r->v);
    op_fetch_data(dw, r->w);
    op_fetch_data(dk, r->k);
  }
}

static void same(const results *a, const results *b) {
  for (int s = 0; s < STEPS; s++)
    for (int j = 0; j < 3; j++) {
      CHECK(memcmp(&a->d[s][j], &b->d[s][j], sizeof(double)) == 0);
      CHECK(memcmp(&a->f[s][j], &b->f[s][j], sizeof(float)) == 0);
      CHECK_EQ_INT(a->i[s][j], b->i[s][j]);
    }
  CHECK(memcmp(a->v, b->v, sizeof a->v) == 0);
  CHECK(memcmp(a->w, b->w, sizeof a->w) == 0);
  CHECK(memcmp(a->k, b->k, sizeof a->k) == 0);
}

int main(int argc, char **argv) {
  CHECK(argc == 2);
  mkdir(argv[1], 0755);
  char file[4096], missing[4200];
  snprintf(file, sizeof file, "%s/t802.ckpt.h5", argv[1]);
  snprintf(missing, sizeof missing, "%s/none.h5", argv[1]);
  unlink(file);
  static results ref, restarted;

  op_init(1, argv, 0); /* the reference: no checkpointing at all */
  declare();
  run_steps(STEPS, "evolve", &ref);
  op_exit();
  CHECK(ref.i[0][0] != 0 && ref.d[STEPS - 1][1] != ref.d[0][1]);

  op_init(1, argv, 0); /* checkpoints before every step; "killed" after K steps */
  declare();
  CHECK_EQ_INT(op_checkpointing_init(file, "manual"), 0); /* no checkpoint yet */
  run_steps(K, "evolve", NULL);
  op_exit();
  CHECK(access(file, R_OK) == 0);

  op_init(1, argv, 0); /* the whole program again: resumes at step K - 1 */
  declare();
  double scale = -1; /* a constant's value at the checkpoint comes back too */
  op_decl_const(1, "double", &scale, "scale");
  CHECK_EQ_INT(op_checkpointing_init(file, NULL), 1);
  run_steps(STEPS, "evolve", &restarted);
  op_exit();
  same(&ref, &restarted);

  test_catch_errors();
  op_init(1, argv, 0); /* another program: its first loop has another name */
  declare();
  CHECK_EQ_INT(op_checkpointing_init(file, "manual"), 1);
  EXPECT_ERROR(run_steps(1, "other", NULL), "is 'other' in this run but was 'evolve'");
  op_exit();

  op_init(1, argv, 0);
  declare();
  EXPECT_ERROR(op_checkpointing_init(file, "every:3"), "policy 'every:3'");
  EXPECT_ERROR(op_checkpointing_init(file, "time:0"), "time:SECONDS");
  EXPECT_ERROR(op_checkpointing_init("", "manual"), "file name");
  run_steps(1, "evolve", NULL);
  EXPECT_ERROR(op_checkpointing_init(missing, "manual"), "before the first op_par_loop");
  op_exit();

  char restart[4300];
  snprintf(restart, sizeof restart, "OP2_RESTART=%s", missing);
  char *args[] = {argv[0], restart, NULL};
  /* refused by op_init, which names the option */
  EXPECT_ERROR(op_init(2, args, 0), "option OP2_RESTART=");
  CHECK_CONTAINS(op_last_error(), "no such checkpoint file");
  op_exit();

  snprintf(restart, sizeof restart, "OP2_RESTART=%s", file);
  op_init(2, args, 0); /* OP2_RESTART without op_checkpointing_init: resumes, writes nothing */
  declare();
  memset(&restarted, 0, sizeof restarted);
  run_steps(STEPS, "evolve", &restarted);
  op_exit();
  same(&ref, &restarted);
  return 0;
}
