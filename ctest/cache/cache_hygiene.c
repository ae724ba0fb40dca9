/* SPDX-License-Identifier: BSD-3-Clause */
/* What the cache is left with when things go wrong, and what a later process or op2-cache makes
 * of it:
 *   fifo-manifest     a FIFO in place of manifest.json is refused without blocking
 *   dir-files         directories in place of manifest.json or of the shared object are refused,
 *                     removed and rebuilt
 *   full-disk         a cache on a full filesystem is a warning, never a failed loop, and no
 *                     partial entry stays (needs root to mount a 4 KiB tmpfs; skipped otherwise)
 *   leftovers-prune   op2-cache prune removes temporary files of dead processes and entries
 *                     without a manifest, and leaves an entry that a live process is building
 *   leftovers-library the library removes an incomplete entry it refuses before rebuilding it
 *   kill-mid-compile  a tiered run killed with SIGKILL while its optimising compile runs: the
 *                     next start refuses the incomplete entry once and removes it; prune cleans
 *                     it as well
 *   keys-match-flags  every entry's key is the hash of its source, compiler and the flags its
 *                     manifest says the compiler received (the key cannot drift from the
 *                     compile), for TinyCC and the system compiler */
#include <signal.h>
#include <sys/file.h>
#include <sys/mount.h>

#include "cache_test.h"
#include "jit/cache_entry.h"

/* A pid that no process has now: a child that has exited and been reaped. */
static int dead_pid(void) {
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) _exit(0);
  int st;
  CHECK(waitpid(pid, &st, 0) == pid);
  return (int)pid;
}

/* Entries whose directory holds no manifest.json. */
static int count_incomplete(const char *root) {
  int n = 0;
  char *all = ct_entries(root);
  for (const char *p = all; *p; p += strcspn(p, "\n") + 1) {
    char *name = strndup(p, strcspn(p, "\n"));
    CHECK(name != NULL);
    n += access(ct_str("%s/%s/manifest.json", root, name), F_OK) != 0;
    free(name);
  }
  return n;
}

static int count_occurrences(const char *text, const char *what) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, what)) != NULL; p += strlen(what)) n++;
  return n;
}

static void case_fifo_manifest(void) {
  char *root = ct_str("%s/fifo", ct_base);
  ct_counts first = ct_prog(root, NULL, NULL);
  char *entry = ct_entry_of(root, "spread"), *man = ct_str("%s/manifest.json", entry);
  CHECK(unlink(man) == 0);
  CHECK(mkfifo(man, 0600) == 0);
  /* A blocked open would hang here: the alarm turns a hang into a failure. */
  alarm(60);
  ct_output list = ct_tool((const char *[]){"--dir", root, "list", NULL});
  CHECK_EQ_INT(list.status, 0);
  CHECK_CONTAINS(list.text, "BAD: manifest.json is not a regular file");
  ct_counts second = ct_prog(root, NULL, NULL);
  CT_EXPECT(second, 1, CT_NKERNELS - 1, 1);
  CHECK(strcmp(first.result, second.result) == 0);
  alarm(0);
  struct stat st;
  CHECK(lstat(man, &st) == 0 && S_ISREG(st.st_mode)); /* rebuilt in place */
  ct_counts third = ct_prog(root, NULL, NULL);
  CT_EXPECT(third, 0, CT_NKERNELS, 0);
}

static void case_dir_files(void) {
  const char *files[] = {"manifest.json", "spread.so"};
  for (int i = 0; i < 2; i++) {
    char *root = ct_str("%s/dir-%d", ct_base, i);
    ct_counts first = ct_prog(root, NULL, NULL);
    char *path = ct_str("%s/%s", ct_entry_of(root, "spread"), files[i]);
    CHECK(unlink(path) == 0);
    CHECK(mkdir(path, 0700) == 0);
    ct_counts second = ct_prog(root, NULL, NULL);
    CT_EXPECT(second, 1, CT_NKERNELS - 1, 1);
    CHECK(strcmp(first.result, second.result) == 0);
    struct stat st;
    CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode));
    ct_counts third = ct_prog(root, NULL, NULL);
    CT_EXPECT(third, 0, CT_NKERNELS, 0);
  }
}

