/* SPDX-License-Identifier: BSD-3-Clause */
/* Direct loops: READ, WRITE and RW arguments of every type and of dims 1, 3 and 4 must give
 * exactly the bytes plain C gives, whichever backend runs them (no reordering happens inside an
 * element, so even floating point must agree bit for bit). */
#include "random_mesh.h"

/* One kernel per (type, dim), written once and both compiled here and given to op_par_loop. */
#define DIRECT_CODE(NAME, T, D)                 \
  static void NAME(const T *a, T *w, T *rw) {   \
    for (int k = 0; k < D; k++) {               \
      w[k] = a[k] * (T)3 + (T)k;                \
      rw[k] = rw[k] / (T)3 - a[k] * (T)(k + 1); \
    }                                           \
  }
#define DIRECT(NAME, T, D)                                                                 \
  DIRECT_CODE(NAME, T, D)                                                                  \
  static const char NAME##_src[] = RM_STR(DIRECT_CODE(NAME, T, D));                        \
  static void NAME##_ref(int n, const void *a, void *w, void *rw) {                        \
    for (int e = 0; e < n; e++)                                                            \
      NAME((const T *)a + (size_t)D * e, (T *)w + (size_t)D * e, (T *)rw + (size_t)D * e); \
  }

typedef long long llong;
DIRECT(direct_double_1, double, 1)
DIRECT(direct_double_3, double, 3)
DIRECT(direct_double_4, double, 4)
DIRECT(direct_float_1, float, 1)
DIRECT(direct_float_3, float, 3)
DIRECT(direct_float_4, float, 4)
DIRECT(direct_int_1, int, 1)
DIRECT(direct_int_3, int, 3)
DIRECT(direct_int_4, int, 4)
DIRECT(direct_llong_1, long long, 1)
DIRECT(direct_llong_3, long long, 3)
DIRECT(direct_llong_4, long long, 4)

/* Several types in one loop: argument pointers must each advance by their own element size. */
KERNEL(
    direct_mixed, static void direct_mixed(const int *i, const long long *l, const float *f,
                                           double *d, float *g, long long *m) {
      d[0] = (double)i[0] + (double)l[0] * 0.5 + (double)f[1];
      d[1] = (double)f[0] * (double)i[1];
      g[0] = g[0] * f[0] + f[1];
      m[0] = m[0] * 3 + l[0] - (long long)i[1];
      m[1] = l[0] / 7;
    })

enum { N = 20011 }; /* not a multiple of any chunk or block size */

static void fill(void *buf, size_t n, const char *type, unsigned *rng) {
  for (size_t i = 0; i < n; i++) {
    double x = rm_uniform(rng, -1000, 1000);
    if (!strcmp(type, "double"))
      ((double *)buf)[i] = x;
    else if (!strcmp(type, "float"))
      ((float *)buf)[i] = (float)x;
    else if (!strcmp(type, "int"))
      ((int *)buf)[i] = (int)(x * 1000);
    else
      ((long long *)buf)[i] = (long long)(x * 1e9) * 1000 + (long long)i; /* beyond 32 bits */
  }
}

typedef void (*direct_ref)(int n, const void *a, void *w, void *rw);

static void check_direct(op_set set, const char *src, const char *name, const char *type,
                         size_t tsize, int dim, direct_ref ref, unsigned seed) {
  unsigned rng = rm_rng(seed);
  size_t n = (size_t)N * (size_t)dim;
  char *a = rm_alloc(n * tsize), *w = rm_alloc(n * tsize), *rw = rm_alloc(n * tsize);
  char *got = rm_alloc(n * tsize);
  fill(a, n, type, &rng);
  fill(w, n, type, &rng); /* garbage that WRITE must overwrite everywhere */
  fill(rw, n, type, &rng);
  op_dat da = op_decl_dat(set, dim, type, a, "a");
  op_dat dw = op_decl_dat(set, dim, type, w, "w");
  op_dat drw = op_decl_dat(set, dim, type, rw, "rw");
  op_par_loop_args(src, name, set, 3,
                   (op_arg[]){op_arg_dat(da, -1, OP_ID, dim, type, OP_READ),
                              op_arg_dat(dw, -1, OP_ID, dim, type, OP_WRITE),
                              op_arg_dat(drw, -1, OP_ID, dim, type, OP_RW)});
  ref(N, a, w, rw);
  op_fetch_data(da, got);
  rm_check_same(got, a, n, tsize, name); /* READ leaves the data alone */
  op_fetch_data(dw, got);
  rm_check_same(got, w, n, tsize, name);
  op_fetch_data(drw, got);
  rm_check_same(got, rw, n, tsize, name);
  free(a), free(w), free(rw), free(got);
}

