/* SPDX-License-Identifier: BSD-3-Clause */
/* A small part size given through op_init's argv ("OP2_PART_SIZE=16"): plans of over a thousand
 * blocks. On the locally numbered mesh a few colours hold hundreds of blocks each; on a fully
 * random mesh every block conflicts with dozens of others and the plan needs more than 32
 * colours (more than one colouring pass). Results must match plain C as everywhere else. The
 * plan diagnostics (OP2_DIAGS=2) show that the part size was used and how many colours resulted.
 */
#include "random_mesh.h"

enum { NE = 20000, NN = 5000, NC = 10000, PART = 16 };

KERNEL(
    ps_inc,
    static void ps_inc(const int *w, int *a, int *b, int *mx0, int *mx1, int *cnt, int *gsum) {
      a[0] += w[0];
      a[1] += 1;
      b[0] -= 2 * w[0];
      b[1] += 1;
      *mx0 = MAX(*mx0, w[0]);
      *mx1 = MAX(*mx1, w[0] + 1);
      *cnt += 1;
      *gsum += w[0];
    })

KERNEL(
    ps_vec, static void ps_vec(const double *w, double **r, double *mn) {
      for (int j = 0; j < 4; j++) r[j][0] += w[0] * (double)(j + 1);
      *mn = MIN(*mn, w[0]);
    })

/* Stderr is captured while loops run; a failing CHECK exits meanwhile, and its message must not
 * stay in the capture, so an exit handler puts stderr back and replays what was captured. */
static FILE *captured;
static int saved_stderr = -1;

static void end_capture(void) {
  if (saved_stderr < 0) return;
  fflush(stderr);
  dup2(saved_stderr, fileno(stderr)); /* no CHECK: this also runs inside exit() */
  close(saved_stderr);
  saved_stderr = -1;
}

static void replay_capture_at_exit(void) {
  if (saved_stderr < 0) return;
  end_capture();
  rewind(captured);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, captured)) > 0) fwrite(buf, 1, n, stderr);
}

/* Runs `run` with stderr going to a file; returns what was written, NUL-terminated. */
static char *capture_stderr(void (*run)(void *), void *arg) {
  fflush(stderr);
  captured = tmpfile();
  CHECK(captured != NULL);
  saved_stderr = dup(fileno(stderr));
  CHECK(saved_stderr >= 0 && dup2(fileno(captured), fileno(stderr)) >= 0);
  run(arg);
  end_capture();
  long len = ftell(captured);
  CHECK(len >= 0);
  char *text = rm_alloc((size_t)len + 1);
  rewind(captured);
  CHECK(fread(text, 1, (size_t)len, captured) == (size_t)len);
  fclose(captured);
  return text;
}

/* The plan line the library printed for `loop`: its part size and colour count. */
static void plan_of(const char *log, const char *loop, int *part, int *colours) {
  char key[128];
  snprintf(key, sizeof key, "plan '%s' over", loop);
  const char *p = strstr(log, key);
  if (!p) fprintf(stderr, "no plan diagnostic for loop '%s' in:\n%s\n", loop, log);
  CHECK(p != NULL);
  p = strstr(p, "blocks of ");
  CHECK(p != NULL);
  CHECK(sscanf(p, "blocks of %d, %d colours", part, colours) == 2);
}

