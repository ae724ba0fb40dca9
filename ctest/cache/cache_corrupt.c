/* SPDX-License-Identifier: BSD-3-Clause */
/* Damaged entries: after each kind of damage to the entry of loop 'spread', the next process
 * refuses that entry (and only it), compiles the kernel again, computes the same results as
 * before, and leaves a sound entry in the same place that a third process loads. The
 * malformed-so cases damage the object's structure and rewrite the manifest's hash to match, as
 * someone who can write the cache could: the loaders' own checks must refuse it (before, the
 * loaders called the object's initialiser into its ELF header and the process died). */
#include "cache_test.h"
#include "elf_edit.h"
#include "jit/cache_entry.h"

static char *file_of(const char *entry, const char *suffix) {
  return ct_str("%s/spread%s", entry, suffix);
}

static void truncated_so(const char *entry) {
  char *so = file_of(entry, ".so");
  struct stat st;
  CHECK(stat(so, &st) == 0 && st.st_size > 16);
  CHECK(truncate(so, st.st_size / 2) == 0);
}

static void flipped_so_byte(const char *entry) {
  char *so = file_of(entry, ".so");
  size_t len;
  char *data = ct_read(so, &len);
  data[len / 2] ^= 0x5a;
  ct_write(so, data, len);
}

/* A byte the loader never reads (a section name in .shstrtab, which is not mapped): the object
 * would still load and run, so only the manifest's hash can tell. */
static void flipped_so_unread_byte(const char *entry) {
  char *so = file_of(entry, ".so");
  size_t len;
  char *data = ct_read(so, &len), *last = NULL;
  for (char *p = data; (p = memmem(p, len - (size_t)(p - data), ".shstrtab", 9)) != NULL; p++)
    last = p;
  CHECK(last != NULL);
  last[1] = 'S';
  ct_write(so, data, len);
}

/* Changes the first hex digit of a hash field of the manifest. */
static void edit_manifest_hash(const char *entry, const char *field) {
  char *path = ct_str("%s/manifest.json", entry);
  size_t len;
  char *text = ct_read(path, &len);
  char *p = strstr(text, ct_str("\"%s\"", field));
  CHECK(p != NULL);
  p = strchr(p + strlen(field) + 2, '"');
  CHECK(p && strchr("0123456789abcdef", p[1]));
  p[1] = p[1] == '0' ? '1' : '0';
  ct_write(path, text, len);
}

static void wrong_binary_hash(const char *entry) {
  edit_manifest_hash(entry, "binary_xxh3");
}
static void wrong_source_hash(const char *entry) {
  edit_manifest_hash(entry, "source_xxh3");
}

static void invalid_json(const char *entry) {
  char *path = ct_str("%s/manifest.json", entry);
  size_t len;
  char *text = ct_read(path, &len);
  ct_write(path, text, len / 2);
}

static void missing_manifest(const char *entry) {
  CHECK(unlink(ct_str("%s/manifest.json", entry)) == 0);
}

/* The manifest of another kernel (init's), sound in itself. */
static void foreign_manifest(const char *entry) {
  char *root = ct_str("%.*s", (int)(strrchr(entry, '/') - entry), entry);
  size_t len;
  char *text = ct_read(ct_str("%s/manifest.json", ct_entry_of(root, "init")), &len);
  ct_write(ct_str("%s/manifest.json", entry), text, len);
}

/* Same size, different text: only a hash notices. */
static void modified_source(const char *entry) {
  char *path = file_of(entry, ".c");
  size_t len;
  char *text = ct_read(path, &len);
  char *p = strstr(text, "aa[0] += xb[0]");
  CHECK(p != NULL);
  p[6] = '-';
  ct_write(path, text, len);
}

/* The binary replaced by a link to an intact copy outside the cache: links are never loaded. */
static void so_symlink(const char *entry) {
  char *so = file_of(entry, ".so"), *outside = ct_str("%s/outside.so", ct_base);
  CHECK(rename(so, outside) == 0);
  CHECK(symlink(outside, so) == 0);
}

