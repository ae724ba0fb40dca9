/* SPDX-License-Identifier: BSD-3-Clause */
/* The op2-cache tool against caches that cache_prog filled: list (rows, sizes, order, the BAD
 * marker), show (manifest fields and the exact source, by name, hash prefix, full key or
 * directory; ambiguity), prune (least recently used first, --max-size, --older-than), clear (only
 * entries; links are never followed), the default directory, and usage errors (exit 2). */
/* gcc 12 at -O2 with sanitizers wrongly infers a NULL string argument in case_clear's ct_str calls
 * (every pointer there is checked or from a static buffer). */
#pragma GCC diagnostic ignored "-Wformat-overflow"
#include <ctype.h>

#include "cache_test.h"
#include "jit/jit_internal.h" /* white-box: the jit layer's internals */

static const char *loops[CT_NKERNELS] = {"init", "spread", "fill", "total"};

static char *populated(const char *name) {
  char *root = ct_str("%s/%s", ct_base, name);
  ct_counts c = ct_prog(root, NULL, NULL);
  CT_EXPECT(c, CT_NKERNELS, 0, 0);
  return root;
}

/* Bytes of the regular files in a directory (what the tool counts as an entry's size). */
static long long dir_bytes(const char *dir) {
  DIR *d = opendir(dir);
  CHECK(d != NULL);
  long long total = 0;
  for (struct dirent *de; (de = readdir(d)) != NULL;) {
    struct stat st;
    CHECK(lstat(ct_str("%s/%s", dir, de->d_name), &st) == 0);
    if (S_ISREG(st.st_mode)) total += (long long)st.st_size;
  }
  closedir(d);
  return total;
}

static char *hash_of(const char *entry) {
  return ct_str("%s", entry + strlen(entry) - 16);
}

/* The line of text that contains needle. */
static char *line_with(const char *text, const char *needle) {
  const char *p = strstr(text, needle);
  if (!p) fprintf(stderr, "'%s' not in:\n%s\n", needle, text);
  CHECK(p != NULL);
  const char *start = p;
  while (start > text && start[-1] != '\n') start--;
  return ct_str("%.*s", (int)strcspn(start, "\n"), start);
}

static ct_output tool_ok(const char *const *args) {
  ct_output out = ct_tool(args);
  if (out.status != 0) fprintf(stderr, "op2-cache exited with %d:\n%s\n", out.status, out.text);
  CHECK_EQ_INT(out.status, 0);
  return out;
}

/* A usage error: status 2 and a message containing `needle`. */
static void tool_usage_error(const char *const *env, const char *const *args, const char *needle) {
  ct_output out = ct_tool_env(env, args);
  fprintf(stderr, "op2-cache %s ... -> %d: %s", args[0] ? args[0] : "", out.status, out.text);
  CHECK_EQ_INT(out.status, 2);
  CHECK_CONTAINS(out.text, needle);
}

static long long freed_bytes(const char *text) {
  const char *p = strstr(text, "freed ");
  long long n = -1;
  CHECK(p && sscanf(p, "freed %lld bytes", &n) == 1);
  return n;
}

static void case_help(void) {
  const char *forms[][3] = {{"--help", NULL}, {"-h", NULL}, {"list", "--help", NULL}};
  for (int i = 0; i < 3; i++) {
    ct_output out = tool_ok(forms[i]);
    CHECK_CONTAINS(out.text, "usage: op2-cache");
    const char *words[] = {
        "list",      "show NAME|HASH", "clear", "prune --max-size SIZE", "--older-than DAYS",
        "--dir DIR", "OP2_CACHE_DIR"};
    for (int w = 0; w < 7; w++) CHECK_CONTAINS(out.text, words[w]);
  }
}

