/* SPDX-License-Identifier: BSD-3-Clause */
/* Airfoil killed with SIGKILL at 10 seeded random moments and restarted each time from its
 * checkpoint ends with the same rms, bit for bit, as an uninterrupted run; a corrupted and a
 * truncated checkpoint are refused with an error naming the file.
 * Usage: t800-airfoil-kill SEED WORKDIR AIRFOIL MESH ITERATIONS POLICY -- [LAUNCHER...]
 * The command run is LAUNCHER... AIRFOIL MESH ITERATIONS; a kill takes it and every process it
 * started (the MPI ranks) at once. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test.h"

extern char **environ;

enum { KILLS = 10 };

static char *argv_run[64];
static char out_path[4200], err_path[4200];

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static char *read_text(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return strdup("");
  static char buf[1 << 20];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  return strdup(buf);
}

/* Starts the command with `checkpoint` (NULL: none) and stdout/stderr in files. */
static pid_t start(const char *checkpoint) {
  static char env_ckpt[4300];
  char *envp[512];
  int n = 0;
  for (char **e = environ; *e && n < 500; e++)
    if (strncmp(*e, "AIRFOIL_CHECKPOINT=", 19) != 0) envp[n++] = *e;
  if (checkpoint) {
    snprintf(env_ckpt, sizeof env_ckpt, "AIRFOIL_CHECKPOINT=%s", checkpoint);
    envp[n++] = env_ckpt;
  }
  envp[n] = NULL;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid;
  CHECK(posix_spawnp(&pid, argv_run[0], &fa, NULL, argv_run, envp) == 0);
  posix_spawn_file_actions_destroy(&fa);
  return pid;
}

/* The parent of process `pid` from /proc, or -1. */
static pid_t parent_of(pid_t pid) {
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  char *close_paren = strrchr(buf, ')'); /* the command name may hold spaces */
  int ppid = -1;
  if (!close_paren || sscanf(close_paren + 1, " %*c %d", &ppid) != 1) return -1;
  return ppid;
}

/* SIGKILL to `root` and every process below it, all found first and then killed in one sweep:
 * mpiexec puts its ranks in sessions of their own, so a process-group kill would miss them. */
static void kill_tree(pid_t root) {
  pid_t tree[256] = {root};
  int n = 1;
  for (int grew = 1; grew && n < 256;) {
    grew = 0;
    DIR *d = opendir("/proc");
    CHECK(d != NULL);
    for (struct dirent *e; (e = readdir(d)) && n < 256;) {
      pid_t pid = (pid_t)atoi(e->d_name), pp;
      if (pid <= 0 || (pp = parent_of(pid)) < 0) continue;
      int known = 0, parent_known = 0;
      for (int k = 0; k < n; k++) known |= tree[k] == pid, parent_known |= tree[k] == pp;
      if (parent_known && !known) tree[n++] = pid, grew = 1;
    }
    closedir(d);
  }
  for (int k = 0; k < n; k++) kill(tree[k], SIGKILL);
  /* The ranks are not our children: wait until each is gone or a zombie before going on. */
  for (int k = 1; k < n; k++)
    for (int tries = 0; tries < 5000; tries++) {
      char path[64], buf[512];
      snprintf(path, sizeof path, "/proc/%d/stat", (int)tree[k]);
      FILE *f = fopen(path, "r");
      if (!f) break;
      size_t len = fread(buf, 1, sizeof buf - 1, f);
      fclose(f);
      buf[len] = '\0';
      char *p = strrchr(buf, ')');
      if (!p || p[2] == 'Z' || p[2] == 'X') break;
      usleep(1000);
    }
}

/* Identity of a file's current version: inode and modification time; zeros when absent. */
static void version_of(const char *path, long v[3]) {
  struct stat st;
  v[0] = v[1] = v[2] = 0;
  if (stat(path, &st) == 0)
    v[0] = (long)st.st_ino, v[1] = (long)st.st_mtim.tv_sec, v[2] = (long)st.st_mtim.tv_nsec;
}

static char ckpt[4200], ckpt_dir[4200], ckpt_base[300];