/* The object's weak reference __gmon_start__, which its initialiser calls when it resolves to
 * something, made "defined" at 0 in .text; the manifest's hash rewritten to match. */
static void malformed_so(const char *entry) {
  char *so = file_of(entry, ".so");
  size_t len;
  char *data = ct_read(so, &len);
  int text = 0;
  CHECK(ee_section(data, len, ".text", &text) != NULL);
  ee_dynsym(data, len, "__gmon_start__")->st_shndx = (Elf64_Section)text;
  ct_write(so, data, len);
  char hash[17], *path = ct_str("%s/manifest.json", entry);
  op2_hash_hex64(data, len, hash);
  size_t mlen;
  char *text_m = ct_read(path, &mlen);
  char *p = strstr(text_m, "\"binary_xxh3\"");
  CHECK(p && (p = strchr(p + 13, '"')) != NULL && strlen(p) > 17);
  memcpy(p + 1, hash, 16);
  ct_write(path, text_m, mlen);
}

static void stray_temp_file(const char *entry) {
  /* Not damage: a crashed writer's leftover must not stop the entry from loading. */
  ct_write(file_of(entry, ".so.tmp99999"), "partial", 7);
}

static const char *const *case_env; /* the damaged entry's run: under which loader */

static void run_case(const char *name, void (*damage)(const char *), int refused) {
  if (!ct_want(name)) return;
  char *root = ct_str("%s/%s", ct_base, name);
  ct_counts first = ct_prog(root, NULL, NULL);
  CT_EXPECT(first, CT_NKERNELS, 0, 0);
  char *entry = ct_entry_of(root, "spread");
  damage(entry);

  ct_counts second = ct_prog_env(root, NULL, case_env, NULL);
  CHECK(strcmp(first.result, second.result) == 0);
  if (refused)
    CT_EXPECT(second, 1, CT_NKERNELS - 1, 1);
  else
    CT_EXPECT(second, 0, CT_NKERNELS, 0);

  ct_counts third = ct_prog(root, NULL, NULL);
  CT_EXPECT(third, 0, CT_NKERNELS, 0);
  CHECK(strcmp(first.result, third.result) == 0);
  CHECK(strcmp(ct_entry_of(root, "spread"), entry) == 0);
  CHECK_EQ_INT(ct_count_entries(root), CT_NKERNELS);
  struct stat st;
  CHECK(lstat(file_of(entry, ".so"), &st) == 0 && S_ISREG(st.st_mode));
}

int main(int argc, char **argv) {
  ct_setup(argc, argv);
  run_case("truncated-so", truncated_so, 1);
  run_case("flipped-so-byte", flipped_so_byte, 1);
  run_case("flipped-so-unread-byte", flipped_so_unread_byte, 1);
  run_case("wrong-binary-hash", wrong_binary_hash, 1);
  run_case("wrong-source-hash", wrong_source_hash, 1);
  run_case("invalid-json", invalid_json, 1);
  run_case("missing-manifest", missing_manifest, 1);
  run_case("foreign-manifest", foreign_manifest, 1);
  run_case("modified-source", modified_source, 1);
  run_case("so-symlink", so_symlink, 1);
  run_case("stray-temp-file", stray_temp_file, 0);
  static const char *const direct[] = {"OP2_LOADER=direct", NULL};
  static const char *const dlopen_only[] = {"OP2_LOADER=dlopen", NULL};
  run_case("malformed-so", malformed_so, 1); /* OP2_LOADER=auto: dlopen, after the check */
  case_env = direct;
  run_case("malformed-so-direct", malformed_so, 1);
  case_env = dlopen_only;
  run_case("malformed-so-dlopen", malformed_so, 1);
  case_env = NULL;
  ct_cleanup();
  return 0;
}
