/* SPDX-License-Identifier: BSD-3-Clause */
/* C text's lexical elements (base/c_lexis.h), which every reader of a kernel text goes through:
 * where comments and literals end, closed or not, and the blanked copy keeping every offset and
 * line. */
#include "test.h"
#include "base/c_lexis.h"

/* op2_c_blank of `src` must be `want` (same length: offsets kept). */
static void expect_blank(const char *src, const char *want) {
  char *got = op2_c_blank(src);
  CHECK(got != NULL);
  if (strcmp(got, want) != 0) {
    fprintf(stderr, "op2_c_blank(\"%s\")\n  gave \"%s\"\n  want \"%s\"\n", src, got, want);
    exit(1);
  }
  CHECK(strlen(got) == strlen(src));
  free(got);
}

/* op2_c_literal_end at the start of `src`: how far, and whether it closed. */
static void expect_end(const char *src, size_t len, int closed) {
  int c = -1;
  const char *end = op2_c_literal_end(src, &c);
  if ((size_t)(end - src) != len || c != closed) {
    fprintf(stderr, "op2_c_literal_end(\"%s\"): %zu, closed %d; want %zu, %d\n", src,
            (size_t)(end - src), c, len, closed);
    exit(1);
  }
  CHECK(op2_c_skip_literal(src) == end);
}

int main(void) {
  /* not a literal: nowhere to go */
  expect_end("a = 1;", 0, 1);
  expect_end("/ 2", 0, 1);
  /* comments: a line comment stops before its newline, a block comment after its end */
  expect_end("// x\ny", 4, 1);
  expect_end("/* a\n b */c", 10, 1);
  expect_end("/* never closed", 15, 0);
  /* literals: escapes, a quote inside the other kind */
  expect_end("\"a\\\"b\" + 1", 6, 1);
  expect_end("'\\'' + 1", 4, 1);
  expect_end("\"it's\";", 6, 1);
  expect_end("'\"';", 3, 1);
  /* a literal running into a newline ends there, unclosed, as C reads it: the next line is
   * code again (two readers of kernel text used to disagree here) */
  expect_end("\"open\nx = 1;", 5, 0);
  expect_end("\"a\\\"\n", 4, 0);
  /* an escaped newline continues the literal */
  expect_end("\"a\\\nb\" x", 6, 1);

  /* the blanked copy: comment delimiters too, literal contents but not their quotes, newlines
   * kept everywhere */
  expect_blank("x /* c */ y", "x         y");
  expect_blank("a // c\nb", "a     \nb");
  expect_blank("f(\"a/*b\", 'c') /* 1\n2 */ g;", "f(\"    \", ' ')     \n     g;");
  expect_blank("s = \"open\nt = 1;", "s = \"    \nt = 1;");
  expect_blank("p / q", "p / q");
  expect_blank("", "");
  return 0;
}
