/* SPDX-License-Identifier: BSD-3-Clause */
/* A C++ kernel text without what its kernel does not reach (jit/cxx_prune.c): MG-CFD's layout,
 * a kernel header including the program's C++ header for nothing the kernel calls. What is left
 * out, what must stay (what the kernel reaches, directly or not; `using`; an operator; a macro
 * invoked at file scope), and the texts left as they are (C already; the kernel uses C++; the
 * braces not understood). Lines are kept. The loop's results through such a header, with the
 * C++ compiler switched off: t756-cxx-header-unused. */
#include "test.h"
#include "jit/cxx_prune.h"

static int cmath_has_c_form(const char *name, size_t len) {
  return len == 5 && strncmp(name, "cmath", 5) == 0;
}

/* The text op2_cxx_prune_toks makes of `src`: 1 and `out` when it pruned, 0 and nothing
 * written when it did not. */
static int prune_text(const char *src, const char *kernel, op2_header_has_c_form has_c_form,
                      op2_buf *out) {
  op2_toks T = {0};
  CHECK(op2_tokenize(&T, src) == 0);
  int pruned = op2_cxx_prune_toks(&T, kernel, has_c_form);
  if (pruned) op2_toks_render(&T, out);
  op2_toks_free(&T);
  return pruned;
}

static int lines(const char *s) {
  int n = 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}

/* The pruned text of src: it holds every `keep` word and none of the `gone` ones. */
static void prunes(const char *src, const char *const *keep, const char *const *gone) {
  op2_buf out = {0};
  if (prune_text(src, "kern", cmath_has_c_form, &out) != 1) {
    fprintf(stderr, "not pruned:\n%s\n", src);
    exit(1);
  }
  for (; *keep; keep++)
    if (!strstr(out.data, *keep)) {
      fprintf(stderr, "'%s' left out of:\n%s\ngave:\n%s\n", *keep, src, out.data);
      exit(1);
    }
  for (; *gone; gone++)
    if (strstr(out.data, *gone)) {
      fprintf(stderr, "'%s' kept in:\n%s\n", *gone, out.data);
      exit(1);
    }
  CHECK_EQ_INT(lines(src), lines(out.data));
  /* pruned again: nothing left to do (the generated file's text goes through twice) */
  op2_buf again = {0};
  CHECK(prune_text(out.data, "kern", cmath_has_c_form, &again) == 0 && again.data == NULL);
  op2_buf_free(&out);
}

static void left(const char *src) {
  op2_buf out = {0};
  if (prune_text(src, "kern", cmath_has_c_form, &out) != 0 || out.data) {
    fprintf(stderr, "pruned, but must not be:\n%s\ngave:\n%s\n", src, out.data);
    exit(1);
  }
}

/* The program's C++ header (as MG-CFD's config.h and utils.h), then the kernel's own helpers. */
#define PROGRAM_HEADER                                               \
  "#include <iostream>\n"                                            \
  "#if __has_include(<string>)\n"                                    \
  "#include <string>\n"                                              \
  "#endif\n"                                                         \
  "typedef std::map<std::string, int> t_times;\n"                    \
  "#include <cmath>\n"                                               \
  "#line 1 \"config.h\"\n"                                           \
  "typedef struct { int levels; } config;\n"                         \
  "#define NVAR 5\n"                                                 \
  "namespace Partitioners { enum Kind { Scotch, Metis }; }\n"        \
  "template <typename T> std::string number_to_string(T n) {\n"      \
  "  return std::to_string(n);\n"                                    \
  "}\n"                                                              \
  "static inline std::string &ltrim(std::string &s) { return s; }\n" \
  "class Config { public: int levels; Config() : levels(4) {} };\n"  \
  "extern Config conf;\n"                                            \
  "void set_config_param(const char *key, const char *value);\n"     \
  "struct edge { double a, b; };\n"                                  \
  "static inline void zero_edges(int n, edge *e) { e->a = n; }\n"

