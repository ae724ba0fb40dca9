/* SPDX-License-Identifier: BSD-3-Clause */
/* OP2's airfoil_tempdats pattern on every backend (cuda-emu too) and under MPI: each iteration
 * declares its temporaries (in an order that changes, so a new one may land at a freed one's
 * address), uses them directly and through a map (written, incremented, read, a reduction
 * beside them), and frees them. Every iteration alternates between two kernels for the
 * indirect loop (a vector map argument or one argument per column), so a loop made at a freed
 * loop's address has another shape and would run wrong code if state kept for the freed one
 * were found again. Checked exactly (integer-valued doubles) against the same arithmetic in C.
 * On the CUDA backends the device copies are freed and the runs kept for the freed loops are
 * dropped: once an iteration's temporaries are freed, no run is held. A temporary freed from
 * the error handler while a queued call that uses it has not run is refused. */
#include "test.h"
#include "runtime/chain.h"
#include "runtime/op2_impl.h"
#ifdef OP2_TEST_CUDA
#include "runtime/cuda/cuda.h"
#endif

enum { NCELL = 300, NEDGE = 500, ITERS = 4 };

static const char *save_src =
    "static void save(const double *q, double *qold) {\n"
    "  for (int k = 0; k < 4; k++) qold[k] = q[k];\n"
    "}\n";
static const char *adt_src =
    "static void adt(const double *q, double *a) { a[0] = q[0] + q[1] > 0 ? 1.0 : 2.0; }\n";
/* the same flux, taken through a vector map argument or through one argument per column */
static const char *flux_vec_src =
    "static void flux(const double **q, const double **a, double **res) {\n"
    "  double f = q[0][2] - q[1][3] + a[0][0] - a[1][0];\n"
    "  for (int k = 0; k < 4; k++) { res[0][k] += f + k; res[1][k] -= f; }\n"
    "}\n";
static const char *flux_col_src =
    "static void flux(const double *q0, const double *q1, const double *a0, const double *a1,\n"
    "                 double *r0, double *r1) {\n"
    "  double f = q0[2] - q1[3] + a0[0] - a1[0];\n"
    "  for (int k = 0; k < 4; k++) { r0[k] += f + k; r1[k] -= f; }\n"
    "}\n";
static const char *update_src =
    "static void update(const double *qold, double *q, const double *res, const double *a,\n"
    "                   double *rms) {\n"
    "  for (int k = 0; k < 4; k++) {\n"
    "    q[k] = qold[k] + res[k] - a[0];\n"
    "    *rms += res[k] * res[k];\n"
    "  }\n"
    "}\n";
static const char *broken_src = "static void broken(double *t) { t[0] = undeclared_name; }\n";
static const char *twice_src = "static void twice(double *t) { t[0] = 2.0 * t[0] + 1.0; }\n";

static int edge_cells[2 * NEDGE];
static double q0[4 * NCELL];

/* The iteration in plain C: q and the rms, as the loops compute them. */
static double reference(double *q, int vec) {
  (void)vec; /* both kernels compute the same */
  static double qold[4 * NCELL], a[NCELL], res[4 * NCELL];
  memcpy(qold, q, sizeof qold);
  for (int c = 0; c < NCELL; c++) a[c] = q[4 * c] + q[4 * c + 1] > 0 ? 1.0 : 2.0;
  memset(res, 0, sizeof res);
  for (int e = 0; e < NEDGE; e++) {
    int c0 = edge_cells[2 * e], c1 = edge_cells[2 * e + 1];
    double f = q[4 * c0 + 2] - q[4 * c1 + 3] + a[c0] - a[c1];
    for (int k = 0; k < 4; k++) res[4 * c0 + k] += f + k, res[4 * c1 + k] -= f;
  }
  double rms = 0;
  for (int c = 0; c < NCELL; c++)
    for (int k = 0; k < 4; k++) {
      q[4 * c + k] = qold[4 * c + k] + res[4 * c + k] - a[c];
      rms += res[4 * c + k] * res[4 * c + k];
    }
  return rms;
}

static int errors;
static op_dat to_free; /* freed by the handler at the next error */
static int free_rc = 1;

