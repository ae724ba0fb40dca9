/* SPDX-License-Identifier: BSD-3-Clause */
/* Kernels compile and are kept under any umask: shared HPC systems often run with 002 or 007, and
 * a compiler creates its output with the umask's bits (0775). The library owns the modes of what
 * it creates, so every entry is stored (nothing refused), loads on the next run from disk, and
 * nothing in the cache is writable by group or others. The case names the umask in octal. */
#include "cache_test.h"

/* Every file and directory below root has no group or other write bit. */
static int check_private(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)flag, (void)ftw;
  if (st->st_mode & (S_IWGRP | S_IWOTH))
    fprintf(stderr, "%s has mode %03o\n", path, (unsigned)(st->st_mode & 0777));
  CHECK((st->st_mode & (S_IWGRP | S_IWOTH)) == 0);
  return 0;
}

int main(int argc, char **argv) {
  ct_setup(argc, argv);
  ct_counts reference = ct_prog(ct_str("%s/reference", ct_base), "off", NULL);
  CT_EXPECT(reference, CT_NKERNELS, 0, 0);
  CHECK(ct_case != NULL);
  mode_t mask = (mode_t)strtol(ct_case, NULL, 8);
  fprintf(stderr, "---- umask %03o\n", (unsigned)mask);
  umask(mask); /* inherited by the children that compile */
  char *root = ct_str("%s/umask-%s", ct_base, ct_case);
  /* Tiered: the optimised builds finish before op_exit, so each kernel has two entries. */
  const char *jit = getenv("OP2_TEST_JIT");
  int tiered = jit && strcmp(jit, "tiered") == 0;
  const char *wait[] = {"wait=1", NULL};
  ct_counts first = ct_prog(root, NULL, wait);
  CT_EXPECT(first, CT_NKERNELS, 0, 0);
  CHECK(strcmp(reference.result, first.result) == 0);
  CHECK_EQ_INT(ct_count_entries(root), tiered ? 2 * CT_NKERNELS : CT_NKERNELS);
  ct_counts second = ct_prog(root, NULL, NULL);
  CT_EXPECT(second, 0, CT_NKERNELS, 0);
  CHECK(strcmp(reference.result, second.result) == 0);
  CHECK(nftw(root, check_private, 16, FTW_PHYS) == 0);
  ct_cleanup();
  return 0;
}