static void run_case(void *arg) {
  rm_mesh *m = arg;
  const int *en = m->edge_nodes, *cn = m->cell_nodes;
  unsigned rng = rm_rng(2121);
  int *w = rm_ints(NE, -1000, 1000, &rng), *a = rm_ints(2 * NN, -9, 9, &rng);
  int *b = rm_ints(2 * NN, -9, 9, &rng), *mx = rm_ints(NN, -2000, 0, &rng);
  int *cnt = rm_alloc(NN * sizeof *cnt), *igot = rm_alloc(2 * NN * sizeof *igot);
  op_dat dw = op_decl_dat(m->edges, 1, "int", w, "w");
  op_dat da = op_decl_dat(m->nodes, 2, "int", a, "a");
  op_dat db = op_decl_dat(m->nodes, 2, "int", b, "b");
  op_dat dmx = op_decl_dat(m->nodes, 1, "int", mx, "mx");
  op_dat dcnt = op_decl_dat(m->nodes, 1, "int", NULL, "cnt");
  int gsum = 5, want_gsum = 5;
  for (int call = 0; call < 2; call++) {
    op_par_loop(ps_inc_src, "ps_inc", m->edges, op_arg_dat(dw, -1, OP_ID, 1, "int", OP_READ),
                op_arg_dat(da, 0, m->pedge, 2, "int", OP_INC),
                op_arg_dat(db, 1, m->pedge, 2, "int", OP_INC),
                op_arg_dat(dmx, 0, m->pedge, 1, "int", OP_RW),
                op_arg_dat(dmx, 1, m->pedge, 1, "int", OP_RW),
                op_arg_dat(dcnt, 1, m->pedge, 1, "int", OP_INC),
                op_arg_gbl(&gsum, 1, "int", OP_INC));
    for (int e = 0; e < NE; e++) {
      int n0 = en[2 * e], n1 = en[2 * e + 1];
      ps_inc(w + e, a + 2 * n0, b + 2 * n1, mx + n0, mx + n1, cnt + n1, &want_gsum);
    }
  }
  CHECK_EQ_INT(gsum, want_gsum);
  op_fetch_data(da, igot);
  rm_check_same(igot, a, 2 * NN, sizeof *a, "ps_inc a");
  op_fetch_data(db, igot);
  rm_check_same(igot, b, 2 * NN, sizeof *b, "ps_inc b");
  op_fetch_data(dmx, igot);
  rm_check_same(igot, mx, NN, sizeof *mx, "ps_inc mx");
  op_fetch_data(dcnt, igot);
  rm_check_same(igot, cnt, NN, sizeof *cnt, "ps_inc cnt");

  double *cw = rm_doubles(NC, 0.5, 1.5, &rng), *r = rm_doubles(NN, 0, 1, &rng);
  double *rgot = rm_alloc(NN * sizeof *rgot);
  op_dat dcw = op_decl_dat(m->cells, 1, "double", cw, "cw");
  op_dat dr = op_decl_dat(m->nodes, 1, "double", r, "r");
  double mn = 1.0, want_mn = 1.0;
  op_par_loop(ps_vec_src, "ps_vec", m->cells, op_arg_dat(dcw, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(dr, -4, m->pcell, 1, "double", OP_INC),
              op_arg_gbl(&mn, 1, "double", OP_MIN));
  for (int k = 0; k < NC; k++) {
    double *rv[4] = {r + cn[4 * k], r + cn[4 * k + 1], r + cn[4 * k + 2], r + cn[4 * k + 3]};
    ps_vec(cw + k, rv, &want_mn);
  }
  CHECK(mn == want_mn);
  op_fetch_data(dr, rgot);
  if (rm_plain_order()) rm_check_same(rgot, r, NN, sizeof *r, "ps_vec");
  rm_check_near(rgot, r, NN, 1e-12, "ps_vec");
  free(w), free(a), free(b), free(mx), free(cnt), free(igot), free(cw), free(r), free(rgot);
}

int main(int argc, char **argv) {
  /* the test's own options go after whatever the command line gave */
  char **args = rm_alloc(((size_t)argc + 3) * sizeof *args);
  for (int i = 0; i < argc; i++) args[i] = argv[i];
  args[argc] = "OP2_PART_SIZE=16";
  args[argc + 1] = "OP2_DIAGS=2";
  op_init(argc + 2, args, 0);
  atexit(replay_capture_at_exit);

  rm_mesh local, scattered;
  rm_mesh_make(&local, NE, NN, NC, RM_JUMPS, 212);
  char *log = capture_stderr(run_case, &local);
  int part, colours_inc, colours_vec;
  plan_of(log, "ps_inc", &part, &colours_inc);
  CHECK_EQ_INT(part, PART);
  plan_of(log, "ps_vec", &part, &colours_vec);
  CHECK_EQ_INT(part, PART);
  /* Colours unless the OpenMP plan found thread-owned ranges (then colouring is skipped). */
  CHECK((colours_inc >= 2 && colours_vec >= 2) || strstr(log, "colours, thread-owned"));
  free(log);

  rm_mesh_make(&scattered, NE, NN, NC, RM_FULLY_RANDOM, 2120);
  log = capture_stderr(run_case, &scattered);
  plan_of(log, "ps_inc", &part, &colours_inc);
  CHECK_EQ_INT(part, PART);
  plan_of(log, "ps_vec", &part, &colours_vec);
  CHECK(colours_inc > 32 && colours_vec > 32);
  free(log);

  rm_mesh_free(&local);
  rm_mesh_free(&scattered);
  free(args);
  op_exit();
  return 0;
}
