/* SPDX-License-Identifier: BSD-3-Clause */
/* A cache the program cannot write: it still runs and computes the right results, compiling in
 * memory, and leaves what is there as it was. The read-only cases need a user that permissions
 * apply to (not root) and are skipped otherwise. */
#include "cache_test.h"

static int skipped;
static ct_counts reference;

static int need_non_root(void) {
  if (geteuid() != 0) return 1;
  fprintf(stderr, "skipped: root writes into read-only directories\n");
  skipped++;
  return 0;
}

/* Runs with OP2_CACHE_DIR=root and checks that `watched` did not change. */
static void run_unwritable(const char *root, const char *watched, int refused) {
  char *before = ct_snapshot(watched);
  ct_counts c = ct_prog(root, NULL, NULL);
  CT_EXPECT(c, CT_NKERNELS, 0, refused);
  CHECK(strcmp(reference.result, c.result) == 0);
  CHECK_SAME_TREE(before, ct_snapshot(watched));
}

int main(int argc, char **argv) {
  ct_setup(argc, argv);
  /* The results every run must reproduce, from a normal cache. */
  char *normal = ct_str("%s/normal", ct_base);
  reference = ct_prog(normal, NULL, NULL);
  CT_EXPECT(reference, CT_NKERNELS, 0, 0);

  if (ct_want("root-is-file")) {
    char *file = ct_str("%s/root-file", ct_base);
    ct_write(file, "not a cache\n", 12);
    run_unwritable(file, file, 0);
  }
  if (ct_want("parent-is-file")) {
    char *file = ct_str("%s/parent-file", ct_base);
    ct_write(file, "not a directory\n", 16);
    run_unwritable(ct_str("%s/cache", file), file, 0);
  }
  if (ct_want("entries-are-files")) {
    /* Regular files where the entry directories go: refused, and compiled in memory. */
    char *root = ct_str("%s/entries-are-files", ct_base), *names = ct_entries(normal);
    CHECK(mkdir(root, 0700) == 0);
    for (const char *p = names; *p; p += strcspn(p, "\n") + 1)
      ct_write(ct_str("%s/%.*s", root, (int)strcspn(p, "\n"), p), "x", 1);
    run_unwritable(root, root, CT_NKERNELS);
  }
  if (ct_want("read-only-parent") && need_non_root()) {
    char *parent = ct_str("%s/read-only-parent", ct_base);
    CHECK(mkdir(parent, 0500) == 0);
    run_unwritable(ct_str("%s/cache", parent), parent, 0);
  }
  if (ct_want("read-only-root") && need_non_root()) {
    char *root = ct_str("%s/read-only-root", ct_base);
    CHECK(mkdir(root, 0500) == 0);
    run_unwritable(root, root, 0);
  }
  ct_cleanup();
  return ct_case && skipped ? CT_SKIP : 0;
}
