/* SPDX-License-Identifier: BSD-3-Clause */
/* The C++ tier: kernels written for OP2's C++ programs (`std::min`, ...) that TinyCC cannot
 * compile are built by the system C++ compiler (OP2_CXX). The generated file itself stays C: the
 * compiler reads a small wrapper beside it that includes the C++ headers such kernels use, then
 * the generated file inside `extern "C"`, so its entry point and live-constant pointers keep
 * their C names; the user's text in it is `extern "C++"` (the prelude's OP2_USER_TEXT_BEGIN), so
 * the templates, classes and overloads of the kernel's headers keep C++ linkage. -fpermissive lets
 * read-only data reach a kernel that did not declare its parameter const (OP2's kernels often do
 * not), as C does with a warning. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jit_internal.h"

/* What the wrapper puts before the kernel's C++ headers and the generated file (inside
 * `extern "C"`). Part of the tier's identity (cache key). */
static const char cxx_wrapper_head[] =
    "#include <algorithm>\n"
    "#include <cmath>\n"
    "#include <cstdio>\n"
    "#include <cstdlib>\n"
    "#include <cstring>\n"
    "#include <limits>\n"
    /* the C headers too: their float overloads of sqrt, ... in the global namespace, for the
     * kernels whose std:: calls lost the namespace (kernel_text.c) */
    "#include <math.h>\n"
    "#include <stdlib.h>\n"
    "#define restrict __restrict\n"
    /* the calling file's context of a kernel found through it (runtime/kernel_search.c) */
    "#define OP2_CXX_TIER 1\n";

/* The flags after the user's: C++ with C's leniency on const, and the scalar loop (the SIMD
 * template is C). */
static const char *const cxx_extra_flags[] = {"-fpermissive", "-UOP2_SIMD_W", "-x", "c++"};
enum { NEXTRA = sizeof cxx_extra_flags / sizeof cxx_extra_flags[0] };

/* The headers the generated file includes with <...>, written before `extern "C"`, where their
 * templates may be declared and nothing of theirs goes into the calling file's context (an
 * unnamed namespace, codegen.c): their second inclusion, inside the block, is empty (include
 * guards). The C++ standard headers (`<string>`: names without '.') as they are; the others
 * (`<stdio.h>`, a program's `<mpi.h>`) where the compiler has them. */
static int hoisted_includes(const char *source, FILE *f) {
  int ok = 1;
  for (const char *p = source; p && *p && ok; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
    const char *q = p + strspn(p, " \t");
    if (*q != '#') continue;
    q += 1 + strspn(q + 1, " \t");
    if (strncmp(q, "include", 7) != 0) continue;
    q += 7 + strspn(q + 7, " \t");
    size_t len = strcspn(q, ">\n\"");
    if (*q != '<' || q[len] != '>' || len < 2) continue;
    if (memchr(q, '.', len) || memchr(q, '/', len))
      ok = fprintf(f, "#if __has_include(%.*s)\n#include %.*s\n#endif\n", (int)len + 1, q,
                   (int)len + 1, q) > 0;
    else
      ok = fprintf(f, "#include %.*s\n", (int)len + 1, q) > 0;
  }
  return ok;
}

static int compile_cxx(const op2_tier *t, const char *source, const char *src_path,
                       const char *so_path, char **log, char *flags_used, size_t flags_len) {
  /* The wrapper lies beside the generated file (so a relative include finds it), under the
   * temporary object's name, and is removed after the compile. */
  char wrapper[OP2_PATH_BUF];
  snprintf(wrapper, sizeof wrapper, "%s.cc", so_path);
  const char *base = strrchr(src_path, '/');
  base = base ? base + 1 : src_path;
  FILE *f = fopen(wrapper, "w");
  int ok = f && fprintf(f, "%s", cxx_wrapper_head) >= 0 && hoisted_includes(source, f) &&
           fprintf(f, "extern \"C\" {\n#include \"%s\"\n}\n", base) >= 0;
  if (f && fclose(f) != 0) ok = 0;
  if (!ok) {
    op2_buf msg = {0};
    op2_buf_printf(&msg, "cannot write %s: %s\n", wrapper, strerror(errno));
    *log = msg.data ? msg.data : calloc(1, 1);
    unlink(wrapper);
    return OP2_SPAWN_BROKEN;
  }
  /* The tier's flags end with the C++ extras; the compiler reads the wrapper. */
  int rc = op2_cc_compile(t, source, wrapper, so_path, log, flags_used, flags_len);
  unlink(wrapper);
  return rc;
}

int op2_cxx_tier(const char *cxx, const char *flags, int timeout_s, op2_tier *out) {
  if (strcmp(cxx, "off") == 0 || op2_cc_tier(cxx, flags, timeout_s, out) != 0) return -1;
  /* The tier's flags as the compiler receives them, so the manifest matches the key. */
  size_t n = strlen(out->flags);
  for (int i = 0; i < NEXTRA && n < sizeof out->flags; i++)
    n += (size_t)snprintf(out->flags + n, sizeof out->flags - n, "%s%s", n ? " " : "",
                          cxx_extra_flags[i]);
  char identity[sizeof out->identity], wrapper_hash[17];
  op2_hash_hex64(cxx_wrapper_head, sizeof cxx_wrapper_head - 1, wrapper_hash);
  snprintf(identity, sizeof identity, "c++ wrapper %s, %s", wrapper_hash, out->identity);
  memcpy(out->identity, identity, sizeof identity);
  out->name = "c++";
  out->compile = compile_cxx;
  return 0;
}
