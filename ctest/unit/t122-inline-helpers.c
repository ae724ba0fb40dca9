/* SPDX-License-Identifier: BSD-3-Clause */
/* C++'s `inline` as C reads it (jit/kernel_text.c): a file-scope function declared inline and
 * neither static nor extern gets `static` before its first word, once, whatever the order of its
 * specifiers, attributes and macros (MG-CFD writes `static OP_FUN_PREFIX inline`, OP_FUN_PREFIX
 * empty: `static ... static inline` was the result, which gcc rejects). Each rewritten text is
 * compiled by the system compiler as C at -O0 (nothing inlined: every helper must be defined)
 * and must define its helpers; the C++ tier's build of the same text: t755. */
#include <stdlib.h>
#include <unistd.h>

#include "test.h"
#include "jit/jit_internal.h"

static char *text_for_c(const char *src) {
  op2_buf out = {0};
  op2_kernel_text_for_c(NULL, src, 1, &out);
  CHECK(!out.failed && out.data);
  return out.data;
}

/* The text op2_kernel_text_for_c gives for `src` is `want`; the system compiler takes it as C
 * (helpers unused but called from an exported function, so each must be defined). */
static void gives(const char *src, const char *want) {
  char *got = text_for_c(src);
  if (strcmp(got, want) != 0) {
    fprintf(stderr, "kernel text of:\n%s\ngave:\n%s\nwanted:\n%s\n", src, got, want);
    exit(1);
  }
  /* the generated file's text goes through twice (codegen.c): nothing left to change */
  char *again = text_for_c(got);
  CHECK(strcmp(again, got) == 0);
  free(again);
  char path[] = "/tmp/op2-t122-XXXXXX.c", cmd[512];
  int fd = mkstemps(path, 2);
  CHECK(fd >= 0);
  FILE *f = fdopen(fd, "w");
  CHECK(f && fputs(got, f) >= 0 && fputs("\nint op2_t122_use(void) { return h(1); }\n", f) >= 0);
  CHECK(fclose(f) == 0);
  /* -O0 inlines nothing: a C99 inline helper left plain would be undefined in the object */
  snprintf(cmd, sizeof cmd,
           "cc -std=gnu11 -O0 -Wall -Werror -Wno-unused-function -fPIC -shared -Wl,-z,defs "
           "-o %s.so %s",
           path, path);
  int rc = system(cmd);
  snprintf(cmd, sizeof cmd, "%s.so", path);
  unlink(cmd), unlink(path);
  if (rc != 0) {
    fprintf(stderr, "the system compiler rejects:\n%s\n", got);
    exit(1);
  }
  free(got);
}

