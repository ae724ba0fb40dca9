/* SPDX-License-Identifier: BSD-3-Clause */
/* Constants with special values, double and float: -0.0, a subnormal, quiet NaNs with a payload
 * (positive and negative), +Inf and -Inf. Declared once they are baked into the kernel (not
 * live) and the kernel writes them bit for bit; after each constant has taken more values than
 * are baked (so C kernels read it at run time) and is set back to its special value, the kernel
 * again writes exactly those bits. Run under OP2_JIT=tcc, OP2_JIT=cc and cuda-emu with NVRTC
 * verification (meson). */
#include <stdint.h>

#include "test.h"
#include "runtime/op2_impl.h"

enum { NV = 6, N = 64 };

static const uint64_t dbits[NV] = {
    0x8000000000000000ull, /* -0.0 */
    0x000000000000abcdull, /* subnormal */
    0x7ff8000000000abcull, /* quiet NaN, payload */
    0xfff8000000000123ull, /* negative quiet NaN, payload */
    0x7ff0000000000000ull, /* +Inf */
    0xfff0000000000000ull, /* -Inf */
};
static const uint32_t fbits[NV] = {0x80000000u, 0x00000abcu, 0x7fc00abcu,
                                   0xffc00123u, 0x7f800000u, 0xff800000u};
static const char *names[NV] = {"negz", "sub", "qnan", "nnan", "pinf", "ninf"};

static const char *kernel_src =
    "void specials(double *d, float *f) {\n"
    "  d[0] = d_negz; d[1] = d_sub; d[2] = d_qnan; d[3] = d_nnan; d[4] = d_pinf; d[5] = d_ninf;\n"
    "  f[0] = f_negz; f[1] = f_sub; f[2] = f_qnan; f[3] = f_nnan; f[4] = f_pinf; f[5] = f_ninf;\n"
    "}\n";
/* An array constant with every special value, read by index. */
static const char *array_src =
    "void specials_array(double *d, float *f) {\n"
    "  for (int i = 0; i < 6; i++) { d[i] = d_all[i]; f[i] = f_all[i]; }\n"
    "}\n";

static double dval(int i) {
  double v;
  memcpy(&v, &dbits[i], sizeof v);
  return v;
}

static float fval(int i) {
  float v;
  memcpy(&v, &fbits[i], sizeof v);
  return v;
}

static void declare_all(int shift) {
  double dall[NV];
  float fall[NV];
  for (int i = 0; i < NV; i++) {
    char dn[16], fn[16];
    snprintf(dn, sizeof dn, "d_%s", names[i]);
    snprintf(fn, sizeof fn, "f_%s", names[i]);
    double d = shift ? 1.5 * shift + i : dval(i);
    float f = shift ? 2.5f * (float)shift + (float)i : fval(i);
    op_decl_const(1, "double", &d, dn);
    op_decl_const(1, "float", &f, fn);
    dall[i] = d, fall[i] = f;
  }
  op_decl_const(NV, "double", dall, "d_all");
  op_decl_const(NV, "float", fall, "f_all");
}

static void run_and_check(op_set s, op_dat dd, op_dat df, const char *phase) {
  static double d[N * NV];
  static float f[N * NV];
  const char *srcs[2] = {kernel_src, array_src}, *loop_names[2] = {"specials", "specials_array"};
  for (int k = 0; k < 2; k++) {
    op_par_loop(srcs[k], loop_names[k], s, op_arg_dat(dd, -1, OP_ID, NV, "double", OP_WRITE),
                op_arg_dat(df, -1, OP_ID, NV, "float", OP_WRITE));
    op_fetch_data(dd, d);
    op_fetch_data(df, f);
    for (int e = 0; e < N; e++)
      for (int i = 0; i < NV; i++) {
        uint64_t gd;
        uint32_t gf;
        memcpy(&gd, &d[e * NV + i], sizeof gd);
        memcpy(&gf, &f[e * NV + i], sizeof gf);
        if (gd != dbits[i] || gf != fbits[i]) {
          fprintf(stderr,
                  "t113: %s, loop %s, element %d, %s: double 0x%016llx (want 0x%016llx), float "
                  "0x%08x (want 0x%08x)\n",
                  phase, loop_names[k], e, names[i], (unsigned long long)gd,
                  (unsigned long long)dbits[i], gf, fbits[i]);
          exit(1);
        }
      }
  }
}

static int live_count(void) {
  op2_context *ctx = op2_ctx();
  int n = 0;
  for (int i = 0; i < ctx->consts.count; i++) n += ((op2_const *)ctx->consts.items[i])->live;
  return n;
}

int main(void) {
  op_init(0, NULL, 0);
  op_set s = op_decl_set(N, "s");
  static double d0[N * NV];
  static float f0[N * NV];
  op_dat dd = op_decl_dat(s, NV, "double", d0, "d");
  op_dat df = op_decl_dat(s, NV, "float", f0, "f");
  declare_all(0);
  CHECK_EQ_INT(live_count(), 0); /* every special value has an exact literal: baked */
  run_and_check(s, dd, df, "baked");
  /* New values beyond the baked ones make every constant live, then the special values again. */
  for (int v = 1; v <= OP2_CONST_BAKED_VALUES + 1; v++) declare_all(v);
  declare_all(0);
  CHECK_EQ_INT(live_count(), 2 * NV + 2);
  run_and_check(s, dd, df, "live");
  op_exit();
  printf("t113: -0.0, subnormal, NaN payloads and infinities exact, baked and live\n");
  return 0;
}
