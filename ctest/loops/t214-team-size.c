/* SPDX-License-Identifier: BSD-3-Clause */
/* The OpenMP backend when OpenMP gives it fewer threads than it planned for: a thread limit
 * (OMP_THREAD_LIMIT below OMP_NUM_THREADS), dynamic teams (OMP_DYNAMIC=true with more threads
 * asked for than the machine has) and a call from inside a parallel region (argv[1] "nested",
 * where the inner team has one thread). Every element must still run exactly once: a direct loop
 * and a thread-owned indirect increment over a chain (which gets thread-owned ranges) with global
 * reductions, against plain C. The mode's team really is smaller, or the test has nothing to
 * check and says so (exit 77, skipped). */
#include <omp.h>

#include "random_mesh.h"

enum { NE = 60000, NN = NE + 1 };

KERNEL(
    ts_direct, static void ts_direct(const int *w, int *out, int *count) {
      out[0] = 3 * w[0] + 1;
      *count += 1;
    })

KERNEL(
    ts_inc, static void ts_inc(const int *w, int *left, int *right, int *count, int *sum) {
      left[0] += w[0];
      right[0] += 2 * w[0];
      *count += 1;
      *sum += w[0];
    })

/* The size of the team a plain parallel region gets here, as the backend's would. */
static int team_size(void) {
  int n = 0;
#pragma omp parallel num_threads(omp_get_max_threads())
  {
#pragma omp single
    n = omp_get_num_threads();
  }
  return n;
}

static void run_and_check(op_set edges, op_dat dw, op_dat dout, op_dat dnode, op_map chain,
                          const int *w) {
  int count = 0, sum = 0;
  op_par_loop_args(ts_direct_src, "ts_direct", edges, 3,
                   (op_arg[]){op_arg_dat(dw, -1, OP_ID, 1, "int", OP_READ),
                              op_arg_dat(dout, -1, OP_ID, 1, "int", OP_WRITE),
                              op_arg_gbl(&count, 1, "int", OP_INC)});
  int *out = rm_alloc(NE * sizeof(int)), *node = rm_alloc(NN * sizeof(int));
  op_fetch_data(dout, out);
  int want_direct = 0;
  for (int e = 0; e < NE; e++) {
    int o;
    ts_direct(&w[e], &o, &want_direct);
    CHECK_EQ_INT(out[e], o);
  }
  CHECK_EQ_INT(count, want_direct);

  count = 0;
  op_par_loop_args(
      ts_inc_src, "ts_inc", edges, 5,
      (op_arg[]){op_arg_dat(dw, -1, OP_ID, 1, "int", OP_READ),
                 op_arg_dat(dnode, 0, chain, 1, "int", OP_INC),
                 op_arg_dat(dnode, 1, chain, 1, "int", OP_INC),
                 op_arg_gbl(&count, 1, "int", OP_INC), op_arg_gbl(&sum, 1, "int", OP_INC)});
  int *want = rm_alloc(NN * sizeof(int)), want_count = 0, want_sum = 0;
  for (int e = 0; e < NE; e++) ts_inc(&w[e], &want[e], &want[e + 1], &want_count, &want_sum);
  CHECK_EQ_INT(count, want_count);
  CHECK_EQ_INT(sum, want_sum);
  op_fetch_data(dnode, node);
  for (int n = 0; n < NN; n++) CHECK_EQ_INT(node[n], want[n]);
  free(out), free(node), free(want);
}

int main(int argc, char **argv) {
  int nested = argc > 1 && !strcmp(argv[1], "nested");
  /* One active level: the inner region of a nested call gets a team of one. */
  omp_set_max_active_levels(1);
  op_init(argc, argv, 0);
  int planned = omp_get_max_threads();
  if (planned < 2) {
    fprintf(stderr, "OpenMP plans for one thread here: nothing to check\n");
    return 77;
  }
  int *w = rm_alloc(NE * sizeof(int)), *chain = rm_alloc(2 * (size_t)NE * sizeof(int));
  unsigned rng = rm_rng(214);
  for (int e = 0; e < NE; e++) {
    w[e] = rm_below(&rng, 100) + 1;
    chain[2 * e] = e;
    chain[2 * e + 1] = e + 1;
  }
  op_set edges = op_decl_set(NE, "edges"), nodes = op_decl_set(NN, "nodes");
  op_map pchain = op_decl_map(edges, nodes, 2, chain, "chain");
  op_dat dw = op_decl_dat(edges, 1, "int", w, "w");
  op_dat dout = op_decl_dat(edges, 1, "int", NULL, "out");
  op_dat dnode = op_decl_dat(nodes, 1, "int", NULL, "node");
  int smaller = 0;
  if (nested) {
#pragma omp parallel num_threads(2)
    {
#pragma omp single
      {
        smaller = team_size() < planned;
        if (smaller) run_and_check(edges, dw, dout, dnode, pchain, w);
      }
    }
  } else {
    smaller = team_size() < planned;
    if (smaller) run_and_check(edges, dw, dout, dnode, pchain, w);
  }
  op_exit();
  free(w), free(chain);
  if (!smaller) {
    fprintf(stderr, "OpenMP gave the full team of %d threads: nothing to check\n", planned);
    return 77;
  }
  return 0;
}