static void case_errors(void) {
  char *root = populated("errors"), *missing = ct_str("%s/missing", ct_base);
  char *file = ct_str("%s/file", ct_base);
  ct_write(file, "x", 1);
  char *before = ct_snapshot(root);
  const char *none[] = {NULL};
  tool_usage_error(NULL, none, "missing command");
  tool_usage_error(NULL, (const char *[]){"--dir", root, "frobnicate", NULL},
                   "unknown command 'frobnicate'");
  tool_usage_error(NULL, (const char *[]){"--dir", root, "show", NULL}, "show needs");
  tool_usage_error(NULL, (const char *[]){"--dir", root, "show", "a", "b", NULL}, "unexpected");
  tool_usage_error(NULL, (const char *[]){"--dir", root, "list", "extra", NULL}, "unexpected");
  tool_usage_error(NULL, (const char *[]){"--dir", root, "prune", NULL}, "prune needs");
  tool_usage_error(NULL, (const char *[]){"--dir", root, "prune", "--max-size", NULL},
                   "--max-size needs a value");
  tool_usage_error(NULL, (const char *[]){"--dir", root, "prune", "--max-size", "12Q", NULL},
                   "not a size");
  tool_usage_error(NULL, (const char *[]){"--dir", root, "prune", "--max-size", "-5", NULL},
                   "not a size");
  tool_usage_error(NULL, (const char *[]){"--dir", root, "prune", "--max-size=1X", NULL},
                   "not a size");
  tool_usage_error(NULL, (const char *[]){"--dir", root, "prune", "--older-than", "soon", NULL},
                   "not a number of days");
  tool_usage_error(NULL, (const char *[]){"--dir", root, "list", "--max-size", "1", NULL},
                   "apply to prune");
  tool_usage_error(NULL, (const char *[]){"--dir", root, "--bogus", "list", NULL},
                   "unknown option '--bogus'");
  tool_usage_error(NULL, (const char *[]){"list", "--dir", NULL}, "--dir needs a value");
  tool_usage_error(NULL, (const char *[]){"--dir", missing, "list", NULL}, "does not exist");
  tool_usage_error(NULL, (const char *[]){"--dir", missing, "clear", NULL}, "does not exist");
  tool_usage_error(NULL, (const char *[]){"--dir", file, "list", NULL}, "not a directory");
  tool_usage_error((const char *[]){ct_str("OP2_CACHE_DIR=%s", missing), NULL},
                   (const char *[]){"list", NULL}, "does not exist");
  CHECK_SAME_TREE(before, ct_snapshot(root));
  CHECK_EQ_INT(access(missing, F_OK), -1);
}

static void case_list(void) {
  char *root = populated("list");
  time_t now = time(NULL);
  const int order[CT_NKERNELS] = {3, 0, 2, 1}; /* total, init, fill, spread: oldest first */
  char *entry[CT_NKERNELS];
  long long total = 0;
  for (int i = 0; i < CT_NKERNELS; i++) {
    entry[i] = ct_entry_of(root, loops[order[i]]);
    ct_set_mtime(entry[i], now - 1000 + 100 * i);
    total += dir_bytes(entry[i]);
  }
  const char *args[] = {"--dir", root, "list", NULL};
  char *before = ct_snapshot(root);
  ct_output out = tool_ok(args);
  CHECK_SAME_TREE(before, ct_snapshot(root));
  fprintf(stderr, "%s", out.text);
  CHECK_CONTAINS(out.text, ct_str("%s: 4 entries, %lld bytes", root, total));
  const char *prev = out.text;
  for (int i = 0; i < CT_NKERNELS; i++) {
    char *hash = hash_of(entry[i]), *row = line_with(out.text, hash);
    CHECK_CONTAINS(row, ct_str(" %s ", loops[order[i]]));
    CHECK_CONTAINS(row, ct_str(" %lld (", dir_bytes(entry[i])));
    CHECK_CONTAINS(row, " c/tcc ");
    CHECK_CONTAINS(row, " ms ");
    CHECK(strstr(row, " ok") && !strstr(row, "BAD"));
    CHECK(strstr(out.text, hash) > prev); /* least recently used first */
    prev = strstr(out.text, hash);
  }

  /* Damage three entries differently: each row says BAD with its reason, the fourth stays ok. */
  char *so = ct_str("%s/fill.so", entry[2]);
  size_t len;
  char *data = ct_read(so, &len);
  data[len / 2] ^= 1;
  ct_write(so, data, len);
  CHECK(chmod(entry[1], 0777) == 0);
  CHECK(unlink(ct_str("%s/manifest.json", entry[0])) == 0);
  out = tool_ok(args);
  fprintf(stderr, "%s", out.text);
  CHECK_CONTAINS(line_with(out.text, hash_of(entry[2])), "BAD: fill.so does not match");
  CHECK_CONTAINS(line_with(out.text, hash_of(entry[1])), "BAD: directory is writable by group");
  CHECK_CONTAINS(line_with(out.text, hash_of(entry[0])), "BAD: manifest.json is missing");
  CHECK(!strstr(line_with(out.text, hash_of(entry[3])), "BAD"));

  /* An unsafe root: listed, with the warning that programs will not use it. */
  CHECK(chmod(root, 0770) == 0);
  CHECK_CONTAINS(tool_ok(args).text, "warning: programs will not use this cache");
  CHECK(chmod(root, 0700) == 0);

  char *empty = ct_str("%s/empty", ct_base);
  CHECK(mkdir(empty, 0700) == 0);
  CHECK_CONTAINS(tool_ok((const char *[]){"list", "--dir", empty, NULL}).text, ": 0 entries, 0");
}

