/* SPDX-License-Identifier: BSD-3-Clause */
/* The cache root is refused when it is a symbolic link in a directory other users can write
 * (another user's link planted at /tmp/op2-cache-UID, the default root when HOME is unset,
 * would have us build into and load from wherever it points), and when it is anything not owned
 * by this user; a link in a private directory (a ~/.cache linked to scratch space) is followed.
 * Checked on op2_cache_root_usable in a private stand-in for /tmp (mode 1777), and end to end:
 * a run given the planted link as its cache builds nothing through it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jit/jit_internal.h" /* white-box: the jit layer's internals */
#include "runtime/op2_impl.h"
#include "test.h"

static int entries(const char *dir) {
  char cmd[4300];
  snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s')\"", dir);
  return system(cmd) == 0 ? 0 : 1;
}

int main(void) {
  const char *tmp = getenv("OP2_TEST_TMPDIR");
  char base[4096], shared[4200], target[4200], link[4300];
  op2_jit_error why;
  snprintf(base, sizeof base, "%s/op2-rootlink-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  CHECK(mkdtemp(base) != NULL);
  snprintf(shared, sizeof shared, "%s/tmp", base); /* stands for /tmp */
  snprintf(target, sizeof target, "%s/victim", base);
  snprintf(link, sizeof link, "%s/op2-cache-%d", shared, (int)getuid());
  CHECK(mkdir(shared, 0700) == 0 && chmod(shared, 01777) == 0);
  CHECK(mkdir(target, 0700) == 0);
  CHECK(symlink(target, link) == 0);

  /* The default root without HOME is /tmp/op2-cache-UID: the path this test plants in its /tmp. */
  char def[4096], want[64];
  CHECK(unsetenv("HOME") == 0 && unsetenv("XDG_CACHE_HOME") == 0);
  CHECK(op2_cache_default_root(def, sizeof def) == 0);
  snprintf(want, sizeof want, "/tmp/op2-cache-%d", (int)getuid());
  CHECK(strcmp(def, want) == 0);

  CHECK(op2_cache_root_usable(link, 1, &why) != 0);
  CHECK_CONTAINS(why.msg, "is a symbolic link in a directory other users can write");
  CHECK(op2_cache_root_usable(link, 0, &why) != 0);

  /* End to end: the loop runs (built privately) and nothing lands where the link points. */
  CHECK(setenv("OP2_CACHE_DIR", link, 1) == 0 && setenv("OP2_JIT", "tcc", 1) == 0);
  test_catch_errors();
  op_init(0, NULL, 0);
  op_set s = op_decl_set(4, "s");
  op_dat d = op_decl_dat(s, 1, "double", NULL, "d");
  op_par_loop("void two(double *x) { x[0] = 2.0; }\n", "two", s,
              op_arg_dat(d, -1, OP_ID, 1, "double", OP_WRITE));
  double got[4];
  op_fetch_data(d, got);
  CHECK(got[0] == 2.0 && got[3] == 2.0);
  CHECK_EQ_INT(op2_ctx()->jit.disk_hits, 0);
  op_exit();
  CHECK_EQ_INT(entries(target), 0);

  /* A link in a private directory is followed. */
  CHECK(chmod(shared, 0700) == 0);
  CHECK(op2_cache_root_usable(link, 1, &why) == 0);
  /* A directory there that is not ours is refused. */
  CHECK(chmod(shared, 01777) == 0 && unlink(link) == 0 && mkdir(link, 0700) == 0);
  CHECK(op2_cache_root_usable(link, 1, &why) == 0); /* ours: fine */
  if (geteuid() == 0) {
    CHECK(chown(link, 65534, 65534) == 0);
    CHECK(op2_cache_root_usable(link, 1, &why) != 0);
    fprintf(stderr, "foreign root: %s\n", why.msg);
  }

  char cmd[4300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
  CHECK(system(cmd) == 0);
  return 0;
}