static void case_full_disk(void) {
  char *root = ct_str("%s/full", ct_base);
  CHECK(mkdir(root, 0700) == 0);
  if (mount("tmpfs", root, "tmpfs", 0, "size=4k,mode=0700") != 0) {
    fprintf(stderr, "SKIP: cannot mount a 4 KiB tmpfs at %s (%s): needs root\n", root,
            strerror(errno));
    exit(CT_SKIP);
  }
  ct_counts ref = ct_prog(ct_str("%s/reference", ct_base), NULL, NULL);
  const char *env[] = {ct_str("OP2_CACHE_DIR=%s", root), "OP2_JIT=tcc", "OP2_DIAGS=1", NULL};
  ct_output out = ct_spawn(ct_prog_path, NULL, env, 1);
  fprintf(stderr, "%s", out.text);
  int status = out.status;
  char result[512];
  if (status == 0) ct_line(out.text, "result ", result, sizeof result);
  char *left = ct_entries(root);
  int incomplete = count_incomplete(root);
  ct_output list = ct_tool((const char *[]){"--dir", root, "list", NULL});
  CHECK(umount(root) == 0);
  CHECK_EQ_INT(status, 0);
  CHECK(strcmp(result, ref.result) == 0);
  /* Warned once, whatever the number of kernels that could not be stored. */
  CHECK_EQ_INT(count_occurrences(out.text, "kernel cache cannot be written"), 1);
  CHECK_CONTAINS(out.text, "op2: warning: ");
  fprintf(stderr, "left in the full cache:\n%s%s", left, list.text);
  CHECK_EQ_INT(incomplete, 0);
  CHECK(!strstr(list.text, "BAD"));
}

/* Holds the build lock of `entry` in a child until it is killed: a live process building it. */
static pid_t hold_lock(const char *entry) {
  int fds[2];
  CHECK(pipe(fds) == 0);
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    int fd = open(entry, O_RDONLY | O_DIRECTORY);
    if (fd < 0 || flock(fd, LOCK_EX) != 0) _exit(1);
    if (write(fds[1], "x", 1) != 1) _exit(1);
    pause();
    _exit(0);
  }
  char c;
  close(fds[1]);
  CHECK(read(fds[0], &c, 1) == 1);
  close(fds[0]);
  return pid;
}

static void case_leftovers_prune(void) {
  char *root = ct_str("%s/prune", ct_base);
  ct_prog(root, NULL, NULL);
  int dead = dead_pid();
  char *spread = ct_entry_of(root, "spread");
  char *temp = ct_str("%s/spread.so.tmp%d", spread, dead);
  ct_write(temp, "partial", 7);
  /* A build killed after its source: no manifest, a temporary object. */
  char *killed = ct_str("%s/fill-aaaaaaaaaaaaaaaa", root);
  CHECK(mkdir(killed, 0700) == 0);
  ct_write(ct_str("%s/fill.c", killed), "int x;\n", 7);
  ct_write(ct_str("%s/fill.so.tmp%d", killed, dead), "partial", 7);
  /* A build in progress in another process: left alone although it has no manifest yet. */
  char *busy = ct_str("%s/total-bbbbbbbbbbbbbbbb", root);
  CHECK(mkdir(busy, 0700) == 0);
  ct_write(ct_str("%s/total.c", busy), "int y;\n", 7);
  ct_write(ct_str("%s/total.so.tmp%d", busy, dead), "partial", 7);
  pid_t holder = hold_lock(busy);

  ct_output out = ct_tool((const char *[]){"--dir", root, "prune", "--max-size", "1G", NULL});
  fprintf(stderr, "%s", out.text);
  kill(holder, SIGKILL);
  waitpid(holder, NULL, 0);
  CHECK_EQ_INT(out.status, 0);
  CHECK_EQ_INT(access(temp, F_OK), -1);
  CHECK_EQ_INT(access(killed, F_OK), -1);
  CHECK_CONTAINS(out.text, "removed fill-aaaaaaaaaaaaaaaa");
  CHECK_CONTAINS(out.text, "removed 1 entry");
  CHECK_EQ_INT(access(ct_str("%s/total.so.tmp%d", busy, dead), F_OK), 0);
  CHECK_EQ_INT(ct_count_entries(root), CT_NKERNELS + 1);
  /* The sound entries are untouched and load. */
  ct_counts c = ct_prog(root, NULL, NULL);
  CT_EXPECT(c, 0, CT_NKERNELS, 0);
  /* Once its builder is gone, the busy entry is a leftover too. */
  out = ct_tool((const char *[]){"--dir", root, "prune", "--max-size", "1G", NULL});
  CHECK_EQ_INT(access(busy, F_OK), -1);
  CHECK_EQ_INT(ct_count_entries(root), CT_NKERNELS);
}

