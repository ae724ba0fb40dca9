/* SPDX-License-Identifier: BSD-3-Clause */
/* What the cache key covers. Changing a kernel's source, a dim, an access mode or the value of a
 * constant the kernel uses gives that kernel (and only it) a new entry; changing the mesh size or
 * a dat's name does not: every kernel is a disk hit and no entry appears. */
#include "cache_test.h"

static char *root;

/* Runs a variant; `loop` is the one kernel that must get a new entry, or NULL for none. */
static void variant(const char *const *args, const char *loop) {
  fprintf(stderr, "---- variant %s%s%s\n", args[0], args[1] ? " " : "", args[1] ? args[1] : "");
  char *before = ct_entries(root);
  ct_counts c = ct_prog(root, NULL, args);
  char *added = ct_new_entries(before, ct_entries(root));
  if (!loop) {
    CT_EXPECT(c, 0, CT_NKERNELS, 0);
    CHECK_EQ_INT(ct_count_lines(added), 0);
    return;
  }
  CT_EXPECT(c, 1, CT_NKERNELS - 1, 0);
  CHECK_EQ_INT(ct_count_lines(added), 1);
  CHECK(strncmp(added, ct_str("%s-", loop), strlen(loop) + 1) == 0);
  /* The new shape is cached in its turn. */
  c = ct_prog(root, NULL, args);
  CT_EXPECT(c, 0, CT_NKERNELS, 0);
  CHECK_EQ_INT(ct_count_lines(ct_new_entries(before, ct_entries(root))), 1);
}

int main(int argc, char **argv) {
  ct_setup(argc, argv);
  root = ct_str("%s/cache", ct_base);
  ct_counts base = ct_prog(root, NULL, NULL);
  CT_EXPECT(base, CT_NKERNELS, 0, 0);
  CHECK_EQ_INT(ct_count_entries(root), CT_NKERNELS);

  variant((const char *[]){"n=100", NULL}, NULL);
  variant((const char *[]){"datname=y", NULL}, NULL);
  variant((const char *[]){"n=7", "datname=coords", NULL}, NULL);
  variant((const char *[]){"kernel=alt", NULL}, "spread");
  variant((const char *[]){"dim=2", NULL}, "fill");
  variant((const char *[]){"access=rw", NULL}, "init");
  variant((const char *[]){"scale=3", NULL}, "init");
  CHECK_EQ_INT(ct_count_entries(root), CT_NKERNELS + 4);
  ct_cleanup();
  return 0;
}
