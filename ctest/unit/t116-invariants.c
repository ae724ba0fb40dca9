/* SPDX-License-Identifier: BSD-3-Clause */
/* The invariant checks the sanitizer build runs on every plan and halo it builds: a plan the
 * library built keeps its promises (coloured and thread-owned), and a plan or halo with one
 * promise broken is caught, named; OP2_ASSERT aborts with the condition when invariants are on. */
#define OP2_CHECK_INVARIANTS 1 /* this file's OP2_ASSERT, whatever the build */

#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "runtime/op2_impl.h"
#include "runtime/distributed.h"
#include "runtime/invariant.h"

static void check_broken(const op2_plan *p, const char *expected) {
  op2_jit_error why = {0};
  CHECK(op2_plan_check(p, &why) == OP2_ERR_STATE);
  if (!strstr(why.msg, expected)) fprintf(stderr, "why: %s (expected %s)\n", why.msg, expected);
  CHECK(strstr(why.msg, expected));
}

/* A coloured plan with every block put in colour 0: blocks that needed another colour now
 * share an element with a block of colour 0. */
static void one_colour(op2_plan *p) {
  for (int b = 0; b < p->nblocks; b++) p->block_colour[b] = 0, p->blocks_by_colour[b] = b;
  p->colour_offset[1] = p->nblocks;
  p->ncolours = 1;
}

static void check_assert_aborts(void) {
  int fds[2];
  CHECK(pipe(fds) == 0);
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    dup2(fds[1], 2);
    int two = 2;
    OP2_ASSERT(two + two == 4, "never: %d", two);
    OP2_ASSERT(two + two == 5, "arithmetic with %d", two);
    _exit(0); /* not reached */
  }
  close(fds[1]);
  char out[512] = "";
  size_t got = 0; /* the message comes in several writes (stderr is unbuffered) */
  for (ssize_t n; got < sizeof out - 1 && (n = read(fds[0], out + got, sizeof out - 1 - got)) > 0;)
    got += (size_t)n;
  out[got] = '\0';
  close(fds[0]);
  int status;
  CHECK(waitpid(pid, &status, 0) == pid);
  CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
  CHECK(strstr(out, "invariant broken"));
  CHECK(strstr(out, "two + two == 5: arithmetic with 2"));
}

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  op2_jit_error why = {0};

  /* A ring of edges: blocks need 2 or 3 colours. */
  int n = 4000;
  int *ring = malloc(sizeof(int) * 2 * (size_t)n);
  for (int e = 0; e < n; e++) ring[2 * e] = e, ring[2 * e + 1] = (e + 1) % n;
  op_set edges = op_decl_set(n, "edges"), nodes = op_decl_set(n, "nodes");
  op_map ring_map = op_decl_map(edges, nodes, 2, ring, "ring");
  op_map maps[1] = {ring_map};
  int idx[1] = {-2};
  op2_plan *p;
  CHECK_EQ_INT(op2_plan_build(edges, 0, n, 64, 1, maps, idx, 1, &p), OP2_OK);
  CHECK(p->ncolours >= 2 && !p->owner_threads);
  CHECK(op2_plan_check(p, &why) == OP2_OK);
  p->block_colour[p->blocks_by_colour[0]] = 1; /* listed under 0, says 1 */
  check_broken(p, "is listed under colour 0");
  one_colour(p);
  check_broken(p, "blocks of colour 0 write one element of set 'nodes'");
  p->colour_offset[1] = p->nblocks - 1;
  check_broken(p, "colour offsets cover");
  op2_plan_free(p);

  /* The same ring laid out in thread-owned runs: 4 threads, few shared seams. */
  CHECK_EQ_INT(op2_plan_build(edges, 0, n, 64, 1, maps, idx, 4, &p), OP2_OK);
  CHECK_EQ_INT(p->owner_threads, 4);
  CHECK(op2_plan_check(p, &why) == OP2_OK);
  int first_end = p->runs[1];
  p->runs[1] = p->runs[2 * p->thread_run_offset[1]] + 1; /* thread 0 runs into thread 1's range */
  check_broken(p, "is in two runs");
  p->runs[1] = first_end - 1;
  check_broken(p, "is in no run");
  p->runs[1] = first_end;
  CHECK(op2_plan_check(p, &why) == OP2_OK);
  /* thread 0's first element made to write a node thread 1's first element writes */
  int e0 = p->runs[0], e1 = p->runs[2 * p->thread_run_offset[1]];
  int saved = ring_map->values[2 * e0];
  ring_map->values[2 * e0] = ring_map->values[2 * e1 + 1];
  check_broken(p, "threads' private runs write one element of set 'nodes'");
  ring_map->values[2 * e0] = saved;
  op2_plan_free(p);

  /* Halo lists against the set's sizes: one neighbour, rank 1, two exec and one non-exec
   * element imported, two owned non-core elements exported. */
  struct op2_set set = {0};
  op2_halo h = {0};
  int ranks[1] = {1}, imp_exec_off[2] = {0, 2}, imp_non_off[2] = {0, 1};
  int exp_off[2] = {0, 2}, exp_elems[2] = {8, 9};
  set.size = 10, set.core_size = 8, set.exec_size = 2, set.nonexec_size = 1, set.halo = &h;
  h.imp_exec = (op2_halo_list){1, ranks, imp_exec_off, NULL};
  h.imp_nonexec = (op2_halo_list){1, ranks, imp_non_off, NULL};
  h.exp_exec = (op2_halo_list){1, ranks, exp_off, exp_elems};
  h.exp_nonexec = (op2_halo_list){1, ranks, exp_off, exp_elems};
  CHECK(op2_halo_check(&set, 0, 2, &why) == OP2_OK);
  set.exec_size = 3;
  CHECK(op2_halo_check(&set, 0, 2, &why) == OP2_ERR_STATE && strstr(why.msg, "imported exec halo"));
  set.exec_size = 2, set.core_size = 9; /* element 8 exported to run elsewhere, yet core */
  CHECK(op2_halo_check(&set, 0, 2, &why) == OP2_ERR_STATE && strstr(why.msg, "exported exec halo"));
  set.core_size = 8;
  CHECK(op2_halo_check(&set, 1, 2, &why) == OP2_ERR_STATE &&
        strstr(why.msg, "is rank 1")); /* itself */

  check_assert_aborts();
  free(ring);
  op_exit();
  return 0;
}
