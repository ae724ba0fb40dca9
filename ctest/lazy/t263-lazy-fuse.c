/* SPDX-License-Identifier: BSD-3-Clause */
/* OP2_FUSE=on: consecutive queued direct loops over one set run as one fused loop, with the bits
 * of the calls run one by one. A chain of direct loops on cells (an OP_READ global changed after
 * its call, the same kernel twice, a constant, a copy into a second dat, an OP_INC on a direct
 * dat) is cut by a loop on another set, an indirect loop, and a kernel whose helper has the name
 * of another kernel's helper; every dat must equal, byte for byte, the run with OP2_FUSE=off, and
 * op_timing_output's profile must show the fused loops (and only them) in place of their calls.
 * An error in a fused loop names the fused calls. */
#include <unistd.h>

#include "lazy_test.h"

enum { N = 5000, M = 700 };

static const char scale_src[] =
    "static void scale(const double *g, const double *x, double *a) { a[0] = g[0] * x[0]; }";
static const char add1_src[] = "static void add1(double *a) { a[0] += 1.0; }";
static const char addk_src[] = "static void addk(double *a, int *n) { a[0] += k; n[0] += 1; }";
static const char copy_src[] =
    "static void copy(const double *a, double *b) { b[0] = a[0] * a[0]; b[1] = -a[0]; }";
static const char bump_src[] = "static void bump(double *b) { b[1] += 0.5; }";
static const char sq1_src[] =
    "static double sq(double v) { return v * v; }\n"
    "static void sq1(double *a) { a[0] = sq(a[0]) - 1.0; }";
static const char sq2_src[] =
    "static double sq(double v) { return v * v * 0.5; }\n"
    "static void sq2(double *a) { a[0] = sq(a[0]); }";
static const char gather_src[] =
    "static void gather(const double *b, double *e) { e[0] = b[0] + b[1]; }";
static const char other_src[] = "static void other(double *e) { e[0] *= 2.0; }";

static void same_bytes(const void *got, const void *want, size_t bytes, const char *what) {
  if (memcmp(got, want, bytes) != 0) {
    fprintf(stderr, "%s differs between OP2_FUSE=on and off\n", what);
    exit(1);
  }
}

typedef struct result {
  double a[N], b[2 * N], e[M];
  int n[N];
} result;

/* The "calls" of loop `name` in the profile JSON at `path`, or -1 when it is not there. */
static long profile_calls(const char *path, const char *name) {
  FILE *f = fopen(path, "r");
  CHECK(f != NULL);
  static char text[1 << 16];
  size_t len = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[len] = 0;
  char key[256];
  snprintf(key, sizeof key, "\"%s\"", name);
  const char *p = strstr(text, key);
  if (!p || !(p = strstr(p, "\"calls\":"))) return -1;
  return strtol(p + 8, NULL, 10);
}