static void case_leftovers_library(void) {
  char *root = ct_str("%s/library", ct_base);
  ct_prog(root, NULL, NULL);
  char *spread = ct_entry_of(root, "spread");
  CHECK(unlink(ct_str("%s/manifest.json", spread)) == 0);
  char *temp = ct_str("%s/spread.so.tmp%d", spread, dead_pid());
  ct_write(temp, "partial", 7);
  ct_counts c = ct_prog(root, NULL, NULL);
  CT_EXPECT(c, 1, CT_NKERNELS - 1, 1);
  /* Removed, then built again: the dead process's file went with the incomplete entry. */
  CHECK_EQ_INT(access(temp, F_OK), -1);
  CHECK_EQ_INT(access(ct_str("%s/manifest.json", spread), F_OK), 0);
  c = ct_prog(root, NULL, NULL);
  CT_EXPECT(c, 0, CT_NKERNELS, 0);

  /* An entry being built by another process is waited for, for as long as its compile may take
   * (OP2_COMPILE_TIMEOUT, here 1 s, plus a margin); a builder that outlasts that is refused but
   * never has the entry removed under it. */
  CHECK(unlink(ct_str("%s/manifest.json", spread)) == 0);
  pid_t holder = hold_lock(spread);
  const char *short_wait[] = {"OP2_COMPILE_TIMEOUT=1", NULL};
  double t0 = ct_now();
  c = ct_prog_env(root, NULL, short_wait, NULL);
  double waited = ct_now() - t0;
  fprintf(stderr, "waited %.1f s for the holder\n", waited);
  CHECK(waited >= 1.0 && waited < 60.0);
  CHECK_EQ_INT(access(ct_str("%s/spread.c", spread), F_OK), 0);
  CHECK_EQ_INT(access(ct_str("%s/manifest.json", spread), F_OK), -1);
  kill(holder, SIGKILL);
  waitpid(holder, NULL, 0);
  CT_EXPECT(c, 1, CT_NKERNELS - 1, 1);
}

/* A compiler that says it has started (its pid in `marker`) and then takes forever; or, with
 * SLOW_CC_FAILS set, fails at once (the same compiler for the cache key). */
static char *slow_compiler(const char *marker) {
  char *path = ct_str("%s/slow-cc", ct_base);
  char *text = ct_str(
      "#!/bin/sh\n[ -n \"$SLOW_CC_FAILS\" ] && exit 1\n"
      "echo $$ > %s.tmp && mv %s.tmp %s\nexec sleep 300\n",
      marker, marker, marker);
  ct_write(path, text, strlen(text));
  CHECK(chmod(path, 0700) == 0);
  return path;
}