/* The tool finds the cache where the library puts it, from the same environment. */
static void case_default_dir(void) {
  struct {
    const char *env[4], *where;
  } setups[] = {
      {{ct_str("OP2_CACHE_DIR=%s/by-env", ct_base), NULL}, ct_str("%s/by-env", ct_base)},
      {{"OP2_CACHE_DIR", ct_str("XDG_CACHE_HOME=%s/xdg", ct_base), NULL},
       ct_str("%s/xdg/op2", ct_base)},
      {{"OP2_CACHE_DIR", "XDG_CACHE_HOME", ct_str("HOME=%s/home", ct_base), NULL},
       ct_str("%s/home/.cache/op2", ct_base)},
  };
  for (int i = 0; i < 3; i++) {
    ct_counts c = ct_prog_env(NULL, NULL, setups[i].env, NULL);
    CT_EXPECT(c, CT_NKERNELS, 0, 0);
    CHECK_EQ_INT(ct_count_entries(setups[i].where), CT_NKERNELS);
    ct_output out = ct_tool_env(setups[i].env, (const char *[]){"list", NULL});
    CHECK_EQ_INT(out.status, 0);
    CHECK_CONTAINS(out.text, ct_str("cache %s: 4 entries", setups[i].where));
  }
  /* --dir wins over the environment. */
  ct_output out = ct_tool_env((const char *[]){ct_str("OP2_CACHE_DIR=%s/nowhere", ct_base), NULL},
                              (const char *[]){"--dir", setups[0].where, "list", NULL});
  CHECK_EQ_INT(out.status, 0);
  CHECK_CONTAINS(out.text, ": 4 entries");
}

