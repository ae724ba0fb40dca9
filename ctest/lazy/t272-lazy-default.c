/* SPDX-License-Identifier: BSD-3-Clause */
/* Where lazy execution is the default (issue 36 item 7): with no OP2_LAZY option (auto), a call
 * is queued where queuing buys something, on more than one MPI rank (the "np2" run) or with
 * OP2_FUSE=on, and runs at once on one process otherwise, as OP2 runs it. Queued, op_fetch_data
 * runs it, and an error of a queued call (a kernel that does not compile) names it, while a bad
 * argument is refused at the call in either mode; OP2_LAZY=off runs each call before
 * op_par_loop returns, OP2_LAZY=on queues it on one process too. Either way a kernel that prints
 * runs at once, after the calls queued before it, so its lines come out between the program's
 * own as they would eagerly. With OP2_RENUMBER=on the first loop, which renumbers the mesh, runs
 * at once too: the map's public values are the renumbered ones when op_par_loop returns (so they
 * would be under MPI, where the first loop distributes the mesh). Whether a call has run is read
 * through the public handles (lazy_test.h), which no library call refreshes. */
#include <unistd.h>

#include "lazy_test.h"

enum { N = 10 };

static const char add1_src[] = "static void add1(double *a) { a[0] += 1.0; }";
static const char broken_src[] = "static void broken(double *a) { a[0] += undeclared_name; }";
static const char show_src[] =
    "static void show(const int *i, const double *a) {\n"
    "  if (*i == 0) printf(\"show sees %.1f\\n\", a[0]);\n"
    "}\n";

static void add1(op_set s, op_dat a) {
  op_par_loop(add1_src, "add1", s, op_arg_dat(a, -1, OP_ID, 1, "double", OP_RW));
}

/* One round: two add1 calls, a printing kernel's call between two lines of the program's own,
 * and a call with a bad argument. `lazy`: whether the mode under test queues calls. */
static void round_trip(int lazy, const char *option) {
  lazy_init(option, NULL);
  test_catch_errors();
  op_set s = op_decl_set(N, "cells");
  op_dat a = op_decl_dat(s, 1, "double", NULL, "a");
  double got[N];

  add1(s, a);
  add1(s, a);
  CHECK(lazy_peek(a, 0) == (lazy ? 0.0 : 2.0)); /* queued, or run */
  op_fetch_data(a, got);
  for (int i = 0; i < N; i++) CHECK(got[i] == 2.0);
  CHECK(lazy_peek(a, 0) == 2.0);

  /* a printing kernel: the queued add1 runs first, then the kernel, before the call returns */
  add1(s, a);
  fflush(stdout);
  printf("before show\n");
  fflush(stdout);
  op_par_loop(show_src, "show", s, op_arg_idx(-1, OP_ID),
              op_arg_dat(a, -1, OP_ID, 1, "double", OP_READ));
  fflush(stdout);
  printf("after show\n");
  fflush(stdout);
  CHECK(lazy_peek(a, 0) == 3.0);

  /* a bad argument is refused at the call, queued or not (its checks need no data) */
  test_errors_expected = 1;
  op_par_loop(add1_src, "add1", s, op_arg_dat(a, -1, OP_ID, 1, "float", OP_RW));
  CHECK_EQ_INT(test_errors_seen, 1);
  CHECK_CONTAINS(op_last_error(), "op_par_loop 'add1', argument 0: type 'float' does not match");
  CHECK(strstr(op_last_error(), "queued") == NULL);
  /* an error found only when the kernel is built comes when the chain runs, naming the call */
  op_par_loop(broken_src, "broken", s, op_arg_dat(a, -1, OP_ID, 1, "double", OP_RW));
  CHECK_EQ_INT(test_errors_seen, lazy ? 1 : 2);
  op_fetch_data(a, got);
  test_errors_expected = 0;
  CHECK_EQ_INT(test_errors_seen, 2);
  test_errors_seen = 0;
  CHECK_CONTAINS(op_last_error(), "op_par_loop 'broken': the kernel does not compile");
  if (lazy)
    CHECK_CONTAINS(op_last_error(), "(queued: op_par_loop call 6 from ");
  else
    CHECK(strstr(op_last_error(), "queued") == NULL);
  op_exit();
}