static void handler(const char *message, void *user) {
  (void)user;
  errors++;
  fprintf(stderr, "(expected) %s\n", message);
  if (to_free) {
    op_dat d = to_free;
    to_free = NULL;
    free_rc = op_free_dat_temp(d);
  }
}

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  unsigned rng = 754;
  for (int e = 0; e < NEDGE; e++) {
    edge_cells[2 * e] = (int)(test_rand(&rng) % NCELL);
    edge_cells[2 * e + 1] = (int)(test_rand(&rng) % NCELL);
  }
  for (int i = 0; i < 4 * NCELL; i++) q0[i] = (double)(int)(test_rand(&rng) % 7) - 3.0;
  op_set cells = op_decl_set(NCELL, "cells"), edges = op_decl_set(NEDGE, "edges");
  op_map pecell = op_decl_map(edges, cells, 2, edge_cells, "pecell");
  op_dat p_q = op_decl_dat(cells, 4, "double", q0, "p_q");
  static double q[4 * NCELL], got[4 * NCELL];
  memcpy(q, q0, sizeof q);

  for (int it = 0; it < ITERS; it++) {
    /* declared in an order that changes: a new temporary may take a freed one's place */
    op_dat p_res, p_adt, p_qold;
    if (it % 2 == 0) {
      p_res = op_decl_dat_temp(cells, 4, "double", NULL, "p_res");
      p_adt = op_decl_dat_temp(cells, 1, "double", NULL, "p_adt");
      p_qold = op_decl_dat_temp(cells, 4, "double", q, "p_qold");
    } else {
      p_qold = op_decl_dat_temp(cells, 4, "double", q, "p_qold");
      p_adt = op_decl_dat_temp(cells, 1, "double", NULL, "p_adt");
      p_res = op_decl_dat_temp(cells, 4, "double", NULL, "p_res");
    }
    CHECK(p_res && p_adt && p_qold);
    int vec = it % 2 == 0;
    op_par_loop(save_src, "save", cells, op_arg_dat(p_q, -1, OP_ID, 4, "double", OP_READ),
                op_arg_dat(p_qold, -1, OP_ID, 4, "double", OP_WRITE));
    op_par_loop(adt_src, "adt", cells, op_arg_dat(p_q, -1, OP_ID, 4, "double", OP_READ),
                op_arg_dat(p_adt, -1, OP_ID, 1, "double", OP_WRITE));
    /* p_res must start as zeros: it is only added to */
    if (vec)
      op_par_loop(flux_vec_src, "flux", edges, op_arg_dat(p_q, -2, pecell, 4, "double", OP_READ),
                  op_arg_dat(p_adt, -2, pecell, 1, "double", OP_READ),
                  op_arg_dat(p_res, -2, pecell, 4, "double", OP_INC));
    else
      op_par_loop(flux_col_src, "flux", edges, op_arg_dat(p_q, 0, pecell, 4, "double", OP_READ),
                  op_arg_dat(p_q, 1, pecell, 4, "double", OP_READ),
                  op_arg_dat(p_adt, 0, pecell, 1, "double", OP_READ),
                  op_arg_dat(p_adt, 1, pecell, 1, "double", OP_READ),
                  op_arg_dat(p_res, 0, pecell, 4, "double", OP_INC),
                  op_arg_dat(p_res, 1, pecell, 4, "double", OP_INC));
    double rms = 0;
    op_par_loop(update_src, "update", cells, op_arg_dat(p_qold, -1, OP_ID, 4, "double", OP_READ),
                op_arg_dat(p_q, -1, OP_ID, 4, "double", OP_WRITE),
                op_arg_dat(p_res, -1, OP_ID, 4, "double", OP_READ),
                op_arg_dat(p_adt, -1, OP_ID, 1, "double", OP_READ),
                op_arg_gbl(&rms, 1, "double", OP_INC));
    double want = reference(q, vec);
    if (rms != want) {
      fprintf(stderr, "iteration %d: rms %.17g, expected %.17g\n", it, rms, want);
      return 1;
    }
    op_fetch_data(p_q, got);
    for (int i = 0; i < 4 * NCELL; i++)
      if (got[i] != q[i]) {
        fprintf(stderr, "iteration %d: q[%d] is %g, expected %g\n", it, i, got[i], q[i]);
        return 1;
      }
    if (it % 2 == 0) {
      CHECK_EQ_INT(op_free_dat_temp(p_res), 0);
      CHECK_EQ_INT(op_free_dat_temp(p_adt), 0);
      CHECK_EQ_INT(op_free_dat_temp(p_qold), 0);
    } else {
      CHECK_EQ_INT(op_free_dat_temp(p_qold), 0);
      CHECK_EQ_INT(op_free_dat_temp(p_res), 0);
      CHECK_EQ_INT(op_free_dat_temp(p_adt), 0);
    }
    /* every loop used a temporary: all of them, and what the backend kept for them, are gone */
    CHECK_EQ_INT(op2_ctx()->loops.count, 0);
#ifdef OP2_TEST_CUDA
    CHECK_EQ_INT(op2_cuda_runs_held(), 0);
#endif
  }

  /* Freed from the error handler while the chain runs: a queued call after the failed one uses
   * the temporary and has not run, so the free is refused; that call then runs on it. */
  op_set_error_handler(handler, NULL);
  op_dat tmp = op_decl_dat_temp(cells, 1, "double", NULL, "tmp");
  op_par_loop(broken_src, "broken", cells, op_arg_dat(tmp, -1, OP_ID, 1, "double", OP_WRITE));
  op_par_loop(twice_src, "twice", cells, op_arg_dat(tmp, -1, OP_ID, 1, "double", OP_RW));
  to_free = tmp;
  int before = errors;
  op_fetch_data(tmp, got);
  if (op2_chain_lazy(op2_ctx())) { /* eagerly the handler ran at the first call, with nothing set */
    CHECK_EQ_INT(errors - before, 2);
    CHECK_EQ_INT(free_rc, -1);
    CHECK_CONTAINS(op_last_error(),
                   "op_free_dat_temp 'tmp': a queued op_par_loop call that has "
                   "not run yet uses it");
    for (int c = 0; c < NCELL; c++) CHECK(got[c] == 1.0);
  }
  to_free = NULL;
  CHECK_EQ_INT(op_free_dat_temp(tmp), 0);
  op_exit();
  return 0;
}