int main(void) {
  /* plain inline, C++'s meaning: static inline */
  gives("inline int h(int x) { return x + 1; }\n",
        "static inline int h(int x) { return x + 1; }\n");
  /* already static, in every order, with an empty macro between (MG-CFD's) */
  gives("#define PREFIX\nstatic PREFIX inline int h(int x) { return x; }\n",
        "#define PREFIX\nstatic PREFIX inline int h(int x) { return x; }\n");
  gives("#define PREFIX\nstatic inline PREFIX int h(int x) { return x; }\n",
        "#define PREFIX\nstatic inline PREFIX int h(int x) { return x; }\n");
  gives("inline static int h(int x) { return x; }\n", "inline static int h(int x) { return x; }\n");
  gives("#define PREFIX\nPREFIX inline static int h(int x) { return x; }\n",
        "#define PREFIX\nPREFIX inline static int h(int x) { return x; }\n");
  /* a macro between, none static: static before the first word */
  gives("#define PREFIX\nPREFIX inline int h(int x) { return x; }\n",
        "#define PREFIX\nstatic PREFIX inline int h(int x) { return x; }\n");
  /* the macro's definition is not a declaration; a macro that is `inline` makes one */
  gives("#define FORCE inline\nFORCE int h(int x) { return x; }\n",
        "#define FORCE inline\nstatic FORCE int h(int x) { return x; }\n");
  gives("#define FORCE inline\nstatic FORCE int h(int x) { return x; }\n",
        "#define FORCE inline\nstatic FORCE int h(int x) { return x; }\n");
  /* a macro that is `static inline`, defined twice (one of them under #if), nested */
  gives(
      "#if 0\n#define P2 static inline\n#else\n#define P2 static inline\n#endif\n#define P1 P2\n"
      "P1 int h(int x) { return x; }\n",
      "#if 0\n#define P2 static inline\n#else\n#define P2 static inline\n#endif\n#define P1 P2\n"
      "P1 int h(int x) { return x; }\n");
  /* GNU spellings and attributes, before and after */
  gives("__inline__ int h(int x) { return x; }\n",
        "static __inline__ int h(int x) { return x; }\n");
  gives("__inline int h(int x) { return x; }\n", "static __inline int h(int x) { return x; }\n");
  gives("__attribute__((always_inline)) inline int h(int x) { return x; }\n",
        "static __attribute__((always_inline)) inline int h(int x) { return x; }\n");
  gives("inline __attribute__((hot)) int h(int x) { return x; }\n",
        "static inline __attribute__((hot)) int h(int x) { return x; }\n");
  gives("inline __attribute__((hot)) static int h(int x) { return x; }\n",
        "inline __attribute__((hot)) static int h(int x) { return x; }\n");
  /* extern inline is C99's external definition: left as it is */
  gives("extern inline int h(int x) { return x; }\n", "extern inline int h(int x) { return x; }\n");
  /* a comment or a string naming the words is not a declaration's; nor a body's `inline` text */
  gives("/* static */ inline int h(int x) { const char *s = \"inline\"; (void)s; return x; }\n",
        "/* static */ static inline int h(int x) { const char *s = \"inline\"; (void)s; return x; "
        "}\n");
  /* a prototype and its definition, both; a struct and a variable are no functions */
  gives(
      "inline int h(int x);\ntypedef struct { int a; } s;\nint v;\ninline int h(int x) { return x; "
      "}\n",
      "static inline int h(int x);\ntypedef struct { int a; } s;\nint v;\nstatic inline int h(int "
      "x) "
      "{ return x; }\n");
  /* inside a header's `extern "C"` block (C++ only, as shared headers have it) */
  gives(
      "#ifdef __cplusplus\nextern \"C\" {\n#endif\ninline int h(int x) { return x; }\n"
      "#ifdef __cplusplus\n}\n#endif\n",
      "#ifdef __cplusplus\nextern \"C\" {\n#endif\nstatic inline int h(int x) { return x; }\n"
      "#ifdef __cplusplus\n}\n#endif\n");
  /* a prefixed string, which the passes that must understand every token refuse: the C forms
   * still apply */
  gives("inline int h(int x) { const char *s = u8\"\\u00e9\"; (void)s; return x; }\n",
        "static inline int h(int x) { const char *s = u8\"\\u00e9\"; (void)s; return x; }\n");
  /* std:: in a macro's body and a C++ header's include, a comment after it, made C */
  gives(
      "#include <cmath> // sqrt\n#define ROOT(x) std::sqrt(x)\ninline int h(int x) { return x; }\n",
      " // sqrt\n#define ROOT(x) sqrt(x)\nstatic inline int h(int x) { return x; }\n");
  /* the CUDA file's text too (no C++ lowering there): the emulator builds it as C */
  op2_buf cu = {0};
  op2_kernel_text_for_c(NULL, "#define P\nP inline int h(int x) { return x; }\n", 0, &cu);
  CHECK(cu.data && strcmp(cu.data, "#define P\nstatic P inline int h(int x) { return x; }\n") == 0);
  op2_buf_free(&cu);
  printf("inline helpers: passed\n");
  return 0;
}
