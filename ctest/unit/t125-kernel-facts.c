/* SPDX-License-Identifier: BSD-3-Clause */
/* A kernel text's facts (jit/kernel_facts.c), read once: the names its code uses (members,
 * comments, literals and numbers' suffixes are no names of its own), its parameters, and the
 * engine handing the same record to every later loop with the same text and name, while keeping
 * no more than OP2_FACTS_KEPT of them; whether it prints (lazy execution runs such a call at
 * once). */
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
  CHECK(!op2_kernel_prints(op2_ctx()->jit_engine, "void k(int *a) { a[0] = 1; }", "k"));
  CHECK(op2_kernel_prints(op2_ctx()->jit_engine, "void k(int *a) { puts(\"x\"); }", "k"));

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
  op_exit();
  return 0;
}