static void case_show(void) {
  char *root = populated("show");
  char *entry = ct_entry_of(root, "spread");
  op2_manifest m;
  char err[600];
  CHECK(op2_manifest_read(ct_str("%s/manifest.json", entry), &m, err, sizeof err) == 0);
  char *src = ct_read(ct_str("%s/spread.c", entry), NULL);
  char *before = ct_snapshot(root);
  ct_output out = tool_ok((const char *[]){"--dir", root, "show", "spread", NULL});
  CHECK_SAME_TREE(before, ct_snapshot(root));
  const char *expect[] = {
      "status         ok", m.key,         m.source_xxh3,  m.binary_xxh3,
      m.compiler,          m.created,     "signature",    "loop spread, target c",
      "arg 2: dat",        "source_file", "binary_bytes", src};
  for (int i = 0; i < 12; i++) CHECK_CONTAINS(out.text, expect[i]);
  CHECK_CONTAINS(line_with(out.text, "loop "), "spread");
  CHECK(strstr(out.text, m.key) < strstr(out.text, src)); /* fields first, then the source */

  /* The same entry by hash prefix (either case), full key and directory name. */
  char upper[9];
  for (int i = 0; i < 8; i++) upper[i] = (char)toupper((unsigned char)m.key[i]);
  upper[8] = '\0';
  const char *other[] = {ct_str("%.6s", m.key), upper, m.key, ct_str("%.20s", m.key),
                         strrchr(entry, '/') + 1};
  for (int i = 0; i < 5; i++) {
    ct_output again = tool_ok((const char *[]){"--dir", root, "show", other[i], NULL});
    CHECK(strcmp(out.text, again.text) == 0);
  }

  ct_output none = ct_tool((const char *[]){"--dir", root, "show", "nosuch", NULL});
  CHECK_EQ_INT(none.status, 1);
  CHECK_CONTAINS(none.text, "no entry");
  none = ct_tool((const char *[]){"--dir", root, "show", ct_str("%.31sx", m.key), NULL});
  CHECK_EQ_INT(none.status, 1);

  /* Two shapes of 'init': the name is ambiguous and both are listed; a hash picks one. */
  ct_counts c = ct_prog(root, NULL, (const char *[]){"access=rw", NULL});
  CT_EXPECT(c, 1, CT_NKERNELS - 1, 0);
  char *names = ct_entries(root), *inits[2];
  int n = 0;
  for (const char *p = names; *p; p += strcspn(p, "\n") + 1)
    if (strncmp(p, "init-", 5) == 0) inits[n++] = ct_str("%.16s", p + 5);
  CHECK_EQ_INT(n, 2);
  ct_output amb = ct_tool((const char *[]){"--dir", root, "show", "init", NULL});
  CHECK_EQ_INT(amb.status, 1);
  CHECK_CONTAINS(amb.text, "matches 2 entries");
  CHECK_CONTAINS(amb.text, inits[0]);
  CHECK_CONTAINS(amb.text, inits[1]);
  CHECK(!strstr(amb.text, "---- generated source"));
  int rw = 0;
  for (int i = 0; i < 2; i++) {
    ct_output one = tool_ok((const char *[]){"--dir", root, "show", inits[i], NULL});
    CHECK_CONTAINS(one.text, ct_str("init-%s", inits[i]));
    CHECK(!strstr(one.text, inits[1 - i]));
    rw += strstr(one.text, "arg 0: dat 0 double[1] OP_RW direct") != NULL;
  }
  CHECK_EQ_INT(rw, 1);

  /* A damaged entry is shown with its problem. */
  char *path = ct_str("%s/spread.c", entry);
  size_t len;
  char *text = ct_read(path, &len);
  text[len - 2] = text[len - 2] == 'x' ? 'y' : 'x';
  ct_write(path, text, len);
  out = tool_ok((const char *[]){"--dir", root, "show", "spread", NULL});
  CHECK_CONTAINS(out.text, "status         BAD: spread.c does not match");
  CHECK_CONTAINS(out.text, text);
}