static void case_kill_mid_compile(void) {
  char *root = ct_str("%s/killed", ct_base), *marker = ct_str("%s/compiling", ct_base);
  char *cc = slow_compiler(marker);
  for (int round = 0; round < 2; round++) {
    unlink(marker);
    CHECK(setenv("OP2_CACHE_DIR", root, 1) == 0 && setenv("OP2_JIT", "tiered", 1) == 0 &&
          setenv("OP2_CC", cc, 1) == 0);
    const char *argv[] = {ct_prog_path, "wait=1", NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    CHECK(posix_spawn(&pid, ct_prog_path, &fa, NULL, (char *const *)argv, environ) == 0);
    posix_spawn_file_actions_destroy(&fa);
    CHECK(unsetenv("OP2_CACHE_DIR") == 0 && unsetenv("OP2_JIT") == 0 && unsetenv("OP2_CC") == 0);
    /* Killed once every TinyCC entry is complete and the optimising compile has started, so
     * that exactly one entry (the optimising one) is cut short. */
    for (int waited = 0; waited < 1200; waited++) {
      if (access(marker, F_OK) == 0 &&
          ct_count_entries(root) - count_incomplete(root) == CT_NKERNELS)
        break;
      usleep(50000);
    }
    CHECK(access(marker, F_OK) == 0);
    size_t len;
    int sleeper = atoi(ct_read(marker, &len));
    CHECK(kill(pid, SIGKILL) == 0);
    CHECK(waitpid(pid, NULL, 0) == pid);
    if (sleeper > 0) kill(sleeper, SIGKILL);
    /* The optimising build was killed midway: its entry has no manifest. */
    CHECK_EQ_INT(count_incomplete(root), 1);
    if (round == 0) {
      ct_output out = ct_tool((const char *[]){"--dir", root, "prune", "--max-size", "1G", NULL});
      fprintf(stderr, "%s", out.text);
      CHECK_CONTAINS(out.text, "no manifest");
      CHECK_EQ_INT(count_incomplete(root), 0);
    }
  }
  /* The library refuses it once, removes it, and later starts do not meet it again, even when
   * the optimising compiles never finish (here: a compiler that fails at once). */
  CHECK(setenv("OP2_TEST_JIT", "tiered", 1) == 0);
  const char *failing[] = {ct_str("OP2_CC=%s", cc), "SLOW_CC_FAILS=1", NULL};
  ct_counts c = ct_prog_env(root, NULL, failing, NULL);
  CHECK_EQ_INT(c.refused, 1);
  CHECK_EQ_INT(count_incomplete(root), 0);
  c = ct_prog_env(root, NULL, failing, NULL);
  CHECK_EQ_INT(c.refused, 0);
  CHECK(unsetenv("OP2_TEST_JIT") == 0);
}

/* Every entry's key recomputed from what its manifest says was compiled. */
static void check_keys(const char *root, int expect) {
  char *all = ct_entries(root);
  int n = 0;
  for (const char *p = all; *p; p += strcspn(p, "\n") + 1, n++) {
    char *name = strndup(p, strcspn(p, "\n"));
    CHECK(name != NULL);
    char *entry = ct_str("%s/%s", root, name);
    free(name);
    op2_manifest m;
    char err[600];
    CHECK(op2_manifest_read(ct_str("%s/manifest.json", entry), &m, err, sizeof err) == 0);
    size_t len;
    char *src = ct_read(ct_str("%s/%s", entry, m.source_file), &len);
    op2_cache_key key;
    op2_cache_key_make(src, len, m.compiler, m.flags, &key);
    if (strcmp(key.hex, m.key) != 0)
      fprintf(stderr, "%s: key %s, but source + '%s' + '%s' hash to %s\n", entry, m.key, m.compiler,
              m.flags, key.hex);
    CHECK(strcmp(key.hex, m.key) == 0);
  }
  CHECK_EQ_INT(n, expect);
}

static void case_keys_match_flags(void) {
  char *root = ct_str("%s/keys", ct_base);
  ct_prog(root, NULL, NULL);
  check_keys(root, CT_NKERNELS);
  /* The system compiler, with flags spelled loosely: the manifest says what it received. */
  CHECK(setenv("OP2_TEST_JIT", "cc", 1) == 0);
  const char *env[] = {"OP2_CFLAGS=-O1   -fPIC  -shared", NULL};
  ct_prog_env(root, NULL, env, NULL);
  CHECK(unsetenv("OP2_TEST_JIT") == 0);
  check_keys(root, 2 * CT_NKERNELS);
}

int main(int argc, char **argv) {
  ct_setup(argc, argv);
  if (ct_want("fifo-manifest")) case_fifo_manifest();
  if (ct_want("dir-files")) case_dir_files();
  if (ct_want("leftovers-prune")) case_leftovers_prune();
  if (ct_want("leftovers-library")) case_leftovers_library();
  if (ct_want("kill-mid-compile")) case_kill_mid_compile();
  if (ct_want("keys-match-flags")) case_keys_match_flags();
  if (ct_want("full-disk")) case_full_disk();
  ct_cleanup();
  return 0;
}
