/* SPDX-License-Identifier: BSD-3-Clause */
/* Loop signatures and kernel keys: a key changes with anything that shapes the generated code
 * (kernel text, dims, access modes, constant values, compiler flags) and nothing else (dat names,
 * set sizes), and equal keys share one compiled kernel. */
#include "test.h"
#include "runtime/op2_impl.h"
#include "jit/jit_internal.h" /* white-box: the jit layer's internals */

static const char *copy_src = "void copy(const double *a, double *b) { b[0] = a[0] * scale; }\n";
static const char *copy_src2 = "void copy(const double *a, double *b) { b[0] = a[0] * scale;  }\n";

static op2_kernel *last_kernel(void) {
  op2_context *ctx = op2_ctx();
  op2_loop *l = ctx->loops.items[ctx->loops.count - 1];
  return l->kernel;
}

static op2_kernel *run_copy(const char *src, op_dat a, op_dat b, op_access acc) {
  op_par_loop(src, "copy", a->set, op_arg_dat(a, -1, OP_ID, a->dim, "double", OP_READ),
              op_arg_dat(b, -1, OP_ID, b->dim, "double", acc));
  test_run_queued(); /* lazy execution: the call finds or makes its loop when it runs */
  op2_context *ctx = op2_ctx();
  /* the loop used is the most recently matched or created one: find it by its dats */
  for (int i = ctx->loops.count - 1; i >= 0; i--) {
    op2_loop *l = ctx->loops.items[i];
    if (l->args[0].dat == a && l->args[1].dat == b && l->args[1].acc == acc &&
        strcmp(l->key_blob, src) == 0 && l->const_generation == ctx->const_generation)
      return l->kernel;
  }
  CHECK(!"loop not found");
  return NULL;
}

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  op2_context *ctx = op2_ctx();
  op_set s = op_decl_set(100, "s"), t = op_decl_set(57, "t");
  op_dat a1 = op_decl_dat(s, 1, "double", NULL, "a1"), b1 = op_decl_dat(s, 1, "double", NULL, "b1");
  op_dat c1 = op_decl_dat(s, 1, "double", NULL, "another_name");
  op_dat a3 = op_decl_dat(s, 3, "double", NULL, "a3"), b3 = op_decl_dat(s, 3, "double", NULL, "b3");
  op_dat ta = op_decl_dat(t, 1, "double", NULL, "ta"), tb = op_decl_dat(t, 1, "double", NULL, "tb");
  double scale = 2.0;
  op_decl_const(1, "double", &scale, "scale");

  op2_kernel *k0 = run_copy(copy_src, a1, b1, OP_WRITE);
  int compiles = ctx->jit.compiles + ctx->jit.disk_hits;
  int nloops = ctx->loops.count;

  /* The same call again: same loop shape, no new kernel. */
  CHECK(run_copy(copy_src, a1, b1, OP_WRITE) == k0);
  CHECK_EQ_INT(ctx->loops.count, nloops);
  CHECK_EQ_INT(ctx->jit.compiles + ctx->jit.disk_hits, compiles);

  /* Other dats with other names and another set size: a new loop shape, the same kernel. */
  CHECK(run_copy(copy_src, a1, c1, OP_WRITE) == k0);
  CHECK(run_copy(copy_src, ta, tb, OP_WRITE) == k0);
  CHECK_EQ_INT(ctx->jit.compiles + ctx->jit.disk_hits, compiles);

  /* Kernel text, dim and access mode each give a new key. */
  op2_kernel *k_text = run_copy(copy_src2, a1, b1, OP_WRITE);
  op2_kernel *k_dim = run_copy(copy_src, a3, b3, OP_WRITE);
  op2_kernel *k_acc = run_copy(copy_src, a1, b1, OP_RW);
  op2_kernel *keys[] = {k0, k_text, k_dim, k_acc};
  for (int i = 0; i < 4; i++)
    for (int j = i + 1; j < 4; j++)
      CHECK(keys[i]->key_hi != keys[j]->key_hi || keys[i]->key_lo != keys[j]->key_lo);

  /* A constant's value is part of the key; going back to the old value reuses the old kernel. */
  scale = 3.0;
  op_decl_const(1, "double", &scale, "scale");
  op2_kernel *k_const = run_copy(copy_src, a1, b1, OP_WRITE);
  CHECK(k_const != k0);
  double out[100];
  op_fetch_data(b1, out);
  CHECK_EQ_INT(out[0] == 0.0, 1); /* a1 is zero: check the value on real data below */
  scale = 2.0;
  op_decl_const(1, "double", &scale, "scale");
  int before = ctx->jit.compiles + ctx->jit.disk_hits;
  CHECK(run_copy(copy_src, a1, b1, OP_WRITE) == k0);
  CHECK_EQ_INT(ctx->jit.compiles + ctx->jit.disk_hits, before);
  /* Redeclaring a constant with its current value changes nothing. */
  unsigned gen = ctx->const_generation;
  op_decl_const(1, "double", &scale, "scale");
  CHECK_EQ_INT(ctx->const_generation, gen);

  /* A constant the kernel does not use is not in its key. */
  int unrelated = 7;
  op_decl_const(1, "int", &unrelated, "unrelated");
  CHECK(run_copy(copy_src, a1, b1, OP_WRITE) == k0);

  /* Compiler identity and flags are part of the key. */
  op2_cache_key x, y, z;
  op2_cache_key_make("int f;", 6, "tcc 1", "-O0", &x);
  op2_cache_key_make("int f;", 6, "tcc 1", "-O1", &y);
  op2_cache_key_make("int f;", 6, "tcc 2", "-O0", &z);
  CHECK(strcmp(x.hex, y.hex) != 0 && strcmp(x.hex, z.hex) != 0 && strcmp(y.hex, z.hex) != 0);
  op2_cache_key_make("int f;", 6, "tcc 1", "-O0", &y);
  CHECK(strcmp(x.hex, y.hex) == 0);

  /* The generated source carries the signature in words and the constant as an exact literal. */
  op2_loop *l = ctx->loops.items[0];
  op2_generated gen_src;
  op2_loop_desc d;
  op2_loop_describe(ctx, l, &d);
  CHECK_EQ_INT(op2_codegen_c(ctx->jit_engine, &d, copy_src, &gen_src), OP2_OK);
  CHECK_CONTAINS(gen_src.source.data, "loop copy, target c");
  CHECK_CONTAINS(gen_src.source.data, "arg 0: dat 0 double[1] OP_READ direct");
  CHECK_CONTAINS(gen_src.source.data, "arg 1: dat 1 double[1] OP_WRITE direct");
  CHECK_CONTAINS(gen_src.source.data, "static const double scale = 0x1p+1");
  CHECK(strstr(gen_src.source.data, "unrelated") == NULL);
  CHECK(strstr(gen_src.source.data, "a1") == NULL); /* no dat names: shapes share kernels */
  op2_buf_free(&gen_src.source);
  op2_buf_free(&gen_src.signature);

  /* And the kernel really computes with the baked value. */
  double ones[100];
  for (int i = 0; i < 100; i++) ones[i] = i;
  op_dat src = op_decl_dat(s, 1, "double", ones, "src");
  run_copy(copy_src, src, b1, OP_WRITE);
  op_fetch_data(b1, out);
  for (int i = 0; i < 100; i++) CHECK_EQ_INT(out[i] == 2.0 * i, 1);
  (void)last_kernel;
  op_exit();
  return 0;
}