static void run(const char *fuse, const char *json, result *out) {
  char json_opt[128];
  snprintf(json_opt, sizeof json_opt, "OP2_PROFILE_JSON=%s", json);
  lazy_init("OP2_LAZY=on", fuse, json_opt, NULL);
  op_set cells = op_decl_set(N, "cells"), edges = op_decl_set(M, "edges");
  static int pe[M];
  for (int i = 0; i < M; i++) pe[i] = (i * 7919) % N;
  op_map map = op_decl_map(edges, cells, 1, pe, "pe");
  static double x[N];
  for (int i = 0; i < N; i++) x[i] = 0.001 * i - 1.7;
  op_dat dx = op_decl_dat(cells, 1, "double", x, "x");
  op_dat a = op_decl_dat(cells, 1, "double", NULL, "a");
  op_dat b = op_decl_dat(cells, 2, "double", NULL, "b");
  op_dat n = op_decl_dat(cells, 1, "int", NULL, "n");
  op_dat e = op_decl_dat(edges, 1, "double", NULL, "e");
  double k = 0.25, g = 3.0;
  op_decl_const(1, "double", &k, "k");
  for (int rep = 0; rep < 2; rep++) {
    /* fused: scale, add1, add1, addk, copy, bump */
    op_par_loop(scale_src, "scale", cells, op_arg_gbl(&g, 1, "double", OP_READ),
                op_arg_dat(dx, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(a, -1, OP_ID, 1, "double", OP_WRITE));
    g = -1e300; /* the fused loop must use 3 */
    op_par_loop(add1_src, "add1", cells, op_arg_dat(a, -1, OP_ID, 1, "double", OP_RW));
    op_par_loop(add1_src, "add1", cells, op_arg_dat(a, -1, OP_ID, 1, "double", OP_RW));
    op_par_loop(addk_src, "addk", cells, op_arg_dat(a, -1, OP_ID, 1, "double", OP_RW),
                op_arg_dat(n, -1, OP_ID, 1, "int", OP_INC));
    op_par_loop(copy_src, "copy", cells, op_arg_dat(a, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(b, -1, OP_ID, 2, "double", OP_WRITE));
    op_par_loop(bump_src, "bump", cells, op_arg_dat(b, -1, OP_ID, 2, "double", OP_RW));
    /* another set: alone */
    op_par_loop(other_src, "other", edges, op_arg_dat(e, -1, OP_ID, 1, "double", OP_RW));
    /* fused: sq1; then sq2 alone (its helper sq clashes with sq1's), then fused with add1 */
    op_par_loop(sq1_src, "sq1", cells, op_arg_dat(a, -1, OP_ID, 1, "double", OP_RW));
    op_par_loop(sq2_src, "sq2", cells, op_arg_dat(a, -1, OP_ID, 1, "double", OP_RW));
    op_par_loop(add1_src, "add1", cells, op_arg_dat(a, -1, OP_ID, 1, "double", OP_RW));
    /* indirect: cuts the chain */
    op_par_loop(gather_src, "gather", edges, op_arg_dat(b, 0, map, 2, "double", OP_READ),
                op_arg_dat(e, -1, OP_ID, 1, "double", OP_WRITE));
    op_par_loop(bump_src, "bump", cells, op_arg_dat(b, -1, OP_ID, 2, "double", OP_RW));
    g = 3.0;
  }
  CHECK(lazy_peek(a, 3) == 0.0); /* everything was queued */
  op_fetch_data(a, out->a);
  op_fetch_data(b, out->b);
  op_fetch_data(e, out->e);
  op_fetch_data(n, out->n);
  op_exit();
}

int main(void) {
  char json[] = "/tmp/op2-t263-XXXXXX";
  int fd = mkstemp(json);
  CHECK(fd >= 0);
  close(fd);
  static result fused, alone;
  run("OP2_FUSE=off", json, &alone);
  CHECK_EQ_INT(profile_calls(json, "add1"), 6);
  run("OP2_FUSE=on", json, &fused);
  same_bytes(fused.a, alone.a, sizeof alone.a, "a");
  same_bytes(fused.b, alone.b, sizeof alone.b, "b");
  same_bytes(fused.e, alone.e, sizeof alone.e, "e");
  same_bytes(fused.n, alone.n, sizeof alone.n, "n");
  /* the first repetition's chain starts with scale; the second's with the first's last bump */
  CHECK_EQ_INT(profile_calls(json, "fused_scale_add1_add1_addk_copy_bump"), 1);
  CHECK_EQ_INT(profile_calls(json, "fused_bump_scale_add1_add1_addk_copy_bump"), 1);
  CHECK_EQ_INT(profile_calls(json, "fused_sq2_add1"), 2);
  CHECK_EQ_INT(profile_calls(json, "sq1"), 2);
  CHECK_EQ_INT(profile_calls(json, "other"), 2);
  CHECK_EQ_INT(profile_calls(json, "gather"), 2);
  CHECK_EQ_INT(profile_calls(json, "bump"), 1); /* the last one, alone at the fetch */
  CHECK_EQ_INT(profile_calls(json, "add1"), -1);
  CHECK_EQ_INT(profile_calls(json, "scale"), -1);

  /* an error in a fused loop: a kernel that does not compile, queued as the second of three */
  lazy_init("OP2_LAZY=on", "OP2_FUSE=on", NULL);
  test_catch_errors();
  op_set s = op_decl_set(10, "s");
  op_dat d = op_decl_dat(s, 1, "double", NULL, "d");
  double got[10];
  test_errors_expected = 1;
  op_par_loop(add1_src, "add1", s, op_arg_dat(d, -1, OP_ID, 1, "double", OP_RW));
  op_par_loop("static void broken(double *a) { a[0] = ; }", "broken", s,
              op_arg_dat(d, -1, OP_ID, 1, "double", OP_RW));
  op_par_loop(add1_src, "add1", s, op_arg_dat(d, -1, OP_ID, 1, "double", OP_RW));
  op_fetch_data(d, got);
  test_errors_expected = 0;
  CHECK_EQ_INT(test_errors_seen, 1);
  CHECK_CONTAINS(op_last_error(), "op_par_loop 'fused_add1_broken_add1'");
  CHECK_CONTAINS(op_last_error(),
                 "(queued: op_par_loop calls 1-3 run as one fused loop, the first");
  op_exit();
  unlink(json);
  return 0;
}