/* OP2_RENUMBER=on: a chain of nodes numbered at random; the first op_par_loop renumbers it
 * before it returns, queued or not (the call itself may stay queued: the mesh it will run on is
 * already the one the program sees). */
static void renumber_first(const char *option) {
  enum { NN = 200, NE = NN - 1 };
  lazy_init("OP2_RENUMBER=on", option, NULL);
  static int perm[NN], edge_nodes[2 * NE];
  unsigned rng = 272;
  for (int i = 0; i < NN; i++) perm[i] = i;
  for (int i = NN - 1; i > 0; i--) {
    int j = (int)(test_rand(&rng) % (unsigned)(i + 1)), t = perm[i];
    perm[i] = perm[j], perm[j] = t;
  }
  for (int e = 0; e < NE; e++) edge_nodes[2 * e] = perm[e], edge_nodes[2 * e + 1] = perm[e + 1];
  op_set nodes = op_decl_set(NN, "nodes"), edges = op_decl_set(NE, "edges");
  op_map m = op_decl_map(edges, nodes, 2, edge_nodes, "edge_nodes");
  op_dat a = op_decl_dat(nodes, 1, "double", NULL, "a");
  op_par_loop(add1_src, "add1", nodes, op_arg_dat(a, -1, OP_ID, 1, "double", OP_RW));
  const int *now = ((const op_map_core *)(const void *)m)->map;
  CHECK(memcmp(now, edge_nodes, sizeof edge_nodes) != 0); /* renumbered when the call returned */
  double got[NN];
  op_fetch_data(a, got);
  for (int i = 0; i < NN; i++) CHECK(got[i] == 1.0);
  op_exit();
}

/* The default on 2 MPI ranks: queued. The first loop distributes the mesh, so it runs at once;
 * the next one is queued until op_fetch_data. */
static void np2_default(void) {
  lazy_init(NULL);
  op_set s = op_decl_set(N, "cells");
  op_dat a = op_decl_dat(s, 1, "double", NULL, "a");
  add1(s, a);
  add1(s, a);
  CHECK(lazy_peek(a, 0) == 1.0);
  double got[N];
  op_fetch_data(a, got);
  CHECK(lazy_peek(a, 0) == 2.0);
  op_exit();
}

/* Usage: t272-lazy-default [np2]. Its stdout (the lines printed around the printing kernel) is
 * checked here: the test writes it to a temporary file. */
int main(int argc, char **argv) {
  CHECK(unsetenv("OP2_LAZY") == 0); /* the library's default, whatever the environment says */
  CHECK(unsetenv("OP2_FUSE") == 0);
  if (argc > 1 && strcmp(argv[1], "np2") == 0) {
    np2_default();
    return 0;
  }
  char path[] = "/tmp/op2-t272-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  int saved = dup(STDOUT_FILENO);
  CHECK(saved >= 0 && dup2(fd, STDOUT_FILENO) == STDOUT_FILENO);
  round_trip(0, NULL); /* one process, no fusion: at once */
  round_trip(0, "OP2_LAZY=off");
  round_trip(1, "OP2_LAZY=on");
  round_trip(1, "OP2_FUSE=on"); /* fusion needs the queue */
  renumber_first(NULL);
  renumber_first("OP2_LAZY=on");
  fflush(stdout);
  CHECK(dup2(saved, STDOUT_FILENO) == STDOUT_FILENO);
  close(saved);
  static char text[4096];
  CHECK(lseek(fd, 0, SEEK_SET) == 0);
  ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  unlink(path);
  CHECK(n > 0);
  text[n] = '\0';
  const char *want = "before show\nshow sees 3.0\nafter show\n";
  const char *p = text;
  for (int r = 0; r < 4; r++) {
    const char *at = strstr(p, want);
    if (!at) fprintf(stderr, "round %d: the printing kernel's line is out of order:\n%s", r, text);
    CHECK(at != NULL);
    p = at + strlen(want);
  }
  return 0;
}
