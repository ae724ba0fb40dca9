/* SPDX-License-Identifier: BSD-3-Clause */
/* Fresh-process disk hits: the first run of cache_prog compiles every kernel into a new cache
 * directory (0700, one complete entry per kernel); a second process loads them all from disk,
 * compiles nothing, computes the same results and marks the entries it loaded as used. Runs
 * under OP2_TEST_JIT=tcc (one entry per kernel) and =tiered (a kernel may also get an optimised
 * entry, and either may serve the hit). */
#include "cache_test.h"

static const char *loops[CT_NKERNELS] = {"init", "spread", "fill", "total"};

/* Entries of one loop in root. */
static int entries_of(const char *root, const char *loop) {
  char *all = ct_entries(root), *prefix = ct_str("%s-", loop);
  int n = 0;
  for (const char *p = all; *p; p += strcspn(p, "\n") + 1)
    n += strncmp(p, prefix, strlen(prefix)) == 0 && strcspn(p, "\n") == strlen(loop) + 17;
  return n;
}

static void check_entry_files(const char *entry, const char *loop) {
  struct stat st;
  CHECK(lstat(entry, &st) == 0 && S_ISDIR(st.st_mode));
  CHECK_EQ_INT(st.st_mode & 0777, 0700);
  CHECK_EQ_INT(st.st_uid, geteuid());
  const char *files[] = {"manifest.json", ct_str("%s.c", loop), ct_str("%s.so", loop)};
  for (int i = 0; i < 3; i++) {
    char *path = ct_str("%s/%s", entry, files[i]);
    CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0);
    CHECK_EQ_INT(st.st_uid, geteuid());
    CHECK_EQ_INT(st.st_mode & 022, 0);
  }
  /* The generated source starts with the signature of its loop. */
  char *src = ct_read(ct_str("%s/%s.c", entry, loop), NULL);
  CHECK_CONTAINS(src, ct_str("loop %s, target", loop));
}

int main(int argc, char **argv) {
  ct_setup(argc, argv);
  const char *jit = getenv("OP2_TEST_JIT");
  int tcc_only = !jit || !*jit || strcmp(jit, "tcc") == 0;
  char *root = ct_str("%s/cache", ct_base);

  ct_counts first = ct_prog(root, NULL, NULL);
  CT_EXPECT(first, CT_NKERNELS, 0, 0);
  struct stat st;
  CHECK(stat(root, &st) == 0 && S_ISDIR(st.st_mode));
  CHECK_EQ_INT(st.st_mode & 0777, 0700);
  for (int i = 0; i < CT_NKERNELS; i++) {
    int n = entries_of(root, loops[i]);
    CHECK(n >= 1 && n <= (tcc_only ? 1 : 2));
    if (tcc_only) check_entry_files(ct_entry_of(root, loops[i]), loops[i]);
  }
  if (tcc_only) CHECK_EQ_INT(ct_count_entries(root), CT_NKERNELS);

  /* Age every entry so that the second run's touch is visible. */
  char *names = ct_entries(root);
  time_t old = 978307200; /* 2001-01-01 */
  for (const char *p = names; *p; p += strcspn(p, "\n") + 1)
    ct_set_mtime(ct_str("%s/%.*s", root, (int)strcspn(p, "\n"), p), old);

  ct_counts second = ct_prog(root, NULL, NULL);
  CT_EXPECT(second, 0, CT_NKERNELS, 0);
  CHECK(strcmp(first.result, second.result) == 0);
  time_t now = time(NULL);
  for (int i = 0; i < CT_NKERNELS; i++) {
    int touched = 0;
    for (const char *p = names; *p; p += strcspn(p, "\n") + 1) {
      size_t n = strcspn(p, "\n");
      if (n == strlen(loops[i]) + 17 && strncmp(p, loops[i], strlen(loops[i])) == 0)
        touched += ct_mtime(ct_str("%s/%.*s", root, (int)n, p)) > now - 86400;
    }
    CHECK_EQ_INT(touched, 1); /* the one entry the kernel was loaded from */
  }

  /* OP2_CACHE=on spelled out behaves as the default. */
  ct_counts third = ct_prog(root, "on", NULL);
  CT_EXPECT(third, 0, CT_NKERNELS, 0);
  CHECK(strcmp(first.result, third.result) == 0);
  ct_cleanup();
  return 0;
}