static void case_prune(void) {
  char *root = populated("prune");
  time_t now = time(NULL);
  const int order[CT_NKERNELS] = {1, 0, 2, 3}; /* spread, init, fill, total: oldest first */
  char *entry[CT_NKERNELS];
  long long size[CT_NKERNELS], total = 0;
  for (int i = 0; i < CT_NKERNELS; i++) {
    entry[i] = ct_entry_of(root, loops[order[i]]);
    ct_set_mtime(entry[i], now - 1000 + 100 * i);
    size[i] = dir_bytes(entry[i]);
    CHECK(size[i] > 1024);
    total += size[i];
  }
  /* At the limit already: nothing goes. */
  ct_output out =
      tool_ok((const char *[]){"--dir", root, "prune", "--max-size", ct_str("%lld", total), NULL});
  CHECK_EQ_INT(freed_bytes(out.text), 0);
  CHECK_EQ_INT(ct_count_entries(root), 4);
  out = tool_ok((const char *[]){"--dir", root, "prune", "--max-size", "1G", NULL});
  CHECK_EQ_INT(ct_count_entries(root), 4);

  /* One byte over: the least recently used entry goes, and only it. */
  out = tool_ok(
      (const char *[]){"--dir", root, "prune", "--max-size", ct_str("%lld", total - 1), NULL});
  CHECK_CONTAINS(out.text, ct_str("removed %s", strrchr(entry[0], '/') + 1));
  CHECK_EQ_INT(freed_bytes(out.text), size[0]);
  CHECK_EQ_INT(access(entry[0], F_OK), -1);
  CHECK_EQ_INT(ct_count_entries(root), 3);

  /* The library is fine with a pruned cache: it rebuilds what is missing. */
  ct_counts c = ct_prog(root, NULL, NULL);
  CT_EXPECT(c, 1, CT_NKERNELS - 1, 0);
  entry[0] = ct_entry_of(root, loops[order[0]]);
  for (int i = 0; i < CT_NKERNELS; i++) ct_set_mtime(entry[i], now - 1000 + 100 * i);
  size[0] = dir_bytes(entry[0]);

  /* --older-than: only the entry last used ten days ago goes, and only the warnings check
   * record written as long ago. */
  ct_set_mtime(entry[2], now - 10 * 86400);
  CHECK(mkdir(ct_str("%s/warnings", root), 0700) == 0);
  char *old_record = ct_str("%s/warnings/fill-0123456789abcdef.txt", root);
  char *new_record = ct_str("%s/warnings/init-0123456789abcdef.txt", root);
  ct_write(old_record, "", 0);
  ct_write(new_record, "", 0);
  ct_set_mtime(old_record, now - 10 * 86400);
  out = tool_ok((const char *[]){"--dir", root, "prune", "--older-than", "5", NULL});
  CHECK_EQ_INT(freed_bytes(out.text), size[2]);
  CHECK_EQ_INT(access(entry[2], F_OK), -1);
  CHECK_EQ_INT(ct_count_entries(root), 3);
  CHECK_CONTAINS(out.text, "removed 1 warnings check record");
  CHECK_EQ_INT(access(old_record, F_OK), -1);
  CHECK_EQ_INT(access(new_record, F_OK), 0);

  /* Both limits; then sizes with suffixes. */
  out = tool_ok((const char *[]){"--dir", root, "prune", "--older-than=1", "--max-size",
                                 ct_str("%lld", size[3]), NULL});
  CHECK_EQ_INT(freed_bytes(out.text), size[0] + size[1]);
  CHECK_EQ_INT(ct_count_entries(root), 1);
  CHECK_EQ_INT(access(entry[3], F_OK), 0);
  out = tool_ok((const char *[]){"--dir", root, "prune", "--max-size=1K", NULL});
  CHECK_EQ_INT(ct_count_entries(root), 0);

  /* --max-size 1 empties a full cache; the directory itself stays. */
  c = ct_prog(root, NULL, NULL);
  CT_EXPECT(c, CT_NKERNELS, 0, 0);
  total = 0;
  for (int i = 0; i < CT_NKERNELS; i++) total += dir_bytes(ct_entry_of(root, loops[i]));
  out = tool_ok((const char *[]){"--dir", root, "prune", "--max-size", "1", NULL});
  CHECK_EQ_INT(freed_bytes(out.text), total);
  CHECK_EQ_INT(ct_count_entries(root), 0);
  CHECK_EQ_INT(access(root, F_OK), 0);
}

