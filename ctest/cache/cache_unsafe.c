/* SPDX-License-Identifier: BSD-3-Clause */
/* Entries and cache roots that someone else could have written. A group/world-writable or
 * foreign-owned entry directory is refused and left exactly as it was (the library neither loads
 * from it nor writes into it); an unsafe file inside an entry we own is refused and the entry is
 * rebuilt; an unsafe cache root is not used at all, and the program still computes the right
 * results. The foreign-owner cases need root (chown) and are skipped otherwise. */
#include "cache_test.h"

static int skipped;

static char *populate(const char *name, ct_counts *first) {
  char *root = ct_str("%s/%s", ct_base, name);
  *first = ct_prog(root, NULL, NULL);
  CT_EXPECT(*first, CT_NKERNELS, 0, 0);
  return root;
}

static int need_root(void) {
  if (geteuid() == 0) return 1;
  fprintf(stderr, "skipped: needs root to chown\n");
  skipped++;
  return 0;
}

/* The entry directory is made unsafe by `make_unsafe`: refused on every run, never touched. */
static void planted_entry(const char *name, int (*make_unsafe)(const char *)) {
  ct_counts first;
  char *root = populate(name, &first);
  char *entry = ct_entry_of(root, "spread");
  CHECK(make_unsafe(entry) == 0);
  char *before = ct_snapshot(entry);
  for (int run = 0; run < 2; run++) {
    ct_counts c = ct_prog(root, NULL, NULL);
    CT_EXPECT(c, 1, CT_NKERNELS - 1, 1);
    CHECK(strcmp(first.result, c.result) == 0);
    CHECK_SAME_TREE(before, ct_snapshot(entry));
    CHECK_EQ_INT(ct_count_entries(root), CT_NKERNELS);
  }
}

static int world_writable(const char *entry) {
  return chmod(entry, 0777);
}
static int foreign_owner(const char *entry) {
  return chown(entry, 65534, 65534);
}

/* A file of an entry we own is made unsafe: refused once, then rebuilt in place. */
static void unsafe_file(const char *name, const char *file, int (*make_unsafe)(const char *)) {
  ct_counts first;
  char *root = populate(name, &first);
  char *entry = ct_entry_of(root, "spread"), *path = ct_str("%s/%s", entry, file);
  CHECK(make_unsafe(path) == 0);
  ct_counts c = ct_prog(root, NULL, NULL);
  CT_EXPECT(c, 1, CT_NKERNELS - 1, 1);
  CHECK(strcmp(first.result, c.result) == 0);
  c = ct_prog(root, NULL, NULL);
  CT_EXPECT(c, 0, CT_NKERNELS, 0);
  struct stat st;
  CHECK(lstat(path, &st) == 0);
  CHECK_EQ_INT(st.st_uid, geteuid());
  CHECK_EQ_INT(st.st_mode & 022, 0);
}

static int group_writable_file(const char *path) {
  return chmod(path, 0664);
}
static int foreign_file(const char *path) {
  return lchown(path, 65534, 65534);
}

/* The root is made unsafe: the cache is not consulted (nothing refused, nothing loaded) and not
 * written; made safe again, it serves every kernel. */
static void unsafe_root(const char *name, int (*make_unsafe)(const char *),
                        int (*restore)(const char *)) {
  ct_counts first;
  char *root = populate(name, &first);
  CHECK(make_unsafe(root) == 0);
  char *before = ct_snapshot(root);
  ct_counts c = ct_prog(root, NULL, NULL);
  CT_EXPECT(c, CT_NKERNELS, 0, 0);
  CHECK(strcmp(first.result, c.result) == 0);
  CHECK_SAME_TREE(before, ct_snapshot(root));
  CHECK(restore(root) == 0);
  c = ct_prog(root, NULL, NULL);
  CT_EXPECT(c, 0, CT_NKERNELS, 0);
}

static int group_writable_dir(const char *path) {
  return chmod(path, 0770);
}
static int private_dir(const char *path) {
  return chmod(path, 0700);
}
static int own_again(const char *path) {
  return chown(path, geteuid(), getegid());
}

int main(int argc, char **argv) {
  ct_setup(argc, argv);
  if (ct_want("entry-world-writable")) planted_entry("entry-world-writable", world_writable);
  if (ct_want("entry-foreign-owner") && need_root())
    planted_entry("entry-foreign-owner", foreign_owner);
  if (ct_want("manifest-group-writable"))
    unsafe_file("manifest-group-writable", "manifest.json", group_writable_file);
  if (ct_want("so-group-writable"))
    unsafe_file("so-group-writable", "spread.so", group_writable_file);
  if (ct_want("so-foreign-owner") && need_root())
    unsafe_file("so-foreign-owner", "spread.so", foreign_file);
  if (ct_want("root-group-writable"))
    unsafe_root("root-group-writable", group_writable_dir, private_dir);
  if (ct_want("root-foreign-owner") && need_root())
    unsafe_root("root-foreign-owner", foreign_owner, own_again);
  ct_cleanup();
  return ct_case && skipped ? CT_SKIP : 0;
}