/* Identity of the checkpoint's newest temporary file (CKPT.tmp and random characters: a killed
 * run leaves its own behind), or zeros when there is none; `remove` deletes them instead. */
static void temp_version(long v[3], int remove) {
  v[0] = v[1] = v[2] = 0;
  DIR *d = opendir(ckpt_dir);
  if (!d) return;
  size_t n = strlen(ckpt_base);
  for (struct dirent *e; (e = readdir(d));) {
    if (strncmp(e->d_name, ckpt_base, n) != 0 || strncmp(e->d_name + n, ".tmp", 4) != 0) continue;
    char path[4600];
    snprintf(path, sizeof path, "%s/%s", ckpt_dir, e->d_name);
    long w[3];
    if (remove)
      unlink(path);
    else if (version_of(path, w), w[1] > v[1] || (w[1] == v[1] && w[2] > v[2]))
      memcpy(v, w, sizeof w);
  }
  closedir(d);
}

/* Waits for the run. With delay >= 0 the run is killed (with every process it started) `delay`
 * seconds after it starts writing its first checkpoint (a new temporary file appears) or, with
 * `after_commit`, after that checkpoint is complete (renamed into place): kills land in the part
 * of the run that matters however long the start-up takes on a loaded machine, and those after a
 * commit guarantee progress even where writing a checkpoint is slow. */
static int finish(pid_t pid, double delay, int after_commit, int *killed) {
  int status;
  long tmp0[3], ck0[3], v[3];
  temp_version(tmp0, 0);
  version_of(ckpt, ck0);
  double anchor = -1;
  *killed = 0;
  for (;;) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    CHECK(r == 0 || (r < 0 && errno == EINTR));
    if (delay >= 0 && anchor < 0) {
      if (after_commit)
        version_of(ckpt, v);
      else
        temp_version(v, 0);
      if (v[0] && memcmp(after_commit ? ck0 : tmp0, v, sizeof v) != 0) anchor = now();
    }
    if (delay >= 0 && anchor >= 0 && !*killed && now() >= anchor + delay) {
      kill_tree(pid);
      *killed = 1;
    }
    usleep(1000);
  }
  return status;
}

/* The "final rms 0x..." line of a finished run's output. */
static char *final_rms(void) {
  char *out = read_text(out_path);
  char *line = strstr(out, "final rms ");
  CHECK(line != NULL);
  char *end = strchr(line, '\n');
  if (end) *end = '\0';
  char *rms = strdup(line + 10);
  free(out);
  return rms;
}

/* The run must fail, naming `file` and saying `why`, and print no result. */
static void expect_refused(const char *file, const char *why) {
  int killed;
  int status = finish(start(file), -1, 0, &killed);
  char *err = read_text(err_path), *out = read_text(out_path);
  printf("refused as expected? status %d, stderr: %s", status, err);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) != 0);
  CHECK_CONTAINS(err, file);
  CHECK_CONTAINS(err, why);
  CHECK(strstr(out, "final rms") == NULL);
  free(err), free(out);
}

static void copy_file(const char *from, const char *to, long keep) {
  FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
  CHECK(a && b);
  int c;
  for (long n = 0; (keep < 0 || n < keep) && (c = fgetc(a)) != EOF; n++) fputc(c, b);
  fclose(a), fclose(b);
}

