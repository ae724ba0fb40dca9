/* SPDX-License-Identifier: BSD-3-Clause */
/* Call sites (runtime/loop_site.c): a repeated call finds its loop without the search, and what
 * a site trusts by pointer cannot change under it:
 * - a string literal kernel called again is found at its site (every call after the first), its
 *   text trusted by pointer (in a read-only segment); a buffer's text is compared;
 * - a kernel text rewritten in the same buffer (deep inside, same length) runs the new kernel,
 *   and the old text in that buffer again runs the old one; a name buffer rewritten with the text
 *   names the new loop;
 * - a type string rewritten in its buffer is checked again (an error, not the old loop);
 * - one site on two sets (multigrid's levels) keeps both loops, each found at its site;
 * - a dat freed and another declared (maybe at the same address) never finds the old loop.
 * Lazily (the default; OP2_LAZY=off: eager) a call runs later from the chain's copies of its
 * texts, a buffer per place in the chain that its next call there reuses: the test runs each call
 * it counts as soon as it is made (run), so that it runs from the chain's first place, whose site
 * is found again by the next call there and compared (a copy is never trusted: the next call in
 * that place may be another kernel). */
#include "test.h"
#include "runtime/chain.h"
#include "runtime/op2_impl.h"

enum { N = 100, M = 30 };

static const char *add_src = "static void add(double *x) { x[0] += 1.0; }";

/* The calls made so far run now (lazily queued; eagerly they ran already). */
static void run(void) {
  test_run_queued();
}

static void add(op_set set, op_dat x) {
  op_par_loop(add_src, "add", set, op_arg_dat(x, -1, OP_ID, 1, "double", OP_RW));
  run();
}

static double first(op_dat d) {
  double v[N];
  op_fetch_data(d, v);
  return v[0];
}

/* The site whose loop is `name` on `set` (lazily its kernel is the chain's copy, not the
 * program's: found through its loop). */
static const op2_loop_site *site_of(const op2_loop_sites *sites, const char *name, op_set set) {
  for (size_t i = 0; i < sites->cap; i++) {
    const op2_loop_site *s = &sites->slots[i];
    if (s->key && s->set == set && strcmp(s->loop->name, name) == 0) return s;
  }
  return NULL;
}

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  test_catch_errors();
  bool lazy = op2_chain_lazy(op2_ctx());
  op2_loop_sites *sites = &op2_ctx()->loop_sites;
  op_set s = op_decl_set(N, "s"), coarse = op_decl_set(M, "coarse");
  op_dat x = op_decl_dat(s, 1, "double", NULL, "x");
  op_dat c = op_decl_dat(coarse, 1, "double", NULL, "c");

  /* a literal: found at its site from the second call on */
  add(s, x);
  unsigned long hits = sites->hits;
  for (int i = 0; i < 9; i++) add(s, x);
  CHECK_EQ_INT(sites->hits - hits, 9);
  CHECK_EQ_INT(first(x), 10);
  const op2_loop_site *site = site_of(sites, "add", s);
  CHECK(site);
  /* eagerly the program's literal, never compared; a string is trusted only where it lies in
   * read-only memory (lazily the chain's copy: compared) */
  CHECK(site->text_fixed == (site->kernel == add_src));
  CHECK(lazy || (site->kernel == add_src && site->text_fixed && site->types_fixed));

  /* one site, two sets, alternating: two loops, both found at the site */
  add(coarse, c);
  hits = sites->hits;
  for (int i = 0; i < 5; i++) add(s, x), add(coarse, c);
  CHECK_EQ_INT(sites->hits - hits, 10);
  CHECK_EQ_INT(first(x), 15);
  CHECK_EQ_INT(first(c), 6);

  /* a kernel text rewritten in its buffer, deep inside and at the same length */
  char src[160], name[16];
  snprintf(name, sizeof name, "seta");
  snprintf(src, sizeof src,
           "static void seta(double *x) {\n  /* padding padding */\n  x[0] = 1.0;\n}\n");
  op_par_loop(src, name, s, op_arg_dat(x, -1, OP_ID, 1, "double", OP_WRITE));
  CHECK_EQ_INT(first(x), 1);
  hits = sites->hits;
  op_par_loop(src, name, s, op_arg_dat(x, -1, OP_ID, 1, "double", OP_WRITE));
  run();
  CHECK_EQ_INT(sites->hits - hits, 1); /* an unchanged buffer is found at its site */
  site = site_of(sites, "seta", s);
  CHECK(site && !site->text_fixed && (lazy || site->kernel == src)); /* and compared */
  *strstr(src, "1.0") = '2';
  op_par_loop(src, name, s, op_arg_dat(x, -1, OP_ID, 1, "double", OP_WRITE));
  CHECK_EQ_INT(first(x), 2);
  *strstr(src, "2.0") = '1';
  op_par_loop(src, name, s, op_arg_dat(x, -1, OP_ID, 1, "double", OP_WRITE));
  CHECK_EQ_INT(first(x), 1);

  /* the name buffer rewritten with the text: a new loop under the new name */
  int loops = op2_ctx()->loops.count;
  snprintf(name, sizeof name, "setb");
  snprintf(src, sizeof src,
           "static void setb(double *x) {\n  /* padding padding */\n  x[0] = 3.0;\n}\n");
  op_par_loop(src, name, s, op_arg_dat(x, -1, OP_ID, 1, "double", OP_WRITE));
  CHECK_EQ_INT(first(x), 3);
  CHECK_EQ_INT(op2_ctx()->loops.count, loops + 1);

  /* a type string rewritten in its buffer: checked again */
  char type[8] = "double";
  op_par_loop(add_src, "add", s, op_arg_dat(x, -1, OP_ID, 1, type, OP_RW));
  op_par_loop(add_src, "add", s, op_arg_dat(x, -1, OP_ID, 1, type, OP_RW));
  CHECK_EQ_INT(first(x), 5);
  snprintf(type, sizeof type, "float");
  EXPECT_ERROR(op_par_loop(add_src, "add", s, op_arg_dat(x, -1, OP_ID, 1, type, OP_RW)), "float");
  CHECK_EQ_INT(first(x), 5);

  /* a dat freed and another declared: its loop is forgotten with its site */
  for (int round = 0; round < 3; round++) {
    op_dat t = op_decl_dat_temp(s, 1, "double", NULL, "t");
    add(s, t), add(s, t);
    CHECK_EQ_INT(first(t), 2);
    CHECK_EQ_INT(op_free_dat_temp(t), 0);
  }
  op_exit();
  puts("t118-call-site: ok");
  return 0;
}
