/* SPDX-License-Identifier: BSD-3-Clause */
/* A kernel text's facts (jit/kernel_facts.c), read once: the names its code uses (members,
 * comments, literals and numbers' suffixes are no names of its own), its parameters, and the
 * engine handing the same record to every later loop with the same text and name, while keeping
 * no more than OP2_FACTS_KEPT of them; whether it prints (lazy execution runs such a call at
 * once); whether it needs C++; its text as the C file holds it, lowered once per what that
 * depends on. */
#include "test.h"
#include "runtime/op2_impl.h"
#include "jit/jit_internal.h"
#include "jit/kernel_facts.h"

static const char text[] =
    "/* gam in a comment */\n"
    "void k(const double *q, double *r, const int *n) {\n"
    "  double f = gm1 * q[0] + s.eps + p->cfl + 1.5e3f + 0x1fULL;\n"
    "  r[0] += f > alpha ? f : \"qinf\"[0] + 'x';\n"
    "  r[1] += *n;\n"
    "}\n";

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  op2_kernel_facts *f = op2_kernel_facts_read(text, "k");
  CHECK(f != NULL);
  /* names of its own: the parameters, locals, constants it reads, the struct variables */
  const char *named[] = {"k", "q", "r", "n", "f", "gm1", "s", "p", "alpha", "double", "void"};
  for (size_t i = 0; i < sizeof named / sizeof *named; i++)
    CHECK(op2_kernel_facts_names(f, named[i]));
  /* and not: members, a comment's and a literal's words, numbers' suffixes, a prefix of a name */
  const char *unnamed[] = {"eps", "cfl",  "gam", "qinf", "x", "e3f",
                           "ULL", "fULL", "gm",  "alph", ""};
  for (size_t i = 0; i < sizeof unnamed / sizeof *unnamed; i++)
    CHECK(!op2_kernel_facts_names(f, unnamed[i]));
  /* its parameters, read from the same blanked text */
  CHECK_EQ_INT(f->params_rc, OP2_OK);
  CHECK_EQ_INT(f->nparams, 3);
  CHECK(strcmp(f->params[2].name, "n") == 0 && strcmp(f->params[2].base, "int") == 0);
  CHECK(f->params[0].pointee_const && !f->params[1].pointee_const);

  /* it prints when its code names an output call, not when a comment or literal does */
  CHECK(!f->prints);
  op2_kernel_facts_free(f);
  f = op2_kernel_facts_read("void k(double *a) { if (a[0] < 0) fprintf(stderr, \"%g\", a[0]); }",
                            "k");
  CHECK(f != NULL && f->prints);
  op2_kernel_facts_free(f);
  f = op2_kernel_facts_read("void k(double *a) { /* printf */ a[0] = sizeof \"cout\"; }", "k");
  CHECK(f != NULL && !f->prints);
  op2_kernel_facts_free(f);
  CHECK(!op2_kernel_prints(op2_ctx()->jit_engine, "void k(int *a) { a[0] = 1; }", "k"));
  CHECK(op2_kernel_prints(op2_ctx()->jit_engine, "void k(int *a) { puts(\"x\"); }", "k"));

  /* it needs C++ when its code uses `auto` (C would read an int), not when a comment, a literal
   * or a longer name holds the word */
  f = op2_kernel_facts_read("void k(double *a) { auto t = a[0] * 2; a[1] = t; }", "k");
  CHECK(f != NULL && f->needs_cxx != NULL && strstr(f->needs_cxx, "auto"));
  op2_kernel_facts_free(f);
  f = op2_kernel_facts_read(
      "void k(double *automatic) { /* auto */ automatic[0] = sizeof \"auto\"; }", "k");
  CHECK(f != NULL && f->needs_cxx == NULL);
  op2_kernel_facts_free(f);

  /* a text the parameter reader does not understand: said, not guessed */
  f = op2_kernel_facts_read("void k(VEC q) { }", "k");
  CHECK(f != NULL && f->params_rc == OP2_ERR_ARG);
  op2_kernel_facts_free(f);

  /* the engine: one record per text and name, the same for a later loop */
  op2_jit *jit = op2_ctx()->jit_engine;
  const op2_kernel_facts *a = op2_kernel_facts_of(jit, text, "k");
  CHECK(a != NULL && op2_kernel_facts_of(jit, text, "k") == a);
  const op2_kernel_facts *other = op2_kernel_facts_of(jit, text, "other");
  CHECK(other != NULL && other != a && other->params_rc == OP2_ERR_ARG);
  /* no more than OP2_FACTS_KEPT records: the oldest go first, and come back read again */
  char more[64];
  for (int i = 0; i < OP2_FACTS_KEPT; i++) {
    snprintf(more, sizeof more, "void k(int *a) { a[0] = %d; }", i);
    const op2_kernel_facts *m = op2_kernel_facts_of(jit, more, "k");
    CHECK(m != NULL && m->nparams == 1);
  }
  const op2_kernel_facts *again = op2_kernel_facts_of(jit, text, "k");
  CHECK(again != NULL && again->nparams == 3 && op2_kernel_facts_names(again, "gm1"));

  /* the text as the C file holds it, lowered once per text, name, rewrite_std and constants'
   * names: the same again, and different where the constants differ (the extern declaration of
   * a declared constant is blanked, of an undeclared one kept) */
  const char *decl = "extern double cfl;\nvoid k(double *a) { a[0] = cfl; }\n";
  op2_const cfl = {.name = "cfl"}, unrelated = {.name = "unrelated"};
  op2_const *with_cfl[] = {&cfl}, *without_cfl[] = {&unrelated};
  op2_loop_desc d1 = {.name = "k", .consts = with_cfl, .nconsts = 1};
  op2_loop_desc d2 = {.name = "k", .consts = without_cfl, .nconsts = 1};
  op2_buf once = {0}, twice = {0}, plain = {0}, other_consts = {0};
  op2_kernel_text_for_c(&d1, decl, 1, &plain);
  op2_kernel_text_for_c_kept(jit, &d1, decl, 1, &once);
  op2_kernel_text_for_c_kept(jit, &d1, decl, 1, &twice);
  op2_kernel_text_for_c_kept(jit, &d2, decl, 1, &other_consts);
  CHECK(!plain.failed && !once.failed && !twice.failed && !other_consts.failed);
  CHECK(strcmp(once.data, plain.data) == 0 && strcmp(twice.data, plain.data) == 0);
  CHECK(strstr(plain.data, "extern double cfl;") == NULL);
  CHECK(strstr(other_consts.data, "extern double cfl;") != NULL);
  op2_buf_free(&once), op2_buf_free(&twice), op2_buf_free(&plain), op2_buf_free(&other_consts);
  op_exit();
  return 0;
}
