/* SPDX-License-Identifier: BSD-3-Clause */
/* Tiny sets: sizes 0, 1 and 7, far below a block or a thread's share. Direct, indirect (every
 * element of a 7-set hitting the single element of a 1-set: all conflicts), vector, index and
 * global arguments must still match plain C, and a loop over the empty set must leave every dat
 * and global as it was. */
#include <float.h>

#include "random_mesh.h"

KERNEL(
    tiny_direct, static void tiny_direct(const int *i, const double *a, double *b, long long *c) {
      b[0] = a[0] * 3.0 + (double)*i;
      b[1] = a[1] - a[0];
      c[0] = c[0] * 2 + *i;
    })

KERNEL(
    tiny_inc, static void tiny_inc(const double *w, const int *self, double *h0, double *h1,
                                   double **v, int *cnt, double *sum, double *mn, int *mx) {
      h0[0] += w[0];
      h1[0] += 2.0 * w[0];
      for (int j = 0; j < 3; j++) v[j][0] += w[0] * (double)(j + 1);
      cnt[0] += 1;
      *sum += w[0];
      *mn = MIN(*mn, w[0]);
      *mx = MAX(*mx, *self);
    })

typedef struct tiny {
  int n;      /* elements in the loop set */
  op_set set; /* size n */
  op_map to1; /* set -> one, arity 2: every entry is 0 */
  op_map to7; /* set -> seven, arity 3 */
  int *v7;    /* to7's values */
} tiny;

static void check_direct(const tiny *t, unsigned seed) {
  unsigned rng = rm_rng(seed);
  int n = t->n;
  double *a = rm_doubles(2 * (size_t)n, -1, 1, &rng), *b = rm_doubles(2 * (size_t)n, 5, 6, &rng);
  long long *c = rm_alloc((size_t)n * sizeof *c + 8);
  for (int e = 0; e < n; e++) c[e] = 1000000000000LL + e;
  double *got = rm_alloc(2 * (size_t)n * sizeof *got + 8);
  long long *cgot = rm_alloc((size_t)n * sizeof *cgot + 8);
  op_dat da = op_decl_dat(t->set, 2, "double", a, "a");
  op_dat db = op_decl_dat(t->set, 2, "double", b, "b");
  op_dat dc = op_decl_dat(t->set, 1, "long long", c, "c");
  op_par_loop(tiny_direct_src, "tiny_direct", t->set, op_arg_idx(-1, OP_ID),
              op_arg_dat(da, -1, OP_ID, 2, "double", OP_READ),
              op_arg_dat(db, -1, OP_ID, 2, "double", OP_WRITE),
              op_arg_dat(dc, -1, OP_ID, 1, "long long", OP_RW));
  for (int e = 0; e < n; e++) tiny_direct(&e, a + 2 * e, b + 2 * e, c + e);
  op_fetch_data(db, got);
  rm_check_same(got, b, 2 * (size_t)n, sizeof *b, "tiny_direct b");
  op_fetch_data(dc, cgot);
  rm_check_same(cgot, c, (size_t)n, sizeof *c, "tiny_direct c");
  free(a), free(b), free(c), free(got), free(cgot);
}

static void check_inc(const tiny *t, op_set one, op_set seven, unsigned seed) {
  unsigned rng = rm_rng(seed);
  int n = t->n;
  double *w = rm_doubles((size_t)n, 0.5, 1.5, &rng);
  double h[1] = {0.25}, v[7];
  int cnt[7] = {0};
  for (int j = 0; j < 7; j++) v[j] = (double)j;
  op_dat dw = op_decl_dat(t->set, 1, "double", w, "w");
  op_dat dh = op_decl_dat(one, 1, "double", h, "h");
  op_dat dv = op_decl_dat(seven, 1, "double", v, "v");
  op_dat dcnt = op_decl_dat(seven, 1, "int", NULL, "cnt");
  double sum = 10.0, mn = 0.75; /* 0.75 is above some weights, below others */
  int mx = -1;
  op_par_loop(tiny_inc_src, "tiny_inc", t->set, op_arg_dat(dw, -1, OP_ID, 1, "double", OP_READ),
              op_arg_idx(-1, OP_ID), op_arg_dat(dh, 0, t->to1, 1, "double", OP_INC),
              op_arg_dat(dh, 1, t->to1, 1, "double", OP_INC),
              op_arg_dat(dv, -3, t->to7, 1, "double", OP_INC),
              op_arg_dat(dcnt, 2, t->to7, 1, "int", OP_INC), op_arg_gbl(&sum, 1, "double", OP_INC),
              op_arg_gbl(&mn, 1, "double", OP_MIN), op_arg_gbl(&mx, 1, "int", OP_MAX));
  double want_sum = 10.0, want_mn = 0.75;
  int want_mx = -1;
  for (int e = 0; e < n; e++) {
    double *vv[3] = {v + t->v7[3 * e], v + t->v7[3 * e + 1], v + t->v7[3 * e + 2]};
    tiny_inc(w + e, &e, h, h, vv, cnt + t->v7[3 * e + 2], &want_sum, &want_mn, &want_mx);
  }
  double hgot[1], vgot[7];
  int cgot[7];
  op_fetch_data(dh, hgot);
  op_fetch_data(dv, vgot);
  op_fetch_data(dcnt, cgot);
  rm_check_near(hgot, h, 1, 1e-12, "tiny_inc h");
  rm_check_near(vgot, v, 7, 1e-12, "tiny_inc v");
  rm_check_same(cgot, cnt, 7, sizeof *cnt, "tiny_inc cnt");
  CHECK_NEAR(sum, want_sum, 1e-12);
  CHECK(mn == want_mn);
  CHECK_EQ_INT(mx, want_mx);
  if (n == 0) { /* nothing ran */
    CHECK(hgot[0] == 0.25 && sum == 10.0 && mn == 0.75 && mx == -1);
    for (int j = 0; j < 7; j++) CHECK(vgot[j] == (double)j && cgot[j] == 0);
  }
  free(w);
}

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  op_set one = op_decl_set(1, "one"), seven = op_decl_set(7, "seven");
  unsigned rng = rm_rng(211);
  int sizes[3] = {0, 1, 7};
  for (int s = 0; s < 3; s++) {
    tiny t = {.n = sizes[s]};
    char name[32];
    snprintf(name, sizeof name, "set%d", t.n);
    t.set = op_decl_set(t.n, name);
    int *zeros = rm_alloc(2 * (size_t)t.n * sizeof *zeros);
    t.v7 = rm_map_values(t.n, 3, 7, RM_FULLY_RANDOM, &rng);
    t.to1 = op_decl_map(t.set, one, 2, t.n ? zeros : NULL, "to1");
    t.to7 = op_decl_map(t.set, seven, 3, t.n ? t.v7 : NULL, "to7");
    CHECK(t.set && t.to1 && t.to7);
    CHECK_EQ_INT(op_get_size(t.set), t.n);
    check_direct(&t, 10 + s);
    check_inc(&t, one, seven, 20 + s);
    free(zeros), free(t.v7);
  }
  op_exit();
  return 0;
}