static void case_clear(void) {
  char *root = populated("clear");
  ct_counts c = ct_prog(root, NULL, (const char *[]){"access=rw", NULL});
  CT_EXPECT(c, 1, CT_NKERNELS - 1, 0);
  long long total = 0;
  char *names = ct_entries(root);
  for (const char *p = names; *p; p += strcspn(p, "\n") + 1)
    total += dir_bytes(ct_str("%s/%.*s", root, (int)strcspn(p, "\n"), p));

  /* Things that are not entries, and links that lead out of the cache. */
  char *outside = ct_str("%s/outside", ct_base);
  CHECK(mkdir(outside, 0700) == 0);
  ct_write(ct_str("%s/keep.txt", outside), "keep", 4);
  ct_write(ct_str("%s/manifest.json", outside), "{}", 2);
  CHECK(symlink(outside, ct_str("%s/trap-0123456789abcdef", root)) == 0);
  CHECK(symlink(ct_str("%s/keep.txt", outside),
                ct_str("%s/spread.so.tmp4242", ct_entry_of(root, "spread"))) == 0);
  char *foreign = ct_str("%s/foo-0123456789abcdef", root);
  CHECK(mkdir(foreign, 0700) == 0);
  ct_write(ct_str("%s/notes.txt", foreign), "mine", 4);
  CHECK(mkdir(ct_str("%s/notes", root), 0700) == 0);
  ct_write(ct_str("%s/notes/a.txt", root), "a", 1);
  ct_write(ct_str("%s/README", root), "r", 1);
  /* A crashed writer's leftovers: an entry with nothing but a temporary file. */
  char *stale = ct_str("%s/fill-aaaaaaaaaaaaaaaa", root);
  CHECK(mkdir(stale, 0700) == 0);
  ct_write(ct_str("%s/fill.c.tmp123", stale), "partial", 7);

  /* The warnings check's records go too; a link among them (not the library's) and a file that
   * is not a record stay, and the link is never followed. */
  CHECK(mkdir(ct_str("%s/warnings", root), 0700) == 0);
  ct_write(ct_str("%s/warnings/spread-0123456789abcdef.txt", root), "w", 1);
  CHECK(symlink(ct_str("%s/keep.txt", outside),
                ct_str("%s/warnings/x-0123456789abcdef.txt", root)) == 0);
  ct_write(ct_str("%s/warnings/notes", root), "n", 1);

  char *outside_before = ct_snapshot(outside);
  ct_output out = tool_ok((const char *[]){"--dir", root, "clear", NULL});
  CHECK_CONTAINS(out.text, "removed 1 warnings check record (1B)");
  CHECK_EQ_INT(access(ct_str("%s/warnings/spread-0123456789abcdef.txt", root), F_OK), -1);
  CHECK_EQ_INT(access(ct_str("%s/warnings/notes", root), F_OK), 0);
  struct stat st;
  CHECK(lstat(ct_str("%s/warnings/x-0123456789abcdef.txt", root), &st) == 0 && S_ISLNK(st.st_mode));
  fprintf(stderr, "%s", out.text);
  CHECK_EQ_INT(freed_bytes(out.text), total + 7);
  CHECK_CONTAINS(out.text, "removed 6 entries");
  CHECK_SAME_TREE(outside_before, ct_snapshot(outside));
  CHECK(strcmp(ct_entries(root), "foo-0123456789abcdef\ntrap-0123456789abcdef\n") == 0);
  CHECK_EQ_INT(access(ct_str("%s/notes.txt", foreign), F_OK), 0);
  CHECK_EQ_INT(access(ct_str("%s/notes/a.txt", root), F_OK), 0);
  CHECK_EQ_INT(access(ct_str("%s/README", root), F_OK), 0);

  out = tool_ok((const char *[]){"--dir", root, "list", NULL});
  CHECK_CONTAINS(out.text, ": 0 entries");
  CHECK_CONTAINS(out.text, "1 directory named like entries");

  /* The cache works afterwards, and clearing an empty cache is fine. */
  c = ct_prog(root, NULL, NULL);
  CT_EXPECT(c, CT_NKERNELS, 0, 0);
  CHECK_CONTAINS(tool_ok((const char *[]){"--dir", root, "clear", NULL}).text, "removed 4 entries");
  CHECK_CONTAINS(tool_ok((const char *[]){"--dir", root, "clear", NULL}).text,
                 "removed 0 entries, freed 0 bytes");
}

int main(int argc, char **argv) {
  ct_setup(argc, argv);
  CHECK(ct_tool_path && access(ct_tool_path, X_OK) == 0);
  if (ct_want("help")) case_help();
  if (ct_want("errors")) case_errors();
  if (ct_want("list")) case_list();
  if (ct_want("default-dir")) case_default_dir();
  if (ct_want("show")) case_show();
  if (ct_want("prune")) case_prune();
  if (ct_want("clear")) case_clear();
  ct_cleanup();
  return 0;
}