int main(void) {
  /* the kernel reaches a helper, which reaches a struct, an enum constant, a global and a
   * macro's word; the C++ around them is left out, C++ standard headers without a C form too */
  const char *const keep1[] = {"struct double3",
                               "compute_velocity",
                               "enum Side",
                               "extern double gamma_",
                               "#define NVAR",
                               "#include <cmath>",
                               "op2: not used by the kernel",
                               NULL};
  const char *const gone1[] = {"<iostream>", "#include <string>", "namespace",        "template",
                               "ltrim",      "class Config",      "set_config_param", "zero_edges",
                               NULL};
  prunes(PROGRAM_HEADER
         "struct double3 { double x, y, z; };\n"
         "enum Side { Left = 1, Right };\n"
         "extern double gamma_;\n"
         "static inline void compute_velocity(double &rho, double3 &v) {\n"
         "  v.x = rho * gamma_ * Right;\n"
         "}\n"
         "void kern(double *a) {\n"
         "  double3 v; double r = a[0];\n"
         "  compute_velocity(r, v);\n"
         "  a[NVAR - 5] = v.x;\n"
         "}\n",
         keep1, gone1);

  /* extern "C" braces are transparent: the declarations inside are items; conditionals of a
   * left-out function stay (they may close elsewhere) */
  const char *const keep2[] = {"extern \"C\" {", "double helper(double x)", "#ifdef OMP", "#endif",
                               NULL};
  const char *const gone2[] = {"std::string name()", "#pragma omp", NULL};
  prunes(
      "#include <string>\n"
      "extern \"C\" {\n"
      "double helper(double x);\n"
      "}\n"
      "std::string name() {\n"
      "#ifdef OMP\n"
      "#pragma omp parallel\n"
      "#endif\n"
      "  return \"x\";\n"
      "}\n"
      "double helper(double x) { return 2 * x; }\n"
      "void kern(double *a) { a[0] = helper(a[0]); }\n",
      keep2, gone2);

  /* a name in a macro's body is reached (the macro may be used anywhere) */
  const char *const keep3[] = {"double scale(double)", NULL};
  const char *const gone3[] = {"template", NULL};
  prunes(
      "#define SCALED(x) scale(x)\n"
      "template <class T> T twice(T x) { return x + x; }\n"
      "double scale(double);\n"
      "void kern(double *a) { a[0] = SCALED(a[0]); }\n",
      keep3, gone3);

  /* texts left as they are */
  left("void kern(double *a) { a[0] = 1; }\n"); /* C already */
  left(
      "#include <vector>\n" /* the kernel uses C++ */
      "template <class T> T twice(T x) { return x + x; }\n"
      "void kern(double *a) { a[0] = twice(a[0]); }\n");
  left(
      "#include <string>\n" /* a std:: name in the kernel */
      "void kern(double *a) { a[0] = std::stod(\"1\"); }\n");
  left(
      "#include <algorithm>\n" /* `using` changes how names are found: it stays, and is C++ */
      "using namespace std;\n"
      "void kern(double *a) { a[0] = 1; }\n");
  left(
      "struct V { double x; };\n" /* an operator is called without its name */
      "V operator+(V a, V b) { V c = {a.x + b.x}; return c; }\n"
      "void kern(double *a) { V v = {a[0]}; a[0] = (v + v).x; }\n");
  left(
      "#define DECLARE(T) template <class X> T conv(X x) { return (T)x; }\n"
      "DECLARE(double)\n" /* the text's macro invoked at file scope may declare anything */
      "void kern(double *a) { a[0] = 1; }\n");
  left(
      "namespace n { int k; \n" /* braces that do not balance */
      "void kern(double *a) { a[0] = 1; }\n");
  left(
      "template <class T> T twice(T x) { return x + x; }\n" /* no kernel of that name */
      "void other(double *a) { a[0] = 1; }\n");
  op2_buf out = {0};
  CHECK(prune_text("namespace q {}\nvoid kern(double *a) { a[0] = 1; }\n", NULL, cmath_has_c_form,
                   &out) == 0);
  printf("t123-cxx-prune: passed\n");
  return 0;
}