int main(int argc, char **argv) {
  CHECK(argc >= 8 && strcmp(argv[7], "--") == 0);
  unsigned seed = (unsigned)strtoul(argv[1], NULL, 10);
  const char *dir = argv[2];
  int na = 0;
  for (int i = 8; i < argc && na < 56; i++) argv_run[na++] = argv[i];
  argv_run[na++] = argv[3];
  argv_run[na++] = argv[4];
  argv_run[na++] = argv[5];
  argv_run[na] = NULL;
  setenv("AIRFOIL_CHECKPOINT_POLICY", argv[6], 1);
  mkdir(dir, 0755);
  char bad[4300];
  snprintf(out_path, sizeof out_path, "%s/stdout.txt", dir);
  snprintf(err_path, sizeof err_path, "%s/stderr.txt", dir);
  snprintf(ckpt, sizeof ckpt, "%s/airfoil.ckpt.h5", dir);
  snprintf(ckpt_dir, sizeof ckpt_dir, "%s", dir);
  snprintf(ckpt_base, sizeof ckpt_base, "airfoil.ckpt.h5");
  unlink(ckpt);
  long none[3];
  temp_version(none, 1);

  /* The reference: uninterrupted, no checkpointing. */
  int killed;
  double t0 = now();
  int status = finish(start(NULL), -1, 0, &killed);
  double span = now() - t0;
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  char *reference = final_rms();
  printf("uninterrupted: final rms %s (%.2f s)\n", reference, span);

  /* Kill moments from the seed: up to 15% of the uninterrupted run's loop time (Airfoil's
   * "total wall time") after the run starts writing its first checkpoint (one kill in three) or
   * after that checkpoint is complete, so that most kills interrupt a run that has made some
   * progress and ten of them do not reach the end. */
  char *out = read_text(out_path), *wall = strstr(out, "total wall time");
  CHECK(wall != NULL);
  double loops = atof(wall + 15);
  free(out);
  unsigned state = seed ? seed : 1;
  int restarts_resumed = 0, finished = 0;
  for (int k = 0; k < KILLS; k++) {
    double delay = loops * 0.15 * (double)(test_rand(&state) % 10000) / 10000.0;
    int after_commit = test_rand(&state) % 3 != 0;
    status = finish(start(ckpt), delay, after_commit, &killed);
    char *err = read_text(err_path);
    long replayed = 0;
    const char *r = strstr(err, "replaying ");
    if (r) replayed = atol(r + 10);
    restarts_resumed += replayed > 0;
    printf("run %d: killed %.3f s after its first checkpoint %s: %s; it replayed %ld loop calls\n",
           k + 1, delay, after_commit ? "was complete" : "began",
           killed ? "yes" : "no (it finished)", replayed);
    if (!killed) {
      if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) fprintf(stderr, "%s", err);
      CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
      char *rms = final_rms();
      CHECK(strcmp(rms, reference) == 0); /* a run that got to the end has the same result */
      free(rms);
      finished++;
    }
    free(err);
  }
  /* Restarted until it finishes. */
  for (int tries = 0;; tries++) {
    CHECK(tries < 3);
    status = finish(start(ckpt), -1, 0, &killed);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) break;
    char *err = read_text(err_path);
    fprintf(stderr, "final run failed: %s", err);
    free(err);
    CHECK(0);
  }
  char *rms = final_rms();
  printf("after %d kills: final rms %s (reference %s); %d restarts resumed from a checkpoint\n",
         KILLS, rms, reference, restarts_resumed);
  CHECK(strcmp(rms, reference) == 0);
  CHECK(restarts_resumed > 0); /* the kills did interrupt runs that had checkpointed */

  /* A corrupted and a truncated checkpoint are refused, never loaded. */
  struct stat st;
  CHECK(stat(ckpt, &st) == 0 && st.st_size > 4096);
  snprintf(bad, sizeof bad, "%s/corrupted.ckpt.h5", dir);
  copy_file(ckpt, bad, -1);
  FILE *f = fopen(bad, "r+b");
  CHECK(f != NULL);
  fseek(f, st.st_size / 2, SEEK_SET);
  int c = fgetc(f);
  fseek(f, st.st_size / 2, SEEK_SET);
  fputc(c ^ 0x10, f);
  fclose(f);
  expect_refused(bad, "corrupted");
  snprintf(bad, sizeof bad, "%s/truncated.ckpt.h5", dir);
  copy_file(ckpt, bad, st.st_size - 1000);
  expect_refused(bad, "truncated");
  if (argc > 8) { /* under a launcher: the same checkpoint with one process is refused */
    argv_run[0] = argv[3], argv_run[1] = argv[4], argv_run[2] = argv[5], argv_run[3] = NULL;
    expect_refused(ckpt, "MPI ranks");
  }
  free(reference), free(rms);
  return 0;
}
