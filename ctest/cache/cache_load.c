/* SPDX-License-Identifier: BSD-3-Clause */
/* Loading a shared object from the descriptor it was verified through (/proc/self/fd/N): glibc
 * knows loaded objects by the name they were opened under, and descriptor numbers are reused, so
 * a second object opened at a number an earlier (still loaded) one used must still be itself;
 * the same file loaded twice is one object. This is the dlopen path (no engine table: the direct
 * loader is not tried; elf_load tests that one). */
#include <fcntl.h>
#include <unistd.h>

#include "test.h"
#include "jit/jit_internal.h" /* white-box: the jit layer's internals */

typedef void (*loop_fn)(void *const *args, const int *const *maps, int begin, int end);

static char *build(const char *dir, const char *tag, int value) {
  char *path = malloc(4200), src[256], *log = NULL;
  CHECK(path);
  snprintf(path, 4200, "%s/%s.so", dir, tag);
  snprintf(src, sizeof src,
           "void op2_loop(void *const *a, const int *const *m, int b, int e) {"
           " (void)m, (void)b, (void)e; *(int *)a[0] = %d; }\n",
           value);
  CHECK(op2_tcc_compile(src, path, &log) == OP2_OK);
  free(log);
  return path;
}

static int run(void *sym) {
  int out = 0;
  void *args[1] = {&out};
  ((loop_fn)sym)(args, NULL, 0, 1);
  return out;
}

static void *load(const char *path, int expect_fd, void **handle) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  CHECK(fd >= 0);
  if (expect_fd >= 0) CHECK_EQ_INT(fd, expect_fd); /* the number an earlier load used */
  op2_jit_error why;
  void *sym = NULL;
  if (op2_load_object_fd(NULL, fd, path, "op2_loop", handle, &sym, &why) != OP2_OK)
    fprintf(stderr, "%s\n", why.msg);
  CHECK(sym != NULL);
  close(fd);
  return sym;
}

int main(void) {
  const char *tmp = getenv("OP2_TEST_TMPDIR");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/op2-load-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  CHECK(mkdtemp(dir) != NULL);
  char *a = build(dir, "a", 1), *b = build(dir, "b", 2), *c = build(dir, "c", 3);

  int probe = open("/dev/null", O_RDONLY);
  CHECK(probe >= 0);
  close(probe); /* the number the next open gets */
  void *ha, *hb, *ha2, *ha3, *hc;
  CHECK_EQ_INT(run(load(a, probe, &ha)), 1);
  /* b at the number a was loaded under, while a stays loaded */
  CHECK_EQ_INT(run(load(b, probe, &hb)), 2);
  CHECK(op2_object_dl(hb) != op2_object_dl(ha));
  /* a again: the loaded object, not a second copy, and no endless search for a free name */
  CHECK_EQ_INT(run(load(a, probe, &ha2)), 1);
  CHECK(op2_object_dl(ha2) == op2_object_dl(ha));
  /* a loaded under one more name, that load released: the name stays with a; c opened at that
   * number is still c */
  int hold = open("/dev/null", O_RDONLY);
  CHECK(hold == probe);
  CHECK_EQ_INT(run(load(a, probe + 1, &ha3)), 1);
  CHECK(op2_object_dl(ha3) == op2_object_dl(ha));
  op2_object_close(ha3);
  CHECK_EQ_INT(run(load(c, probe + 1, &hc)), 3);
  close(hold);

  op2_object_close(hc), op2_object_close(ha2), op2_object_close(hb), op2_object_close(ha);
  unlink(a), unlink(b), unlink(c), rmdir(dir);
  free(a), free(b), free(c);
  return 0;
}