#define CHECK_DIRECT(NAME, T, TYPE, D, SEED) \
  check_direct(set, NAME##_src, #NAME, TYPE, sizeof(T), D, NAME##_ref, SEED)

static void check_mixed(op_set set) {
  unsigned rng = rm_rng(99);
  int *i = rm_alloc(2 * N * sizeof *i);
  long long *l = rm_alloc(N * sizeof *l), *m = rm_alloc(2 * N * sizeof *m);
  float *f = rm_alloc(2 * N * sizeof *f), *g = rm_alloc(N * sizeof *g);
  double *d = rm_alloc(2 * N * sizeof *d), *dgot = rm_alloc(2 * N * sizeof *d);
  float *ggot = rm_alloc(N * sizeof *g);
  long long *mgot = rm_alloc(2 * N * sizeof *m);
  fill(i, 2 * N, "int", &rng);
  fill(l, N, "long long", &rng);
  fill(f, 2 * N, "float", &rng);
  fill(g, N, "float", &rng);
  fill(m, 2 * N, "long long", &rng);
  op_dat di = op_decl_dat(set, 2, "int", i, "i"), dl = op_decl_dat(set, 1, "long long", l, "l");
  op_dat df = op_decl_dat(set, 2, "float", f, "f"), dd = op_decl_dat(set, 2, "double", NULL, "d");
  op_dat dg = op_decl_dat(set, 1, "float", g, "g"), dm = op_decl_dat(set, 2, "long long", m, "m");
  op_par_loop(direct_mixed_src, "direct_mixed", set, op_arg_dat(di, -1, OP_ID, 2, "int", OP_READ),
              op_arg_dat(dl, -1, OP_ID, 1, "long long", OP_READ),
              op_arg_dat(df, -1, OP_ID, 2, "float", OP_READ),
              op_arg_dat(dd, -1, OP_ID, 2, "double", OP_WRITE),
              op_arg_dat(dg, -1, OP_ID, 1, "float", OP_RW),
              op_arg_dat(dm, -1, OP_ID, 2, "long long", OP_RW));
  for (int e = 0; e < N; e++)
    direct_mixed(i + 2 * e, l + e, f + 2 * e, d + 2 * e, g + e, m + 2 * e);
  op_fetch_data(dd, dgot);
  op_fetch_data(dg, ggot);
  op_fetch_data(dm, mgot);
  rm_check_same(dgot, d, 2 * N, sizeof *d, "direct_mixed d");
  rm_check_same(ggot, g, N, sizeof *g, "direct_mixed g");
  rm_check_same(mgot, m, 2 * N, sizeof *m, "direct_mixed m");
  free(i), free(l), free(m), free(f), free(g), free(d), free(dgot), free(ggot), free(mgot);
}

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  op_set set = op_decl_set(N, "elements");
  CHECK_DIRECT(direct_double_1, double, "double", 1, 1);
  CHECK_DIRECT(direct_double_3, double, "double", 3, 2);
  CHECK_DIRECT(direct_double_4, double, "double", 4, 3);
  CHECK_DIRECT(direct_float_1, float, "float", 1, 4);
  CHECK_DIRECT(direct_float_3, float, "float", 3, 5);
  CHECK_DIRECT(direct_float_4, float, "float", 4, 6);
  CHECK_DIRECT(direct_int_1, int, "int", 1, 7);
  CHECK_DIRECT(direct_int_3, int, "int", 3, 8);
  CHECK_DIRECT(direct_int_4, int, "int", 4, 9);
  CHECK_DIRECT(direct_llong_1, llong, "long long", 1, 10);
  CHECK_DIRECT(direct_llong_3, llong, "long long", 3, 11);
  CHECK_DIRECT(direct_llong_4, llong, "long long", 4, 12);
  check_mixed(set);
  op_exit();
  return 0;
}
