/* SPDX-License-Identifier: BSD-3-Clause */
/* OP2_LAZY=on: op_par_loop queues its call, and the chain runs when its results are needed.
 * Checked through the dat's public data pointer, which no library call refreshes: a queued loop
 * has not run; after op_fetch_data, a reduction, the chain's bound (OP2_LAZY_CHAIN=4), a new
 * constant value, op_timers, a declaration, it has. An OP_READ global keeps the value it had at
 * the call, whatever the program writes into its variable afterwards; a queued loop sees the
 * constant of its call; op_exit runs what is left (its calls are in OP2_PROFILE_JSON). */
#include <unistd.h>

#include "lazy_test.h"

enum { N = 1000 };

static const char scale_src[] =
    "static void scale(const double *g, const double *x, double *a) { a[0] = g[0] * x[0]; }";
static const char add1_src[] = "static void add1(double *a) { a[0] += 1.0; }";
static const char addk_src[] = "static void addk(double *a) { a[0] += k; }";
static const char total_src[] =
    "static void total(const double *a, double *s, int *n) { *s += a[0]; *n += 1; }";
static const char last_src[] = "static void last_loop(double *a) { a[0] = -1.0; }";

static void add1(op_set s, op_dat a) {
  op_par_loop(add1_src, "add1", s, op_arg_dat(a, -1, OP_ID, 1, "double", OP_RW));
}

/* The "calls" of loop `name` in the profile JSON at `path`, or -1. */
static long profile_calls(const char *path, const char *name) {
  FILE *f = fopen(path, "r");
  CHECK(f != NULL);
  static char text[1 << 16];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = 0;
  char key[64];
  snprintf(key, sizeof key, "\"%s\"", name);
  const char *p = strstr(text, key);
  if (!p || !(p = strstr(p, "\"calls\":"))) return -1;
  return strtol(p + 8, NULL, 10);
}

int main(void) {
  char json[] = "/tmp/op2-t260-XXXXXX";
  int fd = mkstemp(json);
  CHECK(fd >= 0);
  close(fd);
  char json_opt[64];
  snprintf(json_opt, sizeof json_opt, "OP2_PROFILE_JSON=%s", json);
  lazy_init("OP2_LAZY=on", "OP2_LAZY_CHAIN=4", "OP2_FUSE=off", json_opt, NULL);
  op_set s = op_decl_set(N, "cells");
  double x[N], got[N];
  for (int i = 0; i < N; i++) x[i] = 0.5 * i - 7.0;
  op_dat dx = op_decl_dat(s, 1, "double", x, "x");
  op_dat a = op_decl_dat(s, 1, "double", NULL, "a");

  /* queued with g = 2; the program then changes g: the loop still multiplies by 2 */
  double g = 2.0;
  op_par_loop(scale_src, "scale", s, op_arg_gbl(&g, 1, "double", OP_READ),
              op_arg_dat(dx, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(a, -1, OP_ID, 1, "double", OP_WRITE));
  g = 100.0;
  CHECK(lazy_peek(a, 1) == 0.0); /* queued, not run */
  add1(s, a);
  CHECK(lazy_peek(a, 1) == 0.0);
  op_fetch_data(a, got); /* runs the chain */
  for (int i = 0; i < N; i++) CHECK(got[i] == 2.0 * x[i] + 1.0);
  CHECK(lazy_peek(a, 1) == 2.0 * x[1] + 1.0);

  /* a reduction runs the chain with it: its value is there when op_par_loop returns */
  add1(s, a);
  add1(s, a);
  CHECK(lazy_peek(a, 1) == 2.0 * x[1] + 1.0);
  double sum = 0.0, want = 0.0;
  int count = 0;
  op_par_loop(total_src, "total", s, op_arg_dat(a, -1, OP_ID, 1, "double", OP_READ),
              op_arg_gbl(&sum, 1, "double", OP_INC), op_arg_gbl(&count, 1, "int", OP_INC));
  for (int i = 0; i < N; i++) want += 2.0 * x[i] + 3.0;
  CHECK_EQ_INT(count, N);
  CHECK_NEAR(sum, want, 1e-12);
  CHECK(lazy_peek(a, 1) == 2.0 * x[1] + 3.0);

  /* the bound: the fourth queued call runs the chain */
  for (int k = 0; k < 3; k++) add1(s, a);
  CHECK(lazy_peek(a, 1) == 2.0 * x[1] + 3.0);
  add1(s, a);
  CHECK(lazy_peek(a, 1) == 2.0 * x[1] + 7.0);

  /* constants: a queued loop sees the value of its call; the same value again runs nothing */
  double k = 1.0;
  op_decl_const(1, "double", &k, "k");
  op_par_loop(addk_src, "addk", s, op_arg_dat(a, -1, OP_ID, 1, "double", OP_RW));
  CHECK(lazy_peek(a, 1) == 2.0 * x[1] + 7.0);
  k = 5.0;
  op_decl_const(1, "double", &k, "k"); /* runs the queued addk with k = 1 first */
  CHECK(lazy_peek(a, 1) == 2.0 * x[1] + 8.0);
  op_par_loop(addk_src, "addk", s, op_arg_dat(a, -1, OP_ID, 1, "double", OP_RW));
  op_decl_const(1, "double", &k, "k"); /* unchanged: the call stays queued */
  CHECK(lazy_peek(a, 1) == 2.0 * x[1] + 8.0);
  double cpu, wall;
  op_timers(&cpu, &wall); /* the program times what it called */
  CHECK(lazy_peek(a, 1) == 2.0 * x[1] + 13.0);

  /* a declaration runs the chain first */
  add1(s, a);
  op_dat b = op_decl_dat(s, 1, "double", NULL, "b");
  CHECK(b != NULL);
  CHECK(lazy_peek(a, 1) == 2.0 * x[1] + 14.0);

  /* op_exit runs what is left */
  op_par_loop(last_src, "last_loop", s, op_arg_dat(a, -1, OP_ID, 1, "double", OP_WRITE));
  CHECK(lazy_peek(a, 1) == 2.0 * x[1] + 14.0);
  op_exit();
  CHECK_EQ_INT(profile_calls(json, "last_loop"), 1);
  CHECK_EQ_INT(profile_calls(json, "add1"), 8);
  unlink(json);
  return 0;
}
