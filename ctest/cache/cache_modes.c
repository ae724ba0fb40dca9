/* SPDX-License-Identifier: BSD-3-Clause */
/* OP2_CACHE=off ignores the cache directory completely (nothing read, written or created);
 * OP2_CACHE=readonly loads sound entries but writes nothing, not even the last-used time, and
 * does not create a missing directory. */
#include "cache_test.h"

static ct_counts reference;

static char *populated(const char *name) {
  char *root = ct_str("%s/%s", ct_base, name);
  ct_counts c = ct_prog(root, NULL, NULL);
  CT_EXPECT(c, CT_NKERNELS, 0, 0);
  CHECK(strcmp(reference.result, c.result) == 0);
  /* Old last-used times, so that a touch would show in the snapshots. */
  char *names = ct_entries(root);
  for (const char *p = names; *p; p += strcspn(p, "\n") + 1)
    ct_set_mtime(ct_str("%s/%.*s", root, (int)strcspn(p, "\n"), p), 978307200);
  return root;
}

/* A run in `mode` against root that must leave root as it was. */
static void run_unchanged(const char *root, const char *mode, const char *const *args,
                          int compiled) {
  char *before = ct_snapshot(root);
  ct_counts c = ct_prog(root, mode, args);
  CT_EXPECT(c, compiled, CT_NKERNELS - compiled, 0);
  if (!args) CHECK(strcmp(reference.result, c.result) == 0);
  CHECK_SAME_TREE(before, ct_snapshot(root));
}

static void run_missing(const char *name, const char *mode) {
  char *root = ct_str("%s/%s", ct_base, name);
  ct_counts c = ct_prog(root, mode, NULL);
  CT_EXPECT(c, CT_NKERNELS, 0, 0);
  CHECK(strcmp(reference.result, c.result) == 0);
  struct stat st;
  CHECK(lstat(root, &st) != 0 && errno == ENOENT);
}

int main(int argc, char **argv) {
  ct_setup(argc, argv);
  reference = ct_prog(ct_str("%s/reference", ct_base), "off", NULL);
  CT_EXPECT(reference, CT_NKERNELS, 0, 0);

  if (ct_want("off-empty")) {
    char *root = ct_str("%s/off-empty", ct_base);
    CHECK(mkdir(root, 0700) == 0);
    run_unchanged(root, "off", NULL, CT_NKERNELS);
    CHECK_EQ_INT(ct_count_entries(root), 0);
  }
  if (ct_want("off-missing")) run_missing("off-missing", "off");
  if (ct_want("off-populated")) run_unchanged(populated("off-populated"), "off", NULL, CT_NKERNELS);
  if (ct_want("readonly-populated"))
    run_unchanged(populated("readonly-populated"), "readonly", NULL, 0);
  if (ct_want("readonly-new-kernel")) {
    /* A kernel missing from the cache is compiled, and not stored. */
    const char *alt[] = {"kernel=alt", NULL};
    run_unchanged(populated("readonly-new-kernel"), "readonly", alt, 1);
  }
  if (ct_want("readonly-missing")) run_missing("readonly-missing", "readonly");
  ct_cleanup();
  return 0;
}
